// The semantics spec every implementation states, and the helpers that let a
// catalogue entry be written in a few lines.
//
// An implementation is a functor with
//   using T = <value type>;
//   static constexpr const char* name;           // "family.op.type"
//   static constexpr Op op;                      // the operation it performs
//   static constexpr Domain domain;              // how operands are drawn
//   static constexpr Semantics sem;              // the written spec
//   static T phi(T old, T a, T b);               // sequential semantics (the host oracle)
//   static constexpr bool phi_on_device = true;  // optional, with phi AS_HD: the GPU checker runs phi on the device
//   AS_HD T operator()(T* p, T a, T b, prim::Retry&) const;  // returns the old value
// and, for a deliberately wrong one, `static constexpr const char* bug`.
#pragma once

#include <cstdint>

#include "harness/prim/prim.cuh"

namespace atomstress {

// How a trial draws operands and initial values for an implementation.
enum class Domain : uint8_t {
  Int,     // arithmetic on integers
  Bits,    // and / or / xor
  Float,   // arithmetic on float or double
  IncDec,  // a = wrap limit
  Cas,     // a = new value, b = compare value, both from a tiny set so CAS often succeeds
  Exch,    // a = value stored
};

// Block: atomic among one block's threads only; System: also toward the host
// and other devices (on one device's memory, as atomic as Device).
enum class Scope : uint8_t { Device, Block, System };

// The operation an atomic performs: how algorithm forms pick the atomics
// they fit (never by parsing names).
enum class Op : uint8_t { Add, Sub, Mul, Exch, Min, Max, Inc, Dec, Cas, And, Or, Xor };

// Whether the memory that updates of `op` leave can be judged without their
// order: one value for the integer ops below, the one float-sum rule for a
// float add, one of the operands for exch.  A void update (`void f(T*, T)`)
// returns nothing to order its updates by, so only these can be checked.
constexpr bool final_memory_checkable_without_order(Op op, bool is_float) {
  if (op == Op::Exch) return true;
  if (is_float) return op == Op::Add;
  return op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::And || op == Op::Or || op == Op::Xor ||
         op == Op::Min || op == Op::Max;
}

struct Semantics {
  const char* phi;          // the operation, in words: "old + a"
  const char* nan;          // NaN policy
  const char* signed_zero;  // -0 / +0 handling
  const char* subnormals;   // kept or flushed
  const char* wrap;         // integer wraparound / limits
  Scope scope = Scope::Device;
  bool global_ok = true;    // memory spaces it supports
  bool shared_ok = true;
  bool nan_states_equal = false;  // true: all NaNs are one state for the checker
};

inline constexpr const char* kNA = "n/a";
inline constexpr const char* kIntWrap = "two's complement wraparound";

// Spec fragments shared by many entries.
inline constexpr Semantics int_sem(const char* phi, const char* wrap = kIntWrap) {
  return Semantics{phi, kNA, kNA, kNA, wrap};
}
inline constexpr Semantics float_sem(const char* phi, const char* nan, const char* zero,
                                     const char* sub) {
  return Semantics{phi, nan, zero, sub, kNA};
}
// For operations whose NaN payload the device does not fix (measured on the
// H200/H100: double arithmetic propagates and sometimes quiets the input
// NaN's payload): every NaN is one state for the checker.
inline constexpr Semantics float_sem_any_nan(const char* phi, const char* nan, const char* zero,
                                             const char* sub) {
  Semantics s{phi, nan, zero, sub, kNA};
  s.nan_states_equal = true;
  return s;
}

// The 16-bit float adds (native and CAS-emulated: one spec, so the twins
// check against each other).  phi: the exact sum, rounded once to the format
// (two halves sum exactly in a double; for bfloat16 see prim::host_hadd).
inline constexpr Semantics half_add_sem(const char* phi, const char* subnormals) {
  return float_sem_any_nan(phi, "a NaN result is some NaN (the device's NaN bits are not pinned); all NaNs one state",
                           "IEEE: -0 + -0 = -0, -0 + +0 = +0", subnormals);
}
template <class H>
AS_HD H half_add_phi(H old, H a) {
  return prim::canon_nan(prim::narrow<H>(prim::to_double(old) + prim::to_double(a)));
}

// Whether an implementation is one of the deliberately wrong ones.
template <class I>
inline constexpr bool is_buggy_v = requires { I::bug; };

// Whether the CPU backend can run it: every built-in entry can; a user's
// entry whose unit is not host-callable says `cpu_capable = false` and why
// in `cpu_unavailable`.
template <class I>
constexpr bool cpu_capable() {
  if constexpr (requires { I::cpu_capable; }) return I::cpu_capable;
  else return true;
}
template <class I>
constexpr const char* cpu_unavailable_reason() {
  if constexpr (requires { I::cpu_unavailable; }) return I::cpu_unavailable;
  else return nullptr;
}

}  // namespace atomstress
