// A lock held by a whole block: thread 0 takes one global spin lock, the
// block updates a shared array inside, and thread 0 releases.  The correct
// one waits for the block's stores (__syncthreads) and fences before the
// release; the buggy twin releases as soon as thread 0's own stores are done
// (the Triton layer-norm kernel), so the next block reads the array while
// this one still writes it: increments are lost.
#include <atomstress/kernel.cuh>

#include <algorithm>

namespace {

constexpr unsigned kSpinBound = 1u << 26;  // a lock never released: give up and say so

template <bool kWaitForBlock>
__global__ void locked_increment(unsigned* lock, unsigned* data, size_t m, unsigned* gave_up) {
  __shared__ bool acquired;
  if (threadIdx.x == 0) {
    unsigned spins = 0;
    while (atomicCAS(lock, 0u, 1u) != 0u && ++spins < kSpinBound) {
    }
    acquired = spins < kSpinBound;
    if (!acquired) atomicAdd(gave_up, 1u);
    __threadfence();  // acquire
  }
  __syncthreads();
  if (!acquired) return;
  volatile unsigned* d = data;
  for (size_t j = threadIdx.x; j < m; j += blockDim.x) d[j] = d[j] + 1;
  if (kWaitForBlock) __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();  // release
    atomicExch(lock, 0u);
  }
}

template <bool kWaitForBlock>
void property(atomstress::KernelCase& c) {
  // Every block walks the whole array inside the lock: at most 4096
  // elements, so that a large grid's serialised sections stay short.
  const size_t m = std::min<size_t>(c.size("m"), 4096);
  auto lock = c.output<unsigned>("lock", 1, 0u);
  auto data = c.output<unsigned>("data", m, 0u);
  auto gave_up = c.output<unsigned>("gave_up", 1, 0u);
  c.launch(locked_increment<kWaitForBlock>, lock, data, m, gave_up);
  c.expect_equal(gave_up, std::vector<unsigned>{0u});
  c.expect_equal(data, std::vector<unsigned>(m, c.grid()));  // every block added one to every element
  c.expect_equal(lock, std::vector<unsigned>{0u});
}

}  // namespace

ATOMSTRESS_KERNEL("kernels.block_lock", property<true>)
ATOMSTRESS_KERNEL_BUGGY("kernels.block_lock.early_release",
                        "the lock is released before the block's stores are done", property<false>)
