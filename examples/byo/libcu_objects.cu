// A cuda::atomic object reached through the pointer: atomstress cannot
// intercept it (only the atomic_ref class can be renamed safely), so the
// suite's build finds it and `list -v` and every verdict say so.
#include <cuda/atomic>
#include <atomstress/atomstress.cuh>

__device__ int objectAdd(int* p, int v) {
  return reinterpret_cast<cuda::atomic<int, cuda::thread_scope_device>*>(p)->fetch_add(v);
}
ATOMSTRESS_ATOMIC("mylib.object_add.i32", objectAdd, "native.add.i32");
