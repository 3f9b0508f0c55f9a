// A library's header with atomics, as the library ships it: nothing in it is
// written for atomstress (README.md, "I have a header with atomics").
#pragma once

#include <cuda_runtime.h>

namespace mylib {

// Fetch-max on floats: a compare-and-swap loop on the bit pattern, with
// fmaxf's rules (a NaN operand loses).
__device__ inline float atomic_max(float* address, float value) {
  unsigned* word = reinterpret_cast<unsigned*>(address);
  unsigned old = *word, assumed;
  do {
    assumed = old;
    old = atomicCAS(word, assumed, __float_as_uint(fmaxf(__uint_as_float(assumed), value)));
  } while (old != assumed);
  return __uint_as_float(old);
}

// Fetch-min with the library's own NaN rule: a NaN operand is stored, and a
// NaN once stored stays (so a NaN anywhere in a reduction shows at the end);
// a tie keeps the old value (-0 and +0 compare equal).
__device__ inline float atomic_min_nan_sticky(float* address, float value) {
  unsigned* word = reinterpret_cast<unsigned*>(address);
  unsigned old = *word, assumed;
  do {
    assumed = old;
    const float current = __uint_as_float(assumed);
    if (current != current) break;  // a NaN stays
    const float next = value != value || value < current ? value : current;
    if (__float_as_uint(next) == assumed) break;
    old = atomicCAS(word, assumed, __float_as_uint(next));
  } while (old != assumed);
  return __uint_as_float(old);
}

// A sum nobody reads back (AMReX's AddNoRet shape).
__device__ inline void add_noret(double* sum, double value) { atomicAdd(sum, value); }

}  // namespace mylib
