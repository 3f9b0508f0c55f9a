// Kernels that must each cost one verdict, and no more, under the
// supervised worker: one that never ends (it waits for a flag nobody sets),
// one that faults (a store through a wild pointer), and a correct kernel
// whose property's host code never ends after it (its oracle loops): an
// ERROR of the property naming the entry and the phase, not the kernel's
// HANG (the trial's deadline counts the host code in: docs/kernels.md).
#include <atomstress/kernel.cuh>

namespace {

__global__ void wait_forever(const unsigned* flag) {
  const volatile unsigned* f = flag;
  while (*f != 1u) {  // unbounded on purpose: atomstress's host deadline and the worker's supervisor end it
  }
}

__global__ void store_wild(unsigned* p) {
  if (threadIdx.x == 0 && blockIdx.x == 0) p[size_t(1) << 40] = 1u;  // far outside any allocation
}

__global__ void set_flag(unsigned* flag) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *flag = 1u;
}

}  // namespace

ATOMSTRESS_KERNEL_BUGGY("kernels.never_ends", "waits for a flag that is never set", [](atomstress::KernelCase& c) {
  auto flag = c.output<unsigned>("flag", 1, 0u);
  c.launch(atomstress::Geometry{1, 1, 0}, wait_forever, flag);
})
ATOMSTRESS_KERNEL_BUGGY("kernels.faults", "stores through a wild pointer", [](atomstress::KernelCase& c) {
  auto p = c.output<unsigned>("p", 1, 0u);
  c.launch(atomstress::Geometry{1, 32, 0}, store_wild, p);
})
ATOMSTRESS_KERNEL_BUGGY("kernels.oracle_never_ends", "its property's host code never ends after the kernel has finished",
                        [](atomstress::KernelCase& c) {
                          auto flag = c.output<unsigned>("flag", 1, 0u);
                          c.launch(atomstress::Geometry{1, 1, 0}, set_flag, flag);
                          volatile bool looping = true;
                          while (looping) {  // unbounded on purpose: the trial's deadline ends it
                          }
                          c.expect_equal(flag, std::vector<unsigned>{1u});
                        })
