#include "harness/backend/cuda/array_fills.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "harness/support/cuda_try.cuh"

namespace atomstress::cuda {
namespace {

struct Fills {
  ArrayFill at[kMostArrayFills];
  unsigned count;
};

// Each array in 16-byte words where both ends are aligned (every DevBuf is),
// its bytes one by one otherwise and in its tail.
__device__ void fill_one(const ArrayFill& f, size_t first, size_t stride) {
  auto* dst = static_cast<unsigned char*>(f.dst);
  const auto* src = static_cast<const unsigned char*>(f.src);
  size_t words = 0;
  if (((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) & 15u) == 0) {
    words = f.bytes / 16;
    const unsigned v = 0x01010101u * f.value;
    const uint4 filled = make_uint4(v, v, v, v);
    for (size_t i = first; i < words; i += stride)
      reinterpret_cast<uint4*>(dst)[i] = src ? reinterpret_cast<const uint4*>(src)[i] : filled;
  }
  for (size_t i = words * 16 + first; i < f.bytes; i += stride) dst[i] = src ? src[i] : f.value;
}

__global__ void fill_arrays(Fills fills) {
  const size_t first = size_t(blockIdx.x) * blockDim.x + threadIdx.x, stride = size_t(gridDim.x) * blockDim.x;
  for (unsigned k = 0; k < fills.count; ++k) fill_one(fills.at[k], first, stride);
}

}  // namespace

bool queue_array_fills(std::span<const ArrayFill> fills, std::string& error) {
  if (fills.size() > kMostArrayFills) {
    error = "queue_array_fills: more than " + std::to_string(kMostArrayFills) + " arrays in one call";
    return false;
  }
  Fills f{};
  size_t most = 0;
  for (const ArrayFill& a : fills)
    if (a.bytes != 0) {
      f.at[f.count++] = a;
      most = std::max(most, a.bytes);
    }
  if (f.count == 0) return true;
  constexpr unsigned kThreads = 256;
  const size_t blocks = std::clamp<size_t>((most / 16 + kThreads - 1) / kThreads, 1, 1024);
  fill_arrays<<<unsigned(blocks), kThreads, 0, cudaStreamPerThread>>>(f);
  AS_CUDA_TRY(cudaGetLastError());
  return true;
}

}  // namespace atomstress::cuda
