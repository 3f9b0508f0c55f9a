// How much memory a trial will take, estimated from its spec before anything
// is allocated, and whether that fits the machine: a spec that does not fit
// is bad input (one line, exit 2), not a std::bad_alloc or an OOM kill.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "harness/backend/backend.hpp"
#include "harness/trial/spec.hpp"

namespace atomstress {

struct Footprint {
  uint64_t host_bytes = 0;
  uint64_t device_bytes = 0;  // on the cuda backend; 0 on cpu
  uint64_t mem_elems = 0;     // the trial's memory (all regions)
  uint64_t ops = 0;
  // grid x block x ops-per-thread without wrapping (the 64-bit fields
  // above saturate at 2^64 - 1).
  unsigned __int128 ops_exact = 0;
};

// An unsigned 128-bit number in decimal digits.
std::string decimal(unsigned __int128 v);

// What the memory is for: a trial (check, fuzz, repro), or a profile
// point, which holds more copies of the memory at once (its timed runs'
// histories beside the restored buffers: 61 B a word at its peak measured
// on the cpu backend, 2^24 words, 4- and 8-byte values alike).
enum class FootprintOf { Trial, ProfilePoint };

// Nullopt when the implementation is unknown or the pattern's region cannot
// be sized (expand() then says why).
std::optional<Footprint> estimate_footprint(const TrialSpec& spec, BackendKind backend,
                                            FootprintOf use = FootprintOf::Trial);

// Memory this process may still use: the smallest of MemAvailable, the
// cgroup's limit less its usage, and RLIMIT_AS less the address space in use.
uint64_t host_memory_available();

// What a run may still take, read once for a whole plan (the reads touch
// /proc, the cgroup and the device).
struct MemoryBudget {
  uint64_t host = 0;
  std::optional<uint64_t> device_free;  // cuda backend with a device
};
MemoryBudget memory_budget(BackendKind backend);

// True when the trial fits, with headroom; else false and a one-line
// `error` naming the need and what is available ("too large": also a
// trial past 2^28 ops, with its true size, however large).
bool footprint_fits(const TrialSpec& spec, BackendKind backend, const MemoryBudget& budget, std::string& error,
                    FootprintOf use = FootprintOf::Trial);
// The same against the budget of this moment (for a single trial).
bool footprint_fits(const TrialSpec& spec, BackendKind backend, std::string& error);

}  // namespace atomstress
