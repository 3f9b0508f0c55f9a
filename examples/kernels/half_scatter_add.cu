// A scatter-add of __half values into a __half tensor (index_add_ /
// scatter_add_: self[index[i]] += src[i], keys with contention), written the
// way PyTorch did for GPUs without a 16-bit atomic: a CAS loop on the
// element's enclosing aligned 32-bit word (read the word, add into the right
// half, CAS it back; half_word.cuh).
//
// The correct one never touches memory outside the tensor: where the
// enclosing word reaches past the tensor's start (self starts mid-word) or
// end (it ends mid-word), that element takes a 16-bit CAS loop on its own
// half instead (atomicCAS on unsigned short, sm_70+).  Such an edge
// element's word holds no other element of the tensor, so 16- and 32-bit
// atomics never share tensor bytes.
//
// The buggy twin always CASes the enclosing word (PyTorch #175984): an
// element at the tensor's end, or at its start when the tensor starts
// mid-word (KernelCase places buffers 0, 1 or 3 elements past an aligned
// address), reads and writes back 2 bytes outside the tensor.  It writes
// them back unchanged, so the guard zones' canaries stay intact: only
// `--sanitize memcheck` sees it, and only at the end (the exact allocation
// ends with the tensor; the bytes before a mid-word start are the alignment
// offset's, inside the allocation).  Its trait says so (needs_sanitizer).
// In a real program those 2 bytes belong to a neighbour: a write-back of a
// stale copy loses the neighbour's concurrent update, and past the last
// page of an allocation the access faults.
#include <atomstress/kernel.cuh>

#include <cstdint>

#include "half_word.cuh"

namespace {

__device__ void add_in_word(__half* address, __half val) {
  const half_word::Slot s = half_word::slot_of(address);
  unsigned* word = reinterpret_cast<unsigned*>(s.word);
  unsigned old = *word, assumed;
  do {
    assumed = old;
    old = atomicCAS(word, assumed, half_word::with_half_added(assumed, s.high, val));
  } while (assumed != old);
}

__device__ void add_in_half(__half* address, __half val) {
  unsigned short* half = reinterpret_cast<unsigned short*>(address);
  unsigned short old = *half, assumed;
  do {
    assumed = old;
    old = atomicCAS(half, assumed, half_word::half_added(assumed, val));
  } while (assumed != old);
}

template <bool kWordAlways>
__global__ void scatter_add_half(__half* self, size_t numel, const int64_t* index, const __half* src, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const size_t j = size_t(index[i]);
    if (kWordAlways || half_word::word_inside(self, numel, j)) add_in_word(self + j, src[i]);
    else add_in_half(self + j, src[i]);
  }
}

template <bool kWordAlways>
void property(atomstress::KernelCase& c) {
  const size_t n = c.size("n");
  const size_t numel = c.range("numel");  // the spec's k: shrinks to a one-element tensor
  auto index = c.keys<int64_t>("index", n, numel);
  auto src = c.values<__half>("src", n);
  auto self = c.values<__half>("self", numel);  // the tensor's values before the add
  c.launch(scatter_add_half<kWordAlways>, self, numel, index, src, n);
  // Each element: its initial value plus its contributors' sum, within the
  // bound of that many half-precision roundings (exact when no partial sum rounds).
  c.expect_scatter_sum(self, index, src);
}

}  // namespace

ATOMSTRESS_KERNEL("kernels.half_scatter_add", property<false>)
ATOMSTRESS_KERNEL_WITH("kernels.half_scatter_add.past_end",
                       (atomstress::KernelTraits{
                           .bug = "CASes the enclosing 32-bit word of every element: at the tensor's end (or a "
                                  "mid-word start) it reads and writes back 2 bytes outside the tensor, unchanged",
                           .needs_sanitizer = "memcheck"}),
                       property<true>)
