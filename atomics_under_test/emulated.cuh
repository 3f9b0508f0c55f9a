// CAS-emulated atomics: the loops library authors write when the hardware
// lacks an operation.  Every loop goes through prim::cas_loop, which compares
// bit patterns (never floats) and counts retries against the trial's budget.
#pragma once

#include "atomics_under_test/atomic_head.cuh"

namespace atomstress::emulated {

// An emulated fetch-and-phi: the implementation *is* the CAS loop around the
// device arithmetic; the oracle phi is written separately (plain code the
// host runs, and the GPU checker on the device once it agrees with the host).
#define AS_CAS(Struct, Name, OpTag, Type, Dom, Sem, Phi, NewValue)       \
  struct Struct {                                                     \
    AS_ATOMIC_HEAD(Name, OpTag, Type, Dom, Sem, Phi)                  \
    AS_HD T operator()(T* p, T a, T b, prim::Retry& r) const {        \
      (void)b;                                                        \
      return prim::cas_loop(p, r, [a](T old) { return NewValue; });   \
    }                                                                 \
  };

inline constexpr const char* kKeptSub = "kept (CAS loop around plain arithmetic, no flushing)";
inline constexpr const char* kCanonNan = "a NaN result is the canonical NaN";
inline constexpr const char* kAnyNan =
    "a NaN result is some NaN, payload propagated and quieted by the device; all NaNs one state";
inline constexpr const char* kIeeeZero = "IEEE: -0 + -0 = -0, -0 + +0 = +0";

AS_CAS(AddI32, "cas.add.i32", Add, int32_t, Domain::Int, int_sem("old + a"),
       static_cast<int32_t>(uint32_t(old) + uint32_t(a)),
       static_cast<int32_t>(uint32_t(old) + uint32_t(a)))
AS_CAS(AddF32, "cas.add.f32", Add, float, Domain::Float,
       float_sem("old + a, round to nearest", kCanonNan, kIeeeZero, kKeptSub),
       prim::canon_nan(old + a), prim::fadd(old, a))
AS_CAS(AddF64, "cas.add.f64", Add, double, Domain::Float,
       float_sem_any_nan("old + a, round to nearest", kAnyNan, kIeeeZero, kKeptSub),
       prim::canon_nan(old + a), prim::dadd(old, a))
AS_CAS(MulI32, "cas.mul.i32", Mul, int32_t, Domain::Int, int_sem("old * a"),
       static_cast<int32_t>(uint32_t(old) * uint32_t(a)),
       static_cast<int32_t>(uint32_t(old) * uint32_t(a)))
AS_CAS(MulF32, "cas.mul.f32", Mul, float, Domain::Float,
       float_sem("old * a, round to nearest", kCanonNan, "IEEE sign rules", kKeptSub),
       prim::canon_nan(old * a), prim::fmul(old, a))
AS_CAS(MaxF32, "cas.max.f32", Max, float, Domain::Float,
       float_sem("fmaxf(old, a)",
                 "a NaN operand is ignored; a stored NaN is replaced by a number; two NaNs give "
                 "the canonical NaN",
                 "max(-0, +0) = max(+0, -0) = +0", "kept"),
       prim::host_fmaxmin(old, a, true), prim::fmaxf_(old, a))
AS_CAS(MinF32, "cas.min.f32", Min, float, Domain::Float,
       float_sem("fminf(old, a)",
                 "a NaN operand is ignored; a stored NaN is replaced by a number; two NaNs give "
                 "the canonical NaN",
                 "min(-0, +0) = min(+0, -0) = -0", "kept"),
       prim::host_fmaxmin(old, a, false), prim::fminf_(old, a))
AS_CAS(MaxF64, "cas.max.f64", Max, double, Domain::Float,
       float_sem_any_nan("fmax(old, a)", "a NaN operand is ignored; two NaNs give a NaN (all NaNs one state)",
                 "max(-0, +0) = +0", "kept"),
       prim::host_fmaxmin(old, a, true), prim::fmax_(old, a))
AS_CAS(MinF64, "cas.min.f64", Min, double, Domain::Float,
       float_sem_any_nan("fmin(old, a)", "a NaN operand is ignored; two NaNs give a NaN (all NaNs one state)",
                 "min(-0, +0) = -0", "kept"),
       prim::host_fmaxmin(old, a, false), prim::fmin_(old, a))
AS_CAS(IncU32, "cas.inc.u32", Inc, uint32_t, Domain::IncDec,
       int_sem("old >= a ? 0 : old + 1", "a = limit, the native atomicInc formula"),
       (old >= a ? 0u : old + 1u), prim::inc_formula(old, a))
AS_CAS(DecU32, "cas.dec.u32", Dec, uint32_t, Domain::IncDec,
       int_sem("(old == 0 || old > a) ? a : old - 1", "a = limit, the native atomicDec formula"),
       ((old == 0u || old > a) ? a : old - 1u), prim::dec_formula(old, a))
// CUDA has no 64-bit atomicInc/atomicDec: these carry its formulas to 64
// bits (limits up to 2^64 - 1).
AS_CAS(IncU64, "cas.inc.u64", Inc, unsigned long long, Domain::IncDec,
       int_sem("old >= a ? 0 : old + 1", "a = 64-bit limit, atomicInc's formula at 64 bits; limit 0 always gives 0"),
       (old >= a ? 0ull : old + 1ull), prim::inc_formula(old, a))
AS_CAS(DecU64, "cas.dec.u64", Dec, unsigned long long, Domain::IncDec,
       int_sem("(old == 0 || old > a) ? a : old - 1", "a = 64-bit limit, atomicDec's formula at 64 bits"),
       ((old == 0ull || old > a) ? a : old - 1ull), prim::dec_formula(old, a))

// A max that propagates NaN: once either side is NaN the result is NaN, with
// the stored NaN's payload kept (sticky) or else the operand's.
AS_FI AS_HD float nanprop_max(float old, float a) {
  if (old != old) return old;
  if (a != a) return a;
  return prim::fmaxf_(old, a);
}
AS_CAS(MaxNanF32, "cas.max_nanprop.f32", Max, float, Domain::Float,
       float_sem("NaN-propagating max",
                 "propagate: a stored NaN stays (payload kept); a NaN operand is stored (payload "
                 "kept)",
                 "max(-0, +0) = +0", "kept"),
       (old != old ? old : (a != a ? a : prim::host_fmaxmin(old, a, true))), nanprop_max(old, a))

#undef AS_CAS

// Float max through the integer ordering of IEEE bit patterns: a
// non-negative float (sign bit clear) is larger the larger its bits as a
// signed int; a negative one is larger the smaller its bits as unsigned.
// No CAS loop at all.  Spec: the total order of bit patterns, so -0 < +0,
// +NaN wins over everything, -NaN loses to everything, payloads kept.
struct IntMaxF32 {
  using T = float;
  static constexpr const char* name = "intorder.max.f32";
  static constexpr Op op = Op::Max;
  static constexpr Domain domain = Domain::Float;
  static constexpr Semantics sem =
      float_sem("max in the signed/unsigned integer order of the bit patterns (signbit form)",
                "+NaN beats every number, -NaN loses to every number; payload kept",
                "-0 < +0", "kept");
  static constexpr bool phi_on_device = true;
  AS_HD static T phi(T old, T a, T) {
    const uint32_t ob = prim::bit_cast<uint32_t>(old), ab = prim::bit_cast<uint32_t>(a);
    if ((ab >> 31) == 0) return int32_t(ab) > int32_t(ob) ? a : old;
    return ab < ob ? a : old;
  }
  AS_HD T operator()(T* p, T a, T, prim::Retry&) const {
    const uint32_t ab = prim::bit_cast<uint32_t>(a);
    if ((ab >> 31) == 0)
      return prim::bit_cast<float>(prim::max(reinterpret_cast<int32_t*>(p), int32_t(ab)));
    return prim::bit_cast<float>(prim::min(reinterpret_cast<uint32_t*>(p), ab));
  }
};

// A 16-bit add done by CAS on the enclosing aligned 32-bit word; the other
// half of the word must come through untouched.
struct AddU16 {
  using T = uint16_t;
  static constexpr const char* name = "cas.add.u16";
  static constexpr Op op = Op::Add;
  static constexpr Domain domain = Domain::Int;
  static constexpr Semantics sem = int_sem("old + a (mod 2^16), CAS on the enclosing 32-bit word");
  static constexpr bool phi_on_device = true;
  AS_HD static T phi(T old, T a, T) { return static_cast<T>(old + a); }
  AS_HD T operator()(T* p, T a, T, prim::Retry& r) const {
    return prim::cas_loop_in_word(p, r, [a](T old) { return static_cast<T>(old + a); });
  }
};

// 16-bit float adds the same way, as code for GPUs without a 16-bit atomic
// add writes them, with the native adds' spec (spec.cuh half_add_sem).
template <class H>
struct CasAddHalf {
  using T = H;
  static constexpr const char* name = std::is_same_v<H, __half> ? "cas.add.f16" : "cas.add.bf16";
  static constexpr Op op = Op::Add;
  static constexpr Domain domain = Domain::Float;
  static constexpr Semantics sem = half_add_sem("old + a, round to nearest even, CAS on the enclosing 32-bit word",
                                                 "kept (CAS loop around __hadd_rn, no flushing)");
  static constexpr bool phi_on_device = true;
  AS_HD static T phi(T old, T a, T) { return half_add_phi(old, a); }
  AS_HD T operator()(T* p, T a, T, prim::Retry& r) const {
    return prim::cas_loop_in_word(p, r, [a](T old) { return prim::hadd(old, a); });
  }
};
using AddF16 = CasAddHalf<__half>;
using AddBF16 = CasAddHalf<__nv_bfloat16>;

}  // namespace atomstress::emulated
