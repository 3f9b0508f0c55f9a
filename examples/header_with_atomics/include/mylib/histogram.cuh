// The library's histogram kernel, as it ships.
#pragma once

#include <cstddef>

namespace mylib {

__global__ void histogram(const unsigned* keys, size_t n, unsigned* bins) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    atomicAdd(&bins[keys[i]], 1u);
}

}  // namespace mylib
