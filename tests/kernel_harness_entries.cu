// Kernel entries that check atomstress's own kernel path on the GPU (CTest
// kernel_harness_gpu.*), not a user's kernel.
//
// inputs_in_place: every input and every output's initial value has landed
// before the user's kernel starts.  The buffers are 64 MiB each and the
// kernel reads them from the end, where a copy lands last: a transfer left in
// flight on another stream (as a pageable cudaMemcpy or a cudaMemset on the
// default stream is, beside a kernel on a non-blocking stream) shows as stale
// elements.  That race once failed a correct hash table under GPU load.
//
// sixteen_bit: 16-bit buffers (__half, __nv_bfloat16, int16_t, uint16_t) at
// the drawn offsets (0, 1 or 3 elements: odd ones start mid-word) reach the
// kernel bit for bit (a copy kernel, checked by expect_equal), and the sums'
// bound accepts what the GPU's native 16-bit float atomics give in the order
// its threads arrive (expect_sum).
#include <atomstress/kernel.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

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

template <class T>
__global__ void copy_elements(const T* in, T* out, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

template <class T>
__global__ void add_all(const T* v, size_t n, T* total) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    atomicAdd(total, v[i]);  // native on sm_70 (__half) and sm_80 (__nv_bfloat16)
}

template <class T>
void copied_bit_for_bit(atomstress::KernelCase& c, size_t n, const char* in_name, const char* out_name) {
  auto in = c.values<T>(in_name, n);
  auto out = c.output<T>(out_name, n, T{});
  c.launch(copy_elements<T>, in, out, n);
  c.expect_equal(out, c.initial(in));
}

template <class T>
void summed_within_the_bound(atomstress::KernelCase& c, size_t n, const char* values_name, const char* total_name) {
  auto v = c.values<T>(values_name, n);
  auto total = c.output<T>(total_name, 1, T{});
  c.launch(add_all<T>, v, n, total);
  c.expect_sum(total, v);
}

void sixteen_bit(atomstress::KernelCase& c) {
  const size_t n = c.size("n");
  copied_bit_for_bit<__half>(c, n, "f16", "f16 copy");
  copied_bit_for_bit<__nv_bfloat16>(c, n, "bf16", "bf16 copy");
  copied_bit_for_bit<int16_t>(c, n, "i16", "i16 copy");
  copied_bit_for_bit<uint16_t>(c, n, "u16", "u16 copy");
  summed_within_the_bound<__half>(c, n, "f16 terms", "f16 total");
  summed_within_the_bound<__nv_bfloat16>(c, n, "bf16 terms", "bf16 total");
}

}  // namespace

ATOMSTRESS_KERNEL("selfcheck.kernel.inputs_in_place", inputs_in_place)
ATOMSTRESS_KERNEL("selfcheck.kernel.sixteen_bit", sixteen_bit)
