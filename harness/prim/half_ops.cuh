// 16-bit floats (__half, __nv_bfloat16) as the GPU computes them: exact
// widening, correctly rounded narrowing, the canonical NaN, and the add of
// two of them.  The host mappings reproduce the device's round to nearest
// even bit for bit (subnormals kept, overflow to infinity, -0 + -0 = -0);
// the CPU backend and the oracle rely on it.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "harness/prim/bits.cuh"

namespace prim {

template <class T>
inline constexpr bool is_half_float_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

// Exact: every 16-bit float is a float, and so a double.
AS_HD AS_FI double to_double(__half x) { return double(__half2float(x)); }
AS_HD AS_FI double to_double(__nv_bfloat16 x) { return double(__bfloat162float(x)); }

// Round a double to the format, to nearest even, in one rounding: CUDA's
// conversions (cvt.rn on the device; on the host they pre-round so that
// narrowing through float cannot round twice).
template <class H>
AS_HD AS_FI H narrow(double x) {
  static_assert(is_half_float_v<H>);
  if constexpr (std::is_same_v<H, __half>) return __double2half(x);
  else return __double2bfloat16(x);
}

AS_HD AS_FI bool is_nan(__half x) { return (to_bits(x) & 0x7fffu) > 0x7c00u; }
AS_HD AS_FI bool is_nan(__nv_bfloat16 x) { return (to_bits(x) & 0x7fffu) > 0x7f80u; }
AS_HD AS_FI __half canon_nan(__half x) { return is_nan(x) ? from_bits<__half>(kCanonicalNanF16) : x; }
AS_HD AS_FI __nv_bfloat16 canon_nan(__nv_bfloat16 x) {
  return is_nan(x) ? from_bits<__nv_bfloat16>(kCanonicalNanBF16) : x;
}

// The correctly rounded sum, NaN results canonical on the host.  Two halves
// sum exactly in a double (their bits span at most 40 places); two bfloat16
// may not, but a double has 53 >= 2 * 8 + 2 bits, and then rounding twice
// gives the once-rounded sum (Figueroa, "When is double rounding
// innocuous?", 1995).  The device uses the _rn add, which the compiler
// never contracts into an fma.
template <class H>
AS_HD AS_FI H host_hadd(H a, H b) {
  return canon_nan(narrow<H>(to_double(a) + to_double(b)));
}
AS_HD AS_FI __half hadd(__half a, __half b) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return __hadd_rn(a, b);), (return host_hadd(a, b);))
}
AS_HD AS_FI __nv_bfloat16 hadd(__nv_bfloat16 a, __nv_bfloat16 b) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return __hadd_rn(a, b);), (return host_hadd(a, b);))
}

}  // namespace prim
