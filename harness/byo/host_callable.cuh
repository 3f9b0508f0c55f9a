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
// host C library's fmaxf(-0, +0) may return -0.
#define fmaxf(a, b) ::prim::fmaxf_(a, b)
#define fminf(a, b) ::prim::fminf_(a, b)
#define fmax(a, b) ::prim::fmax_(a, b)
#define fmin(a, b) ::prim::fmin_(a, b)

// From here on, the unit's device functions are host functions too.
// (__device__ expands to __location__(device) in CUDA's host_defines.h; the
// macro cannot name itself.)
#undef __device__
#define __device__ __host__ __location__(device)
