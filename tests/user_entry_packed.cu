// Users' atomics and a lock, registered as examples/byo registers them
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

// A lock whose release forgets to release (tests/test_gpu_user_lock.cpp):
// the first holder keeps it, so every other waiter sees its word stand still
// and its lock pass no more.
__device__ void user_lock_acquire(int* lock) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
}
__device__ void user_lock_keep(int*) {}
ATOMSTRESS_LOCK("test.user_lock_never_released", user_lock_acquire, user_lock_keep);
