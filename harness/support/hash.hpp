// Stable hashing of text: the same bytes give the same number on every
// machine and in every run (seeds from names, corpus file names).
#pragma once

#include <cstdint>
#include <string_view>

namespace atomstress {

// FNV-1a, 64 bits.
constexpr uint64_t fnv1a64(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace atomstress
