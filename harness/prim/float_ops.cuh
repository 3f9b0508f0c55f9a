// Floating-point operations exactly as the GPU computes them.  Host mappings
// reproduce the device bit for bit (round to nearest, canonical NaN, sign of
// zero, subnormal flushing where the device flushes), because the CPU
// backend and the oracle both rely on it.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "harness/prim/bits.cuh"

namespace prim {

AS_HD AS_FI float canon_nan(float x) { return x != x ? bit_cast<float>(kCanonicalNanF32) : x; }
AS_HD AS_FI double canon_nan(double x) { return x != x ? bit_cast<double>(kCanonicalNanF64) : x; }

AS_HD AS_FI float fadd(float a, float b) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return __fadd_rn(a, b);), (return canon_nan(a + b);))
}
AS_HD AS_FI float fmul(float a, float b) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return __fmul_rn(a, b);), (return canon_nan(a * b);))
}
AS_HD AS_FI double dadd(double a, double b) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return __dadd_rn(a, b);), (return canon_nan(a + b);))
}
AS_HD AS_FI double dmul(double a, double b) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return __dmul_rn(a, b);), (return canon_nan(a * b);))
}

// fmax/fmin as the device computes them: a NaN operand is ignored, two NaNs
// give the canonical NaN, and +0 is greater than -0.
template <class F>
AS_HD AS_FI F host_fmaxmin(F a, F b, bool is_max) {
  if (a != a && b != b) return canon_nan(a);
  if (a != a) return b;
  if (b != b) return a;
  if (a == b) {  // equal values, maybe zeros of different signs
    const bool sa = (to_bits(a) >> (sizeof(F) * 8 - 1)) != 0;
    const bool sb = (to_bits(b) >> (sizeof(F) * 8 - 1)) != 0;
    if (sa == sb) return a;
    return (is_max ? !sa : sa) ? a : b;
  }
  return is_max ? (a > b ? a : b) : (a < b ? a : b);
}
AS_HD AS_FI float fmaxf_(float a, float b) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return fmaxf(a, b);), (return host_fmaxmin(a, b, true);))
}
AS_HD AS_FI float fminf_(float a, float b) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return fminf(a, b);), (return host_fmaxmin(a, b, false);))
}
AS_HD AS_FI double fmax_(double a, double b) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return fmax(a, b);), (return host_fmaxmin(a, b, true);))
}
AS_HD AS_FI double fmin_(double a, double b) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return fmin(a, b);), (return host_fmaxmin(a, b, false);))
}

// What native atomicAdd(float) on global memory computes on the H100:
// subnormal inputs and results flushed to a zero of the same sign, round to
// nearest, canonical NaN.
AS_HD AS_FI float ftz(float x) {
  const uint32_t b = bit_cast<uint32_t>(x);
  return ((b & 0x7f800000u) == 0) ? bit_cast<float>(b & 0x80000000u) : x;
}
AS_HD AS_FI float fadd_ftz(float a, float b) { return ftz(canon_nan(ftz(a) + ftz(b))); }

}  // namespace prim
