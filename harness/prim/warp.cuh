// Warp intrinsics for the forms that use them (warp-aggregated append, warp
// reductions).  Those forms are cuda-only (`gpu_only`): the CPU backend never
// runs them, so the host mapping only has to compile; it stops the program
// if it is ever reached.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "harness/prim/config.cuh"

namespace prim::warp {

#if !defined(__CUDA_ARCH__)
[[noreturn]] inline void host_unreachable(const char* what) {
  std::fprintf(stderr, "atomstress: internal error: %s reached on the host (a cuda-only form ran on the cpu)\n", what);
  std::abort();
}
#endif

// The lanes of the warp that holds thread t of a block of `block` threads.
AS_HD AS_FI uint32_t lane_mask(uint32_t t, uint32_t block) {
  const uint32_t base = t & ~31u, width = block - base < 32u ? block - base : 32u;
  return width == 32 ? 0xffffffffu : (1u << width) - 1u;
}
AS_HD AS_FI uint32_t ballot(uint32_t mask, bool pred) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return __ballot_sync(mask, pred);), ((void)mask; (void)pred; host_unreachable("ballot");))
}
template <class T>
AS_HD AS_FI T shfl(uint32_t mask, T v, uint32_t lane) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return __shfl_sync(mask, v, lane);),
                    ((void)mask; (void)v; (void)lane; host_unreachable("shfl");))
}
template <class T>
AS_HD AS_FI T shfl_down(uint32_t mask, T v, uint32_t delta) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return __shfl_down_sync(mask, v, delta);),
                    ((void)mask; (void)v; (void)delta; host_unreachable("shfl_down");))
}
template <class T>
AS_HD AS_FI T shfl_xor(uint32_t mask, T v, uint32_t lane_mask) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return __shfl_xor_sync(mask, v, lane_mask);),
                    ((void)mask; (void)v; (void)lane_mask; host_unreachable("shfl_xor");))
}
AS_HD AS_FI uint32_t popc(uint32_t x) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return __popc(x);), (return uint32_t(__builtin_popcount(x));))
}
AS_HD AS_FI uint32_t ffs(uint32_t x) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return __ffs(x);), (return uint32_t(__builtin_ffs(int(x)));))
}

}  // namespace prim::warp
