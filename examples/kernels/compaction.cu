// Stream compaction (keep the odd elements): each block loads its elements,
// reserves a range of the output with one atomic and writes its keepers
// there.  The correct one writes to a separate output; the buggy twin
// compacts in place, so a block that reserved its range early can overwrite
// elements another block has not loaded yet (the hazard of CCCL #1782): an
// element is lost and another duplicated, when blocks run out of order.
#include <atomstress/kernel.cuh>

namespace {

template <bool kInPlace>
__global__ void compact_odd(unsigned* data, size_t n, unsigned* out, unsigned* count) {
  __shared__ unsigned block_count, block_base;
  if (threadIdx.x == 0) block_count = 0;
  __syncthreads();
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const unsigned v = i < n ? data[i] : 0u;
  const bool keep = i < n && (v & 1u);
  const unsigned rank = keep ? atomicAdd(&block_count, 1u) : 0u;
  __syncthreads();
  if (threadIdx.x == 0) block_base = atomicAdd(count, block_count);
  __syncthreads();
  if (keep) (kInPlace ? data : out)[block_base + rank] = v;
}

template <bool kInPlace>
void property(atomstress::KernelCase& c) {
  const size_t n = c.size("n");
  auto data = c.values<unsigned>("data", n);
  auto out = c.output<unsigned>("out", n, 0u);
  auto count = c.output<unsigned>("count", 1, 0u);
  c.launch(c.cover(n), compact_odd<kInPlace>, data, n, out, count);
  std::vector<unsigned> kept;
  for (unsigned v : c.initial(data))
    if (v & 1u) kept.push_back(v);
  const unsigned got = c.read(count)[0];
  c.expect(got == kept.size(), "count holds " + std::to_string(got) + ", but " + std::to_string(kept.size()) +
                                   " elements are odd");
  std::vector<unsigned> result = c.read(kInPlace ? data : out);
  result.resize(std::min<size_t>(result.size(), kept.size()));
  c.expect_permutation(kInPlace ? "data[0..count)" : "out[0..count)", result, kept);
}

}  // namespace

ATOMSTRESS_KERNEL("kernels.compact", property<false>)
ATOMSTRESS_KERNEL_BUGGY("kernels.compact.in_place",
                        "compacts in place: a block's writes may overtake another block's loads", property<true>)
