// A user's atomic registered as examples/byo registers one: its kernels
// carry the call scope's static shared memory (8 KiB, prim/call_scope.cuh),
// beside which a pack's blocks take their dynamic shared memory
// (tests/test_gpu_pack_judging.cpp).
#include <atomstress/atomstress.cuh>

__device__ unsigned user_cas_add(unsigned* address, unsigned val) {
  unsigned old = *address, assumed;
  do {
    assumed = old;
    old = atomicCAS(address, assumed, assumed + val);
  } while (assumed != old);
  return old;
}
ATOMSTRESS_ATOMIC("test.user_cas_add.u32", user_cas_add, "native.add.u32");
