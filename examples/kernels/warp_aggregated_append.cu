// A warp-aggregated append: the threads that keep an element reserve their
// slots with one atomic per warp.  The correct one takes the mask once and
// uses it for the count, the leader and the ranks; the buggy twin calls
// __activemask() again inside the leader's branch (picongpu #4825), where
// only the leader is active: the warp reserves one slot for all its keepers,
// and elements are silently lost or overwritten.
#include <atomstress/kernel.cuh>

namespace {

template <bool kOneMask>
__global__ void append_odd(const unsigned* in, size_t n, unsigned* out, unsigned* count) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n || (in[i] & 1u) == 0) return;
  const unsigned lane = threadIdx.x & 31u;
  const unsigned mask = __activemask();
  const int leader = __ffs(mask) - 1;
  unsigned base = 0;
  if (int(lane) == leader) base = atomicAdd(count, __popc(kOneMask ? mask : __activemask()));
  base = __shfl_sync(mask, base, leader);
  out[base + __popc(mask & ((1u << lane) - 1u))] = in[i];
}

template <bool kOneMask>
void property(atomstress::KernelCase& c) {
  const size_t n = c.size("n");
  auto in = c.values<unsigned>("in", n);
  auto out = c.output<unsigned>("out", n, 0u);
  auto count = c.output<unsigned>("count", 1, 0u);
  c.launch(c.cover(n), append_odd<kOneMask>, in, n, out, count);
  std::vector<unsigned> kept;
  for (unsigned v : c.initial(in))
    if (v & 1u) kept.push_back(v);
  const unsigned got = c.read(count)[0];
  c.expect(got == kept.size(), "count holds " + std::to_string(got) + ", but " + std::to_string(kept.size()) +
                                   " elements are odd");
  std::vector<unsigned> slots = c.read(out);
  slots.resize(std::min<size_t>(slots.size(), kept.size()));
  c.expect_permutation("out[0..count)", slots, kept);
}

}  // namespace

ATOMSTRESS_KERNEL("kernels.warp_append", property<true>)
ATOMSTRESS_KERNEL_BUGGY("kernels.warp_append.two_masks",
                        "two __activemask() calls assumed equal: the leader's second one sees only itself",
                        property<false>)
