// An atomicAdd wrapper with a memory-order parameter: called as a CAS, the
// compare value would go into `val` and the operand into `order`; refused.
#include <atomstress/atomstress.cuh>

__device__ float addWithOrder(float* p, float val, int order) { return atomicAdd(p, val); }
ATOMSTRESS_ATOMIC("mylib.add_order.f32", addWithOrder, "native.add.f32");
