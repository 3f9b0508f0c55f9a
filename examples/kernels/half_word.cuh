// A __half's place in its aligned 32-bit word, and the add into that word:
// the pieces of PyTorch's atomicAdd for at::Half on GPUs without a native
// 16-bit atomic (a CAS loop on the enclosing word).  Host and device, so
// the host tests (tests/test_kernel_half.cpp) check them on the CPU.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace half_word {

// The aligned 32-bit word holding the half at `address`, and which half of
// it (little-endian: the half at byte offset 2 is the high one).
struct Slot {
  uintptr_t word;
  bool high;
};
__host__ __device__ inline Slot slot_of(const void* address) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  return {a & ~uintptr_t(3), (a & 2) != 0};
}

// Whether element i's enclosing word lies inside the tensor self[0, numel):
// not for self[0] when self starts mid-word, nor for self[numel - 1] when
// the tensor ends mid-word.
__host__ __device__ inline bool word_inside(const __half* self, size_t numel, size_t i) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(self), end = start + 2 * numel;
  const uintptr_t word = slot_of(self + i).word;
  return word >= start && word + 4 <= end;
}

// The half `bits` + val as PyTorch's at::Half computes it: in float, then
// rounded to half (float's 24 bits >= 2 * 11 + 2: the same as __hadd).
__host__ __device__ inline unsigned short half_added(unsigned short bits, __half val) {
  return __half_as_ushort(__float2half_rn(__half2float(__ushort_as_half(bits)) + __half2float(val)));
}

// The word with val added to its high or low half; the other half's bytes
// written back as they were read.
__host__ __device__ inline unsigned with_half_added(unsigned word, bool high, __half val) {
  if (high) return (word & 0xffffu) | (unsigned(half_added(static_cast<unsigned short>(word >> 16), val)) << 16);
  return (word & 0xffff0000u) | half_added(static_cast<unsigned short>(word & 0xffffu), val);
}

}  // namespace half_word
