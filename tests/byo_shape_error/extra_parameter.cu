// Two functions of the wrong shape in one unit (the compiler reports both):
// an atomicAdd wrapper with a memory-order parameter (called as a CAS, the
// compare value would go into `val` and the operand into `order`), and a
// signed add registered against an unsigned spec (its address is int*).
#include <atomstress/atomstress.cuh>

__device__ float addWithOrder(float* p, float val, int order) { return atomicAdd(p, val); }
ATOMSTRESS_ATOMIC("mylib.add_order.f32", addWithOrder, "native.add.f32");

__device__ int addSigned(int* p, int v) { return atomicAdd(p, v); }
ATOMSTRESS_ATOMIC("mylib.add_signed.u32", addSigned, "native.add.u32");
