// Two deterministic kernel bugs that a one-thread replay cannot tell from a
// race: both pass alone (one block of one thread) and fail the same way every
// run at a failing geometry.  atomstress reruns the failing case across block
// sizes and at its own geometry and says what it saw (pipeline/geometry_reruns.hpp).
//
//   kernels.block_tree_sum             a block's tree reduction in shared memory,
//                                      one atomicAdd per block (CUDA samples'
//                                      reduce shape), for any block size
//   kernels.block_tree_sum.pow2_only   halves blockDim.x each step: with a block
//                                      that is not a power of two it drops a
//                                      partial (block 3 adds 2 of 3)
//   kernels.packed_hist                a block's byte-wide bins packed four to a
//                                      word in shared memory, flushed to 32-bit
//                                      global bins: at most 255 keys per bin and
//                                      block, so it counts in 32-bit words
//                                      when a block has more than 255 keys
//   kernels.packed_hist.carries        always packs: the 256th equal key of a
//                                      block carries into the next bin
#include <atomstress/kernel.cuh>

#include <algorithm>
#include <cstdint>

namespace {

__host__ __device__ unsigned pow2_at_least(unsigned n) {
  unsigned p = 1;
  while (p < n) p <<= 1;
  return p;
}

template <bool kAnyBlock>
__global__ void block_tree_sum(const unsigned* in, size_t n, unsigned long long* total) {
  extern __shared__ unsigned long long partial[];
  unsigned long long mine = 0;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) mine += in[i];
  partial[threadIdx.x] = mine;
  __syncthreads();
  const unsigned top = kAnyBlock ? pow2_at_least(blockDim.x) : blockDim.x;
  for (unsigned half = top / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half && (!kAnyBlock || threadIdx.x + half < blockDim.x))
      partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, partial[0]);
}

template <bool kAnyBlock>
void tree_sum_property(atomstress::KernelCase& c) {
  const size_t n = c.size("n");
  auto in = c.values<unsigned>("in", n);
  auto total = c.output<unsigned long long>("total", 1, 0ull);
  const uint32_t shared = c.shared_bytes("smem", c.block() * 8u, block_tree_sum<kAnyBlock>);
  c.launch(atomstress::Geometry{c.grid(), c.block(), shared}, block_tree_sum<kAnyBlock>, in, n, total);
  unsigned long long want = 0;
  for (unsigned v : c.read(in)) want += v;
  c.expect_equal(total, std::vector<unsigned long long>{want});
}

// Byte-wide bins, four to a shared word; a bin's count in byte (bin % 4).
template <bool kAlwaysPacked>
__global__ void packed_hist(const unsigned* keys, size_t n, unsigned* bins, unsigned nbins, bool packed) {
  extern __shared__ unsigned words[];  // (nbins + 3) / 4 packed, or nbins wide
  const bool pack = kAlwaysPacked || packed;
  const unsigned nwords = pack ? (nbins + 3) / 4 : nbins;
  for (unsigned w = threadIdx.x; w < nwords; w += blockDim.x) words[w] = 0;
  __syncthreads();
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const unsigned k = keys[i];
    if (pack) atomicAdd(&words[k / 4], 1u << (8 * (k % 4)));
    else atomicAdd(&words[k], 1u);
  }
  __syncthreads();
  for (unsigned b = threadIdx.x; b < nbins; b += blockDim.x) {
    const unsigned count = pack ? (words[b / 4] >> (8 * (b % 4))) & 0xffu : words[b];
    if (count != 0) atomicAdd(&bins[b], count);
  }
}

template <bool kAlwaysPacked>
void packed_hist_property(atomstress::KernelCase& c) {
  const size_t n = c.size("n");
  const unsigned nbins = unsigned(std::min<size_t>(c.range("bins"), 4096));
  auto keys = c.keys<unsigned>("keys", n, nbins);
  auto bins = c.output<unsigned>("bins", nbins, 0u);
  // A block's keys: at most what its threads' grid-stride loop visits.
  const size_t threads = size_t(c.grid()) * c.block();
  const size_t per_block = ((n + threads - 1) / std::max<size_t>(threads, 1)) * c.block();
  const bool packed = per_block <= 255;  // no byte can overflow
  const unsigned words = (kAlwaysPacked || packed) ? (nbins + 3) / 4 : nbins;
  const uint32_t shared = c.shared_bytes("smem", std::max(words, 1u) * 4u, packed_hist<kAlwaysPacked>);
  c.launch(atomstress::Geometry{c.grid(), c.block(), shared}, packed_hist<kAlwaysPacked>, keys, n, bins, nbins, packed);
  c.expect_counts(bins, keys);
}

}  // namespace

ATOMSTRESS_KERNEL("kernels.block_tree_sum", tree_sum_property<true>)
ATOMSTRESS_KERNEL_BUGGY("kernels.block_tree_sum.pow2_only",
                        "halves blockDim.x each step: a block that is not a power of two drops partials",
                        tree_sum_property<false>)
ATOMSTRESS_KERNEL("kernels.packed_hist", packed_hist_property<false>)
ATOMSTRESS_KERNEL_BUGGY("kernels.packed_hist.carries",
                        "packs four byte-wide bins to a word whatever a block's key count: the 256th equal key of a "
                        "block carries into the next bin",
                        packed_hist_property<true>)
