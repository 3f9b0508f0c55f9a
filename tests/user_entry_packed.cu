// Users' atomics registered as examples/byo registers one
// (tests/test_gpu_pack_judging.cpp): a correct one, whose kernels carry the
// call scope's static shared memory (8 KiB, prim/call_scope.cuh), beside
// which a pack's blocks take their dynamic shared memory; and one whose loop
// never ends, which the stall watch must stop in a pack.
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

// A compare-and-swap loop that never refreshes its expected value: once its
// word is not 0 it never ends.
__device__ unsigned user_stuck_add(unsigned* address, unsigned val) {
  unsigned expected = 0;
  while (atomicCAS(address, expected, expected + val) != expected) expected = 0;
  return expected;
}
ATOMSTRESS_ATOMIC("test.user_stuck_add.u32", user_stuck_add, "native.add.u32");
