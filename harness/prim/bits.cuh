// Bit patterns: the one bit_cast, and the zero-extended 64-bit carriers that
// histories, workloads and the registry pass values in (host and device).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "harness/prim/config.cuh"

namespace prim {

template <class To, class From>
AS_HD AS_FI To bit_cast(From f) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast size mismatch");
  To t;
  // (void*: __half and __nv_bfloat16 keep their bits in a protected member,
  // which g++'s -Wclass-memaccess would otherwise flag.)
  memcpy(static_cast<void*>(&t), &f, sizeof(To));
  return t;
}

// The unsigned word of a value's width.
template <class T>
using word_of = std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;

// A value as its bit pattern, zero-extended to 64 bits, and back.
template <class T>
AS_HD AS_FI uint64_t to_bits(T v) {
  return bit_cast<word_of<T>>(v);
}
template <class T>
AS_HD AS_FI T from_bits(uint64_t b) {
  return bit_cast<T>(static_cast<word_of<T>>(b));
}

// The NaN that the GPU's arithmetic produces (the `gpu` test checks it; see
// docs/design.md).  Host mappings produce the same bits.
inline constexpr uint32_t kCanonicalNanF32 = 0x7fffffffu;
inline constexpr uint64_t kCanonicalNanF64 = 0x7fffffffffffffffull;
// The 16-bit formats' canonical NaN (sign clear, every fraction bit set, as
// for f32): what the host mappings of __half and __nv_bfloat16 adds produce.
// The device's NaN bits are not pinned: their specs make all NaNs one state.
inline constexpr uint16_t kCanonicalNanF16 = 0x7fffu;
inline constexpr uint16_t kCanonicalNanBF16 = 0x7fffu;

}  // namespace prim
