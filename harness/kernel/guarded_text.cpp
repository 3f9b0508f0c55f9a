// The host half of guarded buffers: canary bytes and what damage to them says.
#include "harness/kernel/guarded.hpp"

#include <algorithm>

namespace atomstress::kernel {

uint8_t canary_byte(uint64_t salt, size_t i) {
  uint64_t z = salt * 0x9e3779b97f4a7c15ull + i * 0xbf58476d1ce4e5b9ull;
  z ^= z >> 29;
  return uint8_t(0xa0 | (z & 0x0f)) ^ uint8_t((z >> 8) & 0x40);  // never 0x00 or 0xff
}

std::string describe_guard_damage(const std::string& name, bool front, const uint8_t* seen, size_t guard_bytes,
                                  uint64_t salt) {
  // Byte j of the front guard sits (guard_bytes - j) bytes before the
  // first element; byte j of the back guard j bytes after the last.
  size_t first = guard_bytes, last = 0, changed = 0;
  for (size_t j = 0; j < guard_bytes; ++j) {
    if (seen[j] == canary_byte(salt, j)) continue;
    ++changed;
    first = std::min(first, j);
    last = std::max(last, j);
  }
  if (changed == 0) return "";
  if (front) {
    const size_t far = guard_bytes - first, near = guard_bytes - last;
    return "wrote before the start of '" + name + "': " + std::to_string(changed) + " canary bytes changed, " +
           std::to_string(near) + ".." + std::to_string(far) + " bytes before its first element";
  }
  return "wrote past the end of '" + name + "': " + std::to_string(changed) + " canary bytes changed, +" +
         std::to_string(first) + "..+" + std::to_string(last) + " bytes after its last element";
}

}  // namespace atomstress::kernel
