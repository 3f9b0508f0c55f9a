// Three functions of the wrong shape in one unit (the compiler reports all):
// an atomicAdd wrapper with a memory-order parameter (called as a CAS, the
// compare value would go into `val` and the operand into `order`), a signed
// add registered against an unsigned spec (its address is int*), and a void
// float max (the memory it leaves depends on the order of its updates: a NaN
// or a signed zero, so without returned values nothing checks it).
#include <atomstress/atomstress.cuh>

__device__ float addWithOrder(float* p, float val, int order) { return atomicAdd(p, val); }
ATOMSTRESS_ATOMIC("mylib.add_order.f32", addWithOrder, "native.add.f32");

__device__ int addSigned(int* p, int v) { return atomicAdd(p, v); }
ATOMSTRESS_ATOMIC("mylib.add_signed.u32", addSigned, "native.add.u32");

__device__ void maxNoRet(float* p, float v) { atomicExch(p, fmaxf(*p, v)); }
ATOMSTRESS_ATOMIC("mylib.max_noret.f32", maxNoRet, "cas.max.f32");
