// An atomic in inline PTX: it cannot run on the host, so atomstress_add_suite's
// probe builds this unit for the GPU only, and the CPU backend reports SKIP.
#include <atomstress/atomstress.cuh>

__device__ unsigned int ptxAdd(unsigned int* p, unsigned int v) {
  unsigned int old;
  asm volatile("atom.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
ATOMSTRESS_ATOMIC("mylib.ptx_add.u32", ptxAdd, "native.add.u32");
