// A privatised histogram: each block counts into shared-memory bins, then
// adds them to the global bins.  The buggy twin bins a key by scaling with
// the top key instead of the bin count (bin = key * nbins / (nbins - 1)):
// the top key lands one past the last bin, in shared memory sized "with
// room for the top edge", and the flush's atomic writes one past the end of
// the global bins (CCCL #10976): a bounds failure.
#include <atomstress/kernel.cuh>

#include <algorithm>

namespace {

template <bool kScaledBins>
__global__ void shared_hist(const unsigned* keys, size_t n, unsigned* bins, unsigned nbins) {
  extern __shared__ unsigned s[];  // nbins + 1 words
  for (unsigned b = threadIdx.x; b <= nbins; b += blockDim.x) s[b] = 0;
  __syncthreads();
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const unsigned k = keys[i];
    const unsigned bin = kScaledBins ? (nbins > 1 ? unsigned(uint64_t(k) * nbins / (nbins - 1)) : 0u) : k;
    atomicAdd(&s[bin], 1u);
  }
  __syncthreads();
  const unsigned flushed = kScaledBins ? nbins + 1 : nbins;
  for (unsigned b = threadIdx.x; b < flushed; b += blockDim.x)
    if (s[b] != 0) atomicAdd(&bins[b], s[b]);
}

template <bool kScaledBins>
void property(atomstress::KernelCase& c) {
  const size_t n = c.size("n");
  // Privatised bins fit shared memory: at most 8192 (32 KiB).
  const unsigned nbins = unsigned(std::min<size_t>(c.range("bins"), 8192));
  auto keys = c.keys<unsigned>("keys", n, nbins);
  auto bins = c.output<unsigned>("bins", nbins, 0u);
  // Its nbins + 1 words of shared memory, and the case's generated extra
  // (none, a little, a few blocks per SM, the most a block may have).
  const uint32_t shared = c.shared_bytes("smem", (nbins + 1) * 4u, shared_hist<kScaledBins>);
  c.launch(atomstress::Geometry{c.grid(), c.block(), shared}, shared_hist<kScaledBins>, keys, n, bins, nbins);
  c.expect_counts(bins, keys);
}

}  // namespace

ATOMSTRESS_KERNEL("kernels.shared_hist", property<false>)
ATOMSTRESS_KERNEL_BUGGY("kernels.shared_hist.past_end",
                        "bins a key by the top key, not the bin count: the top key's atomic lands one past the end",
                        property<true>)
