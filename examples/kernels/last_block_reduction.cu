// A last-block reduction: each block sums its share into partials[block],
// takes a ticket with one atomic, and the block that draws the last ticket
// sums the partials.  The correct one fences before the ticket (release)
// and after it (acquire); the buggy twin has no acquire fence after the
// ticket (PyTorch #128455, NVIDIA/Fuser #2391, RAFT #3041), so the last
// block may read a partial before it lands: a weak-memory bug, shown at a rate.
#include <atomstress/kernel.cuh>

#include <numeric>

namespace {

template <bool kAcquire>
__global__ void last_block_sum(const unsigned* in, size_t n, unsigned* partials, unsigned* ticket, unsigned* out) {
  __shared__ unsigned block_sum;
  __shared__ bool last;
  if (threadIdx.x == 0) block_sum = 0;
  __syncthreads();
  unsigned mine = 0;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) mine += in[i];
  atomicAdd(&block_sum, mine);
  __syncthreads();
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_sum;
    __threadfence();  // release: the partial before the ticket
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    if (kAcquire) __threadfence();  // acquire: the other partials after the ticket
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    unsigned total = 0;
    const volatile unsigned* p = partials;
    for (unsigned b = 0; b < gridDim.x; ++b) total += p[b];
    *out = total;
  }
}

template <bool kAcquire>
void property(atomstress::KernelCase& c) {
  const size_t n = c.size("n");
  auto in = c.values<unsigned>("in", n);
  auto partials = c.output<unsigned>("partials", c.grid(), 0u);
  auto ticket = c.output<unsigned>("ticket", 1, 0u);
  auto out = c.output<unsigned>("out", 1, 0u);
  c.launch(last_block_sum<kAcquire>, in, n, partials, ticket, out);
  const std::vector<unsigned> v = c.initial(in);
  c.expect_equal(out, std::vector<unsigned>{std::accumulate(v.begin(), v.end(), 0u)});
}

}  // namespace

ATOMSTRESS_KERNEL("kernels.last_block_sum", property<true>)
ATOMSTRESS_KERNEL_WITH("kernels.last_block_sum.no_acquire",
                       (atomstress::KernelTraits{"no acquire fence after the atomic ticket: the last block may read "
                                                 "another block's partial before it lands", true}),
                       property<false>)
