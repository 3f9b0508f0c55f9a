// Float scatter-adds written with the GPU's native float atomicAdd, the way
// libraries write them:
//   kernels.float_index_add    PyTorch's index_add_ shape: self[index[i]] += src[i]
//   kernels.complex_atomic_add Ginkgo's atomic_add on thrust::complex<float>:
//                              one float atomicAdd on the real part, one on the
//                              imaginary part (each part is its own sum)
// Both are correct.  Native float atomicAdd on global memory flushes a
// subnormal operand or result to zero (measured: docs/design.md), so an
// element whose contributors include subnormals may differ from the IEEE sum
// by them; expect_scatter_sum's default rule (FloatAdds::AsTheGpu) accepts
// exactly that.  Their strict twins ask for IEEE sums with subnormals kept
// (FloatAdds::StrictIeee), which this code does not promise: with subnormal
// values among the contributors they fail, and the rule says why.
#include <atomstress/kernel.cuh>
#include <thrust/complex.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

__global__ void index_add(float* self, const int64_t* index, const float* src, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    atomicAdd(self + index[i], src[i]);
}

// What the values are: as drawn (specials among them), or every src value
// a subnormal and self zero, so that each touched element's IEEE sum is a
// nonzero exact sum of subnormals and the GPU's is 0.
enum class Values { Drawn, Subnormal };

// Every src value made a subnormal of its drawn sign (its low 23 bits, never 0).
std::vector<float> as_subnormals(const std::vector<float>& drawn) {
  std::vector<float> out(drawn.size());
  for (size_t i = 0; i < drawn.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &drawn[i], 4);
    bits = (bits & 0x807fffffu) | 1u;
    std::memcpy(&out[i], &bits, 4);
  }
  return out;
}

template <atomstress::FloatAdds kAdds, Values kValues>
void index_add_property(atomstress::KernelCase& c) {
  const size_t n = c.size("n");
  const size_t numel = c.range("numel");
  auto index = c.keys<int64_t>("index", n, numel);
  auto drawn = c.values<float>("src", n);
  auto src = kValues == Values::Drawn ? drawn : c.input("subnormal_src", as_subnormals(c.read(drawn)));
  auto self = kValues == Values::Drawn ? c.values<float>("self", numel) : c.output("self", numel, 0.0f);
  c.launch(index_add, self, index, src, n);
  c.expect_scatter_sum(self, index, src, kAdds);
}

// Ginkgo's shape: a complex value's two parts added by two float atomics.
__device__ void atomic_add(thrust::complex<float>* address, thrust::complex<float> val) {
  float* parts = reinterpret_cast<float*>(address);
  atomicAdd(parts, val.real());
  atomicAdd(parts + 1, val.imag());
}

__global__ void complex_scatter_add(thrust::complex<float>* self, const int64_t* index,
                                    const thrust::complex<float>* src, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    atomic_add(self + index[i], src[i]);
}

template <Values kValues>
void complex_property(atomstress::KernelCase& c) {
  const size_t n = c.size("n");
  const size_t numel = c.range("numel");
  auto index = c.keys<int64_t>("index", n, numel);
  c.keep_aligned();  // thrust::complex<float> is 8-byte aligned: the parts' buffers start on that
  auto drawn = c.values<float>("src_parts", 2 * n);  // (re, im) of each value
  auto src = kValues == Values::Drawn ? drawn : c.input("subnormal_parts", as_subnormals(c.read(drawn)));
  auto self = kValues == Values::Drawn ? c.values<float>("self_parts", 2 * numel) : c.output("self_parts", 2 * numel, 0.0f);
  // Each part is a scatter-add of its own: value i's real part goes to part
  // 2 * index[i], its imaginary part to 2 * index[i] + 1.
  const std::vector<int64_t> keys = c.read(index);
  std::vector<int64_t> part_keys(2 * n);
  for (size_t i = 0; i < n; ++i) part_keys[2 * i] = 2 * keys[i], part_keys[2 * i + 1] = 2 * keys[i] + 1;
  auto part_index = c.input("part_index", part_keys);
  c.launch(complex_scatter_add, reinterpret_cast<thrust::complex<float>*>(self.data()), index,
           reinterpret_cast<const thrust::complex<float>*>(src.data()), n);
  c.expect_scatter_sum(self, part_index, src);
}

constexpr atomstress::KernelTraits kStrict{
    .bug = "asks for IEEE sums with subnormals kept (FloatAdds::StrictIeee) of code that adds with native float "
           "atomicAdd, which flushes subnormal operands and results: every element that subnormals reach is 0"};

}  // namespace

using atomstress::FloatAdds;
ATOMSTRESS_KERNEL("kernels.float_index_add", (index_add_property<FloatAdds::AsTheGpu, Values::Drawn>))
ATOMSTRESS_KERNEL("kernels.float_index_add.subnormals", (index_add_property<FloatAdds::AsTheGpu, Values::Subnormal>))
ATOMSTRESS_KERNEL_WITH("kernels.float_index_add.strict_ieee", kStrict,
                       (index_add_property<FloatAdds::StrictIeee, Values::Subnormal>))
ATOMSTRESS_KERNEL("kernels.complex_atomic_add", complex_property<Values::Drawn>)
ATOMSTRESS_KERNEL("kernels.complex_atomic_add.subnormals", complex_property<Values::Subnormal>)
