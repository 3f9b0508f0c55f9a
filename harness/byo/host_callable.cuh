// A user's unit compiled for the CPU backend too: with ATOMSTRESS_HOST_CALLABLE
// set (atomstress_add_suite sets it for each source whose probe compiles), the
// rest of the unit's `__device__` functions become `__host__ __device__`, and
// the device-only intrinsics such code typically calls besides the atomics
// (bit casts, fences, round-to-nearest arithmetic, sleeps, fmax/fmin) get host
// mappings here.  Plain float arithmetic runs on the host's FPU: round to
// nearest and subnormals kept as on the device, but NaN payloads propagate, so
// the CPU backend compares a user's float entry with all NaNs as one state.  So the same source, unchanged, runs on host threads through
// std::atomic_ref, and users without a GPU get the checks in their CI.
//
// What cannot be mapped (inline PTX, warp intrinsics, __device__ variables)
// makes the probe fail; atomstress_add_suite then builds the unit for the GPU
// only and the CPU backend reports its entries as SKIP with that reason.
#pragma once

#include <atomic>
#include <cstring>
#include <thread>
#include <type_traits>

#include "harness/prim/prim.cuh"

namespace atomstress::byo {

template <class To, class From>
AS_HD AS_FI To reinterpret_bits(From v) {
  static_assert(sizeof(To) == sizeof(From));
  To out;
  std::memcpy(&out, &v, sizeof(To));
  return out;
}
AS_HD AS_FI int float_as_int(float v) { return reinterpret_bits<int>(v); }
AS_HD AS_FI float int_as_float(int v) { return reinterpret_bits<float>(v); }
AS_HD AS_FI unsigned float_as_uint(float v) { return reinterpret_bits<unsigned>(v); }
AS_HD AS_FI float uint_as_float(unsigned v) { return reinterpret_bits<float>(v); }
AS_HD AS_FI long long double_as_longlong(double v) { return reinterpret_bits<long long>(v); }
AS_HD AS_FI double longlong_as_double(long long v) { return reinterpret_bits<double>(v); }

// IEEE round-to-nearest arithmetic: what the host's SSE arithmetic does.
AS_HD AS_FI float fadd_rn(float a, float b) { NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return ::__fadd_rn(a, b);), (return a + b;)) }
AS_HD AS_FI float fmul_rn(float a, float b) { NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return ::__fmul_rn(a, b);), (return a * b;)) }
AS_HD AS_FI double dadd_rn(double a, double b) { NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return ::__dadd_rn(a, b);), (return a + b;)) }
AS_HD AS_FI double dmul_rn(double a, double b) { NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return ::__dmul_rn(a, b);), (return a * b;)) }

AS_HD AS_FI void threadfence() { prim::fence_device(); }
AS_HD AS_FI void threadfence_block() { prim::fence_block(); }
AS_HD AS_FI void threadfence_system() {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (::__threadfence_system();), (std::atomic_thread_fence(std::memory_order_seq_cst);))
}
AS_HD AS_FI void nanosleep(unsigned ns) { prim::backoff(ns); }

}  // namespace atomstress::byo

#define __float_as_int ::atomstress::byo::float_as_int
#define __int_as_float ::atomstress::byo::int_as_float
#define __float_as_uint ::atomstress::byo::float_as_uint
#define __uint_as_float ::atomstress::byo::uint_as_float
#define __double_as_longlong ::atomstress::byo::double_as_longlong
#define __longlong_as_double ::atomstress::byo::longlong_as_double
#define __fadd_rn ::atomstress::byo::fadd_rn
#define __fmul_rn ::atomstress::byo::fmul_rn
#define __dadd_rn ::atomstress::byo::dadd_rn
#define __dmul_rn ::atomstress::byo::dmul_rn
#define __threadfence ::atomstress::byo::threadfence
#define __threadfence_block ::atomstress::byo::threadfence_block
#define __threadfence_system ::atomstress::byo::threadfence_system
#define __nanosleep ::atomstress::byo::nanosleep
// fmax/fmin with the device's rules (a NaN operand ignored, +0 > -0): the
// host C library's fmaxf(-0, +0) may return -0.  The names are renamed, not
// made function-like macros, so that a library's own fmax overload (CuPy's
// for its half type), a qualified ::fmaxf or std::fmax and a using
// declaration all keep compiling, each name consistently renamed in the unit.
AS_HD AS_FI float atomstress_fmaxf(float a, float b) { return ::prim::fmaxf_(a, b); }
AS_HD AS_FI float atomstress_fminf(float a, float b) { return ::prim::fminf_(a, b); }
AS_HD AS_FI float atomstress_fmax(float a, float b) { return ::prim::fmaxf_(a, b); }
AS_HD AS_FI float atomstress_fmin(float a, float b) { return ::prim::fminf_(a, b); }
AS_HD AS_FI double atomstress_fmax(double a, double b) { return ::prim::fmax_(a, b); }
AS_HD AS_FI double atomstress_fmin(double a, double b) { return ::prim::fmin_(a, b); }
// Mixed or integer operands promote to double, as std::fmax's do.
template <class A, class B, class = std::enable_if_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B>>>
AS_HD AS_FI double atomstress_fmax(A a, B b) { return ::prim::fmax_(double(a), double(b)); }
template <class A, class B, class = std::enable_if_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B>>>
AS_HD AS_FI double atomstress_fmin(A a, B b) { return ::prim::fmin_(double(a), double(b)); }
namespace std {  // (std::fmax in the unit becomes std::atomstress_fmax)
using ::atomstress_fmax;
using ::atomstress_fmaxf;
using ::atomstress_fmin;
using ::atomstress_fminf;
}  // namespace std
#define fmaxf atomstress_fmaxf
#define fminf atomstress_fminf
#define fmax atomstress_fmax
#define fmin atomstress_fmin

// From here on, the unit's device functions are host functions too.
// (__device__ expands to __location__(device) in CUDA's host_defines.h; the
// macro cannot name itself.)
#undef __device__
#define __device__ __host__ __location__(device)
