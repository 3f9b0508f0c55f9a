// A float max as libraries write it: a CAS loop on the bit pattern.
#include <atomstress/atomstress.cuh>

__device__ float lib_atomic_max(float* address, float val) {
  int* word = reinterpret_cast<int*>(address);
  int old = *word, assumed;
  do {
    assumed = old;
    old = atomicCAS(word, assumed, __float_as_int(fmaxf(val, __int_as_float(assumed))));
  } while (assumed != old);
  return __int_as_float(old);
}
ATOMSTRESS_ATOMIC("lib.max.f32", lib_atomic_max, "cas.max.f32");
