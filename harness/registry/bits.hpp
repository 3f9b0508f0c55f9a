// Bit-pattern conversions between typed values and the uint64_t carriers.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "harness/registry/registry.hpp"

namespace atomstress {

template <class T>
inline uint64_t to_bits(T v) {
  if constexpr (sizeof(T) == 2) {
    uint16_t u;
    std::memcpy(&u, &v, 2);
    return u;
  } else if constexpr (sizeof(T) == 4) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return u;
  } else {
    uint64_t u;
    std::memcpy(&u, &v, 8);
    return u;
  }
}

template <class T>
inline T from_bits(uint64_t b) {
  T v;
  if constexpr (sizeof(T) == 2) {
    const uint16_t u = static_cast<uint16_t>(b);
    std::memcpy(&v, &u, 2);
  } else if constexpr (sizeof(T) == 4) {
    const uint32_t u = static_cast<uint32_t>(b);
    std::memcpy(&v, &u, 4);
  } else {
    std::memcpy(&v, &b, 8);
  }
  return v;
}

template <class T>
constexpr VK vk_of() {
  if constexpr (std::is_same_v<T, float>) return VK::F32;
  else if constexpr (std::is_same_v<T, double>) return VK::F64;
  else if constexpr (sizeof(T) == 2) return VK::U16;
  else if constexpr (sizeof(T) == 4) return std::is_signed_v<T> ? VK::I32 : VK::U32;
  else return std::is_signed_v<T> ? VK::I64 : VK::U64;
}

}  // namespace atomstress
