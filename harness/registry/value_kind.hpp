// The value types entries operate on, and how a value prints.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "harness/prim/bits.cuh"
#include "harness/prim/config.cuh"

namespace atomstress {

// F16 (__half) and BF16 (__nv_bfloat16) are floats; I16 is a signed 2-byte
// integer (int16_t: printed signed), U16 any other 2-byte type, compared
// bitwise.  (I16 came last, so the older kinds keep their numbers.)
enum class VK : uint8_t { I32, U32, I64, U64, F32, F64, U16, F16, BF16, I16 };
unsigned vk_bytes(VK k);
const char* vk_name(VK k);
std::optional<VK> parse_vk(std::string_view s);
bool vk_is_float(VK k);

template <class T>
constexpr VK vk_of() {
  if constexpr (std::is_same_v<T, float>) return VK::F32;
  else if constexpr (std::is_same_v<T, double>) return VK::F64;
  else if constexpr (std::is_same_v<T, __half>) return VK::F16;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return VK::BF16;
  else if constexpr (sizeof(T) == 2) return std::is_integral_v<T> && std::is_signed_v<T> ? VK::I16 : VK::U16;
  else if constexpr (sizeof(T) == 4) return std::is_signed_v<T> ? VK::I32 : VK::U32;
  else return std::is_signed_v<T> ? VK::I64 : VK::U64;
}

// Every NaN of a float kind as the one NaN the GPU's arithmetic produces;
// any other value as it is (host and device: the checkers' "all NaNs one state").
AS_HD inline uint64_t canonical_nan_bits(VK kind, uint64_t bits) {
  if (kind == VK::F32 && (bits & 0x7fffffffu) > 0x7f800000u) return prim::kCanonicalNanF32;
  if (kind == VK::F64 && (bits & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return prim::kCanonicalNanF64;
  if (kind == VK::F16 && (bits & 0x7fffu) > 0x7c00u) return prim::kCanonicalNanF16;
  if (kind == VK::BF16 && (bits & 0x7fffu) > 0x7f80u) return prim::kCanonicalNanBF16;
  return bits;
}

// "1.5 (0x3fc00000)", "-7", "NaN (0x7fffffff)", "0.33325 (0x3555)"; a 16-bit
// integer as its own kind reads it: "-1" (i16), "65535" (u16), of the low 16 bits.
std::string format_value(VK k, uint64_t bits);

}  // namespace atomstress
