// The edge kernel of one atomic's oracle (registry/device_edges.hpp), instantiated
// once per registered atomic (harness/catalogue/register.cuh).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "harness/prim/bits.cuh"
#include "harness/registry/device_edges.hpp"
#include "harness/registry/value_kind.hpp"
#include "harness/support/cuda_try.cuh"

namespace atomstress {

template <class I>
__global__ void oracle_edges_kernel(DeviceEdgeArgs g) {
  using T = typename I::T;
  constexpr VK kind = vk_of<T>();
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < g.n; i += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t o = g.old[i];
    const T ov = prim::from_bits<T>(o), av = prim::from_bits<T>(g.a[i]), bv = prim::from_bits<T>(g.b[i]);
    uint64_t next;
    if constexpr (requires { I::phi_shared(T{}, T{}, T{}); })
      next = prim::to_bits<T>(g.shared ? I::phi_shared(ov, av, bv) : I::phi(ov, av, bv));
    else
      next = prim::to_bits<T>(I::phi(ov, av, bv));
    g.from[i] = g.nan_states_equal ? canonical_nan_bits(kind, o) : o;
    g.to[i] = g.nan_states_equal ? canonical_nan_bits(kind, next) : next;
  }
}

template <class I>
bool device_edges(const DeviceEdgeArgs& args, std::string& error) {
  if (args.n == 0) return true;
  const uint64_t blocks = std::min<uint64_t>((args.n + 255) / 256, 65535);
  oracle_edges_kernel<I><<<unsigned(blocks), 256>>>(args);
  AS_CUDA_TRY(cudaGetLastError());
  return true;
}

}  // namespace atomstress
