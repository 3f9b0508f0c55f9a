// Kernel entries that check atomstress's own kernel path on the GPU (CTest
// kernel_harness_gpu.*), not a user's kernel.
//
// inputs_in_place: every input and every output's initial value has landed
// before the user's kernel starts.  The buffers are 64 MiB each and the
// kernel reads them from the end, where a copy lands last: a transfer left in
// flight on another stream (as a pageable cudaMemcpy or a cudaMemset on the
// default stream is, beside a kernel on a non-blocking stream) shows as stale
// elements.  That race once failed a correct hash table under GPU load.
#include <atomstress/kernel.cuh>

#include <cstdint>
#include <vector>

namespace {

constexpr unsigned kInitial = 0x5a5a5a5au;
__host__ __device__ unsigned input_at(size_t i) { return unsigned(i) * 2654435761u + 1u; }

__global__ void read_from_the_end(const unsigned* in, size_t n, const unsigned* out, unsigned* stale) {
  unsigned mine = 0;
  for (size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x; j < n; j += size_t(gridDim.x) * blockDim.x) {
    const size_t i = n - 1 - j;
    mine += (in[i] != input_at(i)) + (out[i] != kInitial);
  }
  if (mine) atomicAdd(stale, mine);
}

void inputs_in_place(atomstress::KernelCase& c) {
  const size_t n = size_t(1) << 24;
  std::vector<unsigned> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = input_at(i);
  auto in = c.input("in", v);
  auto out = c.output<unsigned>("out", n, kInitial);
  auto stale = c.output<unsigned>("stale", 1, 0u);
  c.launch(read_from_the_end, in, n, out, stale);
  c.expect_equal(stale, std::vector<unsigned>{0u});
}

}  // namespace

ATOMSTRESS_KERNEL("selfcheck.kernel.inputs_in_place", inputs_in_place)
