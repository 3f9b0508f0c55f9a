// Device buffers with canary zones before and after (guard zones): a write
// outside a buffer changes a canary, and the check names the buffer, the
// side and the offset.  Host interface; guarded.cu does the CUDA calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace atomstress::kernel {

inline constexpr size_t kGuardBytes = 256;  // each side

struct GuardedBuffer {
  std::string name;
  unsigned char* base = nullptr;  // the allocation: front guard, offset, data, back guard
  void* data = nullptr;           // the user's elements
  size_t bytes = 0;               // of the user's elements
  size_t offset_bytes = 0;        // between the aligned start and the first element (alignment draws)
  uint64_t salt = 0;              // varies the canary bytes between buffers
  // false under --sanitize: the allocation is the offset and the data only,
  // so the data's end is the allocation's and compute-sanitizer's memcheck
  // sees the first byte past it (a guard zone inside the allocation would
  // be in bounds for it).  No canaries then: memcheck sees the writes too.
  bool guards = true;
  size_t alloc_bytes() const { return (guards ? 2 * kGuardBytes : 0) + offset_bytes + bytes; }
};

// The canary byte at position i of a guard (both sides): varied, so that a
// stray memset or a copied neighbour does not look like the guard.
uint8_t canary_byte(uint64_t salt, size_t i);

// Allocates `bytes` (zero allowed) with guards around it, canaries written
// (without guards when !b.guards; nothing at all for an empty one then).
bool guarded_alloc(GuardedBuffer& b, std::string& error);
// Copies host bytes in / device bytes out (b.bytes of them).
bool guarded_upload(const GuardedBuffer& b, const void* host, std::string& error);
bool guarded_download(const GuardedBuffer& b, void* host, std::string& error);
// Reads both guards back: `violation` says where a canary changed ("" when
// none): "wrote 4 bytes past the end of 'bins' (bytes +0..+3 after its last
// element)".
bool guarded_check(const GuardedBuffer& b, std::string& violation, std::string& error);
// The finding text for two host copies of a guard (front: the guard before
// the data; the byte order as in memory).  Tested on the CPU.
std::string describe_guard_damage(const std::string& name, bool front, const uint8_t* seen, size_t guard_bytes,
                                  uint64_t salt);
void guarded_free(GuardedBuffer& b);

}  // namespace atomstress::kernel
