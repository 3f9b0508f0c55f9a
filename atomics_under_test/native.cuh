// Native CUDA atomics.  Each phi is the device's documented or measured
// behaviour, written independently of the intrinsic it checks.
#pragma once

#include "atomics_under_test/atomic_head.cuh"

namespace atomstress::native {

#define AS_NATIVE(Struct, Name, OpTag, Type, Dom, Sem, Phi, Call)   \
  struct Struct {                                                 \
    AS_ATOMIC_HEAD(Name, OpTag, Type, Dom, Sem, Phi)              \
    AS_HD T operator()(T* p, T a, T b, prim::Retry& r) const {    \
      (void)b;                                                    \
      (void)r;                                                    \
      return Call;                                                \
    }                                                             \
  };

// Integer arithmetic wraps: compute it in the unsigned type of the same width.
template <class T>
using U_of = std::make_unsigned_t<T>;
#define AS_WRAP(T, expr) static_cast<T>(expr)

AS_NATIVE(AddI32, "native.add.i32", Add, int32_t, Domain::Int, int_sem("old + a"),
          AS_WRAP(int32_t, uint32_t(old) + uint32_t(a)), prim::add(p, a))
AS_NATIVE(AddU32, "native.add.u32", Add, uint32_t, Domain::Int, int_sem("old + a"), old + a,
          prim::add(p, a))
AS_NATIVE(AddI64, "native.add.i64", Add, long long, Domain::Int, int_sem("old + a (atomicAdd on the unsigned word)"),
          AS_WRAP(long long, static_cast<unsigned long long>(old) + static_cast<unsigned long long>(a)), prim::add(p, a))
AS_NATIVE(AddU64, "native.add.u64", Add, unsigned long long, Domain::Int, int_sem("old + a"), old + a,
          prim::add(p, a))
// Native float add: the one entry whose semantics depend on the memory
// space (measured): global memory flushes subnormals, shared memory keeps them.
struct AddF32 {
  using T = float;
  static constexpr const char* name = "native.add.f32";
  static constexpr Op op = Op::Add;
  static constexpr Domain domain = Domain::Float;
  static constexpr Semantics sem =
      float_sem("old + a, round to nearest", "any NaN gives the canonical NaN 0x7fffffff (payload not kept)",
                "IEEE: -0 + -0 = -0, -0 + +0 = +0",
                "global memory: flushed (subnormal inputs and results become a zero of the same sign); "
                "shared memory: kept");
  static constexpr bool phi_on_device = true;
  AS_HD static T phi(T old, T a, T) { return prim::fadd_ftz(old, a); }
  AS_HD static T phi_shared(T old, T a, T) { return prim::canon_nan(old + a); }
  AS_HD T operator()(T* p, T a, T, prim::Retry&) const { return prim::add(p, a); }
};
AS_NATIVE(AddF64, "native.add.f64", Add, double, Domain::Float,
          float_sem_any_nan("old + a, round to nearest",
                            "a NaN result is some NaN (a stored signalling NaN stays as it is); all NaNs one state",
                            "IEEE: -0 + -0 = -0, -0 + +0 = +0", "kept"),
          prim::canon_nan(old + a), prim::add(p, a))
// Native 16-bit float adds (atom.add.noftz.f16 / .bf16 on sm_90): round to
// nearest even, subnormals kept.
AS_NATIVE(AddF16, "native.add.f16", Add, __half, Domain::Float,
          half_add_sem("old + a, round to nearest even", "kept (atom.add.noftz.f16)"), half_add_phi(old, a),
          prim::add(p, a))
AS_NATIVE(AddBF16, "native.add.bf16", Add, __nv_bfloat16, Domain::Float,
          half_add_sem("old + a, round to nearest even", "kept (atom.add.noftz.bf16)"), half_add_phi(old, a),
          prim::add(p, a))
AS_NATIVE(SubI32, "native.sub.i32", Sub, int32_t, Domain::Int, int_sem("old - a"),
          AS_WRAP(int32_t, uint32_t(old) - uint32_t(a)), prim::sub(p, a))
AS_NATIVE(SubU32, "native.sub.u32", Sub, uint32_t, Domain::Int, int_sem("old - a"), old - a,
          prim::sub(p, a))
AS_NATIVE(ExchI32, "native.exch.i32", Exch, int32_t, Domain::Exch, int_sem("a", kNA), a, prim::exch(p, a))
AS_NATIVE(ExchU32, "native.exch.u32", Exch, uint32_t, Domain::Exch, int_sem("a", kNA), a,
          prim::exch(p, a))
AS_NATIVE(ExchU64, "native.exch.u64", Exch, unsigned long long, Domain::Exch, int_sem("a", kNA), a,
          prim::exch(p, a))
AS_NATIVE(ExchF32, "native.exch.f32", Exch, float, Domain::Float,
          float_sem("a (bits stored as given)", "payload kept", "kept", "kept"), a, prim::exch(p, a))
AS_NATIVE(MinI32, "native.min.i32", Min, int32_t, Domain::Int, int_sem("min(old, a) signed", kNA),
          a < old ? a : old, prim::min(p, a))
AS_NATIVE(MinU32, "native.min.u32", Min, uint32_t, Domain::Int, int_sem("min(old, a) unsigned", kNA),
          a < old ? a : old, prim::min(p, a))
AS_NATIVE(MinI64, "native.min.i64", Min, long long, Domain::Int, int_sem("min(old, a) signed", kNA),
          a < old ? a : old, prim::min(p, a))
AS_NATIVE(MinU64, "native.min.u64", Min, unsigned long long, Domain::Int,
          int_sem("min(old, a) unsigned", kNA), a < old ? a : old, prim::min(p, a))
AS_NATIVE(MaxI32, "native.max.i32", Max, int32_t, Domain::Int, int_sem("max(old, a) signed", kNA),
          a > old ? a : old, prim::max(p, a))
AS_NATIVE(MaxU32, "native.max.u32", Max, uint32_t, Domain::Int, int_sem("max(old, a) unsigned", kNA),
          a > old ? a : old, prim::max(p, a))
AS_NATIVE(MaxI64, "native.max.i64", Max, long long, Domain::Int, int_sem("max(old, a) signed", kNA),
          a > old ? a : old, prim::max(p, a))
AS_NATIVE(MaxU64, "native.max.u64", Max, unsigned long long, Domain::Int,
          int_sem("max(old, a) unsigned", kNA), a > old ? a : old, prim::max(p, a))
AS_NATIVE(IncU32, "native.inc.u32", Inc, uint32_t, Domain::IncDec,
          int_sem("old >= a ? 0 : old + 1", "a = limit; limit 0 always gives 0"),
          (old >= a ? 0u : old + 1u), prim::inc(p, a))
AS_NATIVE(DecU32, "native.dec.u32", Dec, uint32_t, Domain::IncDec,
          int_sem("(old == 0 || old > a) ? a : old - 1", "a = limit"),
          ((old == 0u || old > a) ? a : old - 1u), prim::dec(p, a))
AS_NATIVE(CasU32, "native.cas.u32", Cas, uint32_t, Domain::Cas,
          int_sem("old == b ? a : old (b = compare)", kNA), (old == b ? a : old), prim::cas(p, b, a))
AS_NATIVE(CasU64, "native.cas.u64", Cas, unsigned long long, Domain::Cas,
          int_sem("old == b ? a : old (b = compare)", kNA), (old == b ? a : old), prim::cas(p, b, a))
AS_NATIVE(AndU32, "native.and.u32", And, uint32_t, Domain::Bits, int_sem("old & a", kNA), old & a,
          prim::and_(p, a))
AS_NATIVE(OrU32, "native.or.u32", Or, uint32_t, Domain::Bits, int_sem("old | a", kNA), old | a,
          prim::or_(p, a))
AS_NATIVE(XorU32, "native.xor.u32", Xor, uint32_t, Domain::Bits, int_sem("old ^ a", kNA), old ^ a,
          prim::xor_(p, a))
AS_NATIVE(AndU64, "native.and.u64", And, unsigned long long, Domain::Bits, int_sem("old & a", kNA),
          old & a, prim::and_(p, a))
AS_NATIVE(OrU64, "native.or.u64", Or, unsigned long long, Domain::Bits, int_sem("old | a", kNA),
          old | a, prim::or_(p, a))
AS_NATIVE(XorU64, "native.xor.u64", Xor, unsigned long long, Domain::Bits, int_sem("old ^ a", kNA),
          old ^ a, prim::xor_(p, a))

// Block scope: correct only while every address is used by one block.
inline constexpr Semantics block_add_sem() {
  Semantics s = int_sem("old + a");
  s.scope = Scope::Block;
  return s;
}
AS_NATIVE(AddBlockI32, "native.add_block.i32", Add, int32_t, Domain::Int, block_add_sem(),
          AS_WRAP(int32_t, uint32_t(old) + uint32_t(a)), prim::add_block(p, a, r))

#undef AS_NATIVE

}  // namespace atomstress::native
