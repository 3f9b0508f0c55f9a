// A library header with an atomic of its own, in the style of CuPy's
// atomics.cuh: a float max as a CAS loop on the int view.
#pragma once
#include <cuda_runtime.h>

__device__ float lib_atomic_max(float* address, float val) {
  int* word = reinterpret_cast<int*>(address);
  int old = *word, assumed;
  do {
    assumed = old;
    old = atomicCAS(word, assumed, __float_as_int(fmaxf(val, __int_as_float(assumed))));
  } while (assumed != old);
  return __int_as_float(old);
}
