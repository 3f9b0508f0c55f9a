// An atomicAdd wrapper with a memory-order parameter: atomstress used to call
// it as a CAS (the compare value went into `val`, the operand into `order`).
#include <atomstress/atomstress.cuh>

__device__ float addWithOrder(float* p, float val, int order) { return atomicAdd(p, val); }
ATOMSTRESS_ATOMIC("mylib.add_order.f32", addWithOrder, "native.add.f32");
