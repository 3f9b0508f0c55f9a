// The CUDA atomic intrinsics as a user's code calls them, routed through the
// primitive layer.  intercept_macros.cuh renames each intrinsic to
// atomstress_<name>, so `atomicCAS(p, c, v)` in a user's unit, unchanged,
// lands in atomstress_atomicCAS: it counts the call (each call after an op's
// first is a retry), marks block-scope calls for the scope rule, stops a loop
// that gives up (prim/call_scope.cuh: a compare-and-swap loop is released,
// any other trapped), and then performs the real intrinsic on
// the device, or the host mapping of harness/prim/ on the CPU backend.
//
// The overload set is CUDA's own (sm_20..sm_90 atomic headers, cuda_fp16.h,
// cuda_bf16.h), so overload resolution picks what it would have picked.  They
// are global functions, as CUDA's are: a user's own overload written as
// `__device__ float atomicMax(float*, float)` is renamed with them and joins
// the same overload set, exactly as it joined CUDA's.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "harness/prim/call_scope.cuh"
#include "harness/prim/prim.cuh"

// One intercepted two-operand intrinsic: NAME(T*, T) with its block flag,
// the device intrinsic ::NAME and the host mapping HOST(p, v).
#define ATOMSTRESS_BYO_RMW(NAME, T, HOST, BLOCK)                                      \
  AS_HD AS_FI T atomstress_##NAME(T* p, T v) {                                                    \
    prim::intercepted_call(BLOCK);                                                   \
    NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return ::NAME(p, v);), (return HOST(p, v);))    \
  }
// A compare-and-swap whose loop gave up swaps nothing and returns what ends
// the loop (prim::intercepted_cas_call).
#define ATOMSTRESS_BYO_CAS(NAME, T, BLOCK)                                                 \
  AS_HD AS_FI T atomstress_##NAME(T* p, T compare, T val) {                                            \
    switch (prim::intercepted_cas_call(BLOCK)) {                                          \
      case prim::CasCall::Run: break;                                                     \
      case prim::CasCall::ReleaseAsCompare: return compare;                               \
      case prim::CasCall::ReleaseAsZero: { T zero{}; return zero; }                       \
    }                                                                                     \
    T found{};                                                                            \
    NV_IF_ELSE_TARGET(NV_IS_DEVICE, (found = ::NAME(p, compare, val);),                   \
                      (found = prim::cas(p, compare, val);))                              \
    prim::intercepted_saw(found);                                                         \
    return found;                                                                         \
  }

// Each intrinsic in its three scopes: device (plain), block, system.
#define ATOMSTRESS_BYO_RMW3(BASE, T, HOST)          \
  ATOMSTRESS_BYO_RMW(BASE, T, HOST, false)          \
  ATOMSTRESS_BYO_RMW(BASE##_block, T, HOST, true)   \
  ATOMSTRESS_BYO_RMW(BASE##_system, T, HOST, false)
#define ATOMSTRESS_BYO_CAS3(T)               \
  ATOMSTRESS_BYO_CAS(atomicCAS, T, false)    \
  ATOMSTRESS_BYO_CAS(atomicCAS_block, T, true) \
  ATOMSTRESS_BYO_CAS(atomicCAS_system, T, false)

namespace atomstress::byo {
using ull = unsigned long long;
}

ATOMSTRESS_BYO_RMW3(atomicAdd, int, prim::add)
ATOMSTRESS_BYO_RMW3(atomicAdd, unsigned, prim::add)
ATOMSTRESS_BYO_RMW3(atomicAdd, atomstress::byo::ull, prim::add)
ATOMSTRESS_BYO_RMW3(atomicAdd, float, prim::add)
ATOMSTRESS_BYO_RMW3(atomicAdd, double, prim::add)
// cuda_fp16.h and cuda_bf16.h declare the device-scope form only.
ATOMSTRESS_BYO_RMW(atomicAdd, __half, prim::add, false)
ATOMSTRESS_BYO_RMW(atomicAdd, __nv_bfloat16, prim::add, false)

ATOMSTRESS_BYO_RMW3(atomicSub, int, prim::sub)
ATOMSTRESS_BYO_RMW3(atomicSub, unsigned, prim::sub)

ATOMSTRESS_BYO_RMW3(atomicExch, int, prim::exch)
ATOMSTRESS_BYO_RMW3(atomicExch, unsigned, prim::exch)
ATOMSTRESS_BYO_RMW3(atomicExch, atomstress::byo::ull, prim::exch)
ATOMSTRESS_BYO_RMW3(atomicExch, float, prim::exch)

ATOMSTRESS_BYO_RMW3(atomicMin, int, prim::min)
ATOMSTRESS_BYO_RMW3(atomicMin, unsigned, prim::min)
ATOMSTRESS_BYO_RMW3(atomicMin, long long, prim::min)
ATOMSTRESS_BYO_RMW3(atomicMin, atomstress::byo::ull, prim::min)
ATOMSTRESS_BYO_RMW3(atomicMax, int, prim::max)
ATOMSTRESS_BYO_RMW3(atomicMax, unsigned, prim::max)
ATOMSTRESS_BYO_RMW3(atomicMax, long long, prim::max)
ATOMSTRESS_BYO_RMW3(atomicMax, atomstress::byo::ull, prim::max)

ATOMSTRESS_BYO_RMW3(atomicInc, unsigned, prim::inc)
ATOMSTRESS_BYO_RMW3(atomicDec, unsigned, prim::dec)

ATOMSTRESS_BYO_RMW3(atomicAnd, int, prim::and_)
ATOMSTRESS_BYO_RMW3(atomicAnd, unsigned, prim::and_)
ATOMSTRESS_BYO_RMW3(atomicAnd, long long, prim::and_)
ATOMSTRESS_BYO_RMW3(atomicAnd, atomstress::byo::ull, prim::and_)
ATOMSTRESS_BYO_RMW3(atomicOr, int, prim::or_)
ATOMSTRESS_BYO_RMW3(atomicOr, unsigned, prim::or_)
ATOMSTRESS_BYO_RMW3(atomicOr, long long, prim::or_)
ATOMSTRESS_BYO_RMW3(atomicOr, atomstress::byo::ull, prim::or_)
ATOMSTRESS_BYO_RMW3(atomicXor, int, prim::xor_)
ATOMSTRESS_BYO_RMW3(atomicXor, unsigned, prim::xor_)
ATOMSTRESS_BYO_RMW3(atomicXor, long long, prim::xor_)
ATOMSTRESS_BYO_RMW3(atomicXor, atomstress::byo::ull, prim::xor_)

ATOMSTRESS_BYO_CAS3(int)
ATOMSTRESS_BYO_CAS3(unsigned)
ATOMSTRESS_BYO_CAS3(atomstress::byo::ull)
ATOMSTRESS_BYO_CAS(atomicCAS, unsigned short, false)

// Everything atomstress does not model (vector atomics on float2, float4,
// __half2, __nv_bfloat162, and whatever a newer CUDA adds) reaches CUDA's own
// intrinsic unchanged: a forwarding template for pointee types outside the
// modelled ones, so that it never competes with a modelled overload (those
// keep CUDA's overload resolution, conversions included).
namespace atomstress::byo {
template <class P, class... Ts>
inline constexpr bool one_of = (std::is_same_v<std::remove_cv_t<P>, Ts> || ...);
}
// (Device functions, as CUDA's are: a host-callable unit that uses one is
// built for the GPU only, as it would be without atomstress.)
#define ATOMSTRESS_BYO_FORWARD(NAME, ...)                                                    \
  template <class P, class... A>                                                             \
    requires(!::atomstress::byo::one_of<P, __VA_ARGS__>)                                     \
  __device__ AS_FI auto atomstress_##NAME(P* p, A... a) -> decltype(::NAME(p, a...)) {            \
    return ::NAME(p, a...);                                                                  \
  }
#define ATOMSTRESS_BYO_FORWARD3(BASE, ...)          \
  ATOMSTRESS_BYO_FORWARD(BASE, __VA_ARGS__)         \
  ATOMSTRESS_BYO_FORWARD(BASE##_block, __VA_ARGS__) \
  ATOMSTRESS_BYO_FORWARD(BASE##_system, __VA_ARGS__)
#define ATOMSTRESS_BYO_INTS int, unsigned, long long, atomstress::byo::ull
ATOMSTRESS_BYO_FORWARD(atomicAdd, int, unsigned, atomstress::byo::ull, float, double, __half, __nv_bfloat16)
ATOMSTRESS_BYO_FORWARD(atomicAdd_block, int, unsigned, atomstress::byo::ull, float, double)
ATOMSTRESS_BYO_FORWARD(atomicAdd_system, int, unsigned, atomstress::byo::ull, float, double)
ATOMSTRESS_BYO_FORWARD3(atomicSub, int, unsigned)
ATOMSTRESS_BYO_FORWARD3(atomicExch, int, unsigned, atomstress::byo::ull, float)
ATOMSTRESS_BYO_FORWARD3(atomicMin, ATOMSTRESS_BYO_INTS)
ATOMSTRESS_BYO_FORWARD3(atomicMax, ATOMSTRESS_BYO_INTS)
ATOMSTRESS_BYO_FORWARD3(atomicInc, unsigned)
ATOMSTRESS_BYO_FORWARD3(atomicDec, unsigned)
ATOMSTRESS_BYO_FORWARD3(atomicAnd, ATOMSTRESS_BYO_INTS)
ATOMSTRESS_BYO_FORWARD3(atomicOr, ATOMSTRESS_BYO_INTS)
ATOMSTRESS_BYO_FORWARD3(atomicXor, ATOMSTRESS_BYO_INTS)
ATOMSTRESS_BYO_FORWARD(atomicCAS, int, unsigned, atomstress::byo::ull, unsigned short)
ATOMSTRESS_BYO_FORWARD(atomicCAS_block, int, unsigned, atomstress::byo::ull)
ATOMSTRESS_BYO_FORWARD(atomicCAS_system, int, unsigned, atomstress::byo::ull)

#undef ATOMSTRESS_BYO_FORWARD
#undef ATOMSTRESS_BYO_FORWARD3
#undef ATOMSTRESS_BYO_INTS
#undef ATOMSTRESS_BYO_RMW
#undef ATOMSTRESS_BYO_CAS
#undef ATOMSTRESS_BYO_RMW3
#undef ATOMSTRESS_BYO_CAS3
