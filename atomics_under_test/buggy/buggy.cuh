// Deliberately wrong implementations: realistic mistakes that the harness must
// catch.  Each one claims the semantics (phi) of the correct entry it imitates
// and says, in `bug`, what is wrong with it.
#pragma once

#include "atomics_under_test/emulated.cuh"
#include "atomics_under_test/native.cuh"

namespace atomstress::buggy {

#define AS_BUGGY_HEAD(Struct, Name, Claims, Bug)                   \
  using T = Claims::T;                                             \
  static constexpr const char* name = Name;                        \
  static constexpr Op op = Claims::op;                             \
  static constexpr Domain domain = Claims::domain;                 \
  static constexpr Semantics sem = Claims::sem;                    \
  static constexpr const char* bug = Bug;                          \
  static constexpr bool phi_on_device = true;                      \
  AS_HD static T phi(T old, T a, T b) { return Claims::phi(old, a, b); }

// Read, add, write: no atomic at all.  Loses updates under contention.
struct PlainRmw {
  AS_BUGGY_HEAD(PlainRmw, "buggy.plain_rmw.add.i32", native::AddI32,
                "plain read-add-write with no atomic: concurrent updates are lost")
  AS_HD T operator()(T* p, T a, T, prim::Retry&) const {
    const T old = prim::plain_load(p);
    prim::plain_store(p, static_cast<T>(uint32_t(old) + uint32_t(a)));
    return old;
  }
};

// A CAS loop that returns the value it wrote instead of the one it replaced.
struct ReturnsNew {
  AS_BUGGY_HEAD(ReturnsNew, "buggy.returns_new.add.f32", emulated::AddF32,
                "CAS loop returns the new value instead of the old one")
  AS_HD T operator()(T* p, T a, T, prim::Retry& r) const {
    const T old = prim::cas_loop(p, r, [a](T o) { return prim::fadd(o, a); });
    return prim::fadd(old, a);
  }
};

// A CAS loop whose exit test compares floats: with a NaN in memory the
// compare is never true, so it spins for ever (here: until its budget).
struct FloatCompare {
  AS_BUGGY_HEAD(FloatCompare, "buggy.float_compare.add.f32", emulated::AddF32,
                "CAS loop compares floats, not bits: NaN != NaN, so it never exits on a NaN")
  AS_HD T operator()(T* p, T a, T, prim::Retry& r) const {
    auto* w = reinterpret_cast<uint32_t*>(p);
    uint32_t old = prim::load(w);
    for (;;) {
      const uint32_t assumed = old;
      old = prim::cas(w, assumed, prim::bit_cast<uint32_t>(prim::fadd(prim::bit_cast<float>(assumed), a)));
      if (prim::bit_cast<float>(old) == prim::bit_cast<float>(assumed) || !r.again()) break;
    }
    return prim::bit_cast<float>(old);
  }
};

// Integer-order float max that tests `a >= 0` instead of the sign bit:
// -0.0f >= 0 is true, so -0 takes the signed-max path as INT_MIN and never
// replaces a negative number.
struct IntMaxGeZero {
  AS_BUGGY_HEAD(IntMaxGeZero, "buggy.ge_zero.intorder.max.f32", emulated::IntMaxF32,
                "sign test written as a >= 0: wrong for -0.0 (and NaN)")
  AS_HD T operator()(T* p, T a, T, prim::Retry&) const {
    const uint32_t ab = prim::bit_cast<uint32_t>(a);
    if (a >= 0.0f) return prim::bit_cast<float>(prim::max(reinterpret_cast<int32_t*>(p), int32_t(ab)));
    return prim::bit_cast<float>(prim::min(reinterpret_cast<uint32_t*>(p), ab));
  }
};

// A max that should propagate NaN, built on fmaxf, which drops NaN.
struct DropsNan {
  AS_BUGGY_HEAD(DropsNan, "buggy.drops_nan.max.f32", emulated::MaxNanF32,
                "NaN-propagating max written with fmaxf, which ignores NaN")
  AS_HD T operator()(T* p, T a, T, prim::Retry& r) const {
    return prim::cas_loop(p, r, [a](T o) { return prim::fmaxf_(o, a); });
  }
};

// A double max that goes through fmaxf: the result is narrowed to float.
struct NarrowedMax {
  AS_BUGGY_HEAD(NarrowedMax, "buggy.narrowed.max.f64", emulated::MaxF64,
                "double max computed with fmaxf: result narrowed to float precision")
  AS_HD T operator()(T* p, T a, T, prim::Retry& r) const {
    return prim::cas_loop(p, r, [a](T o) {
      return static_cast<double>(prim::fmaxf_(static_cast<float>(o), static_cast<float>(a)));
    });
  }
};

// atomicInc emulation with `old > limit` where the native test is `>=`.
struct IncGt {
  AS_BUGGY_HEAD(IncGt, "buggy.inc_gt.u32", emulated::IncU32,
                "atomicInc emulation tests old > limit instead of old >= limit")
  AS_HD T operator()(T* p, T a, T, prim::Retry& r) const {
    return prim::cas_loop(p, r, [a](T o) { return o > a ? 0u : o + 1u; });
  }
};

// atomicDec emulation that forgets the `old > limit` case.
struct DecNoAbove {
  AS_BUGGY_HEAD(DecNoAbove, "buggy.dec_no_above.u32", emulated::DecU32,
                "atomicDec emulation forgets the old > limit case")
  AS_HD T operator()(T* p, T a, T, prim::Retry& r) const {
    return prim::cas_loop(p, r, [a](T o) { return o == 0u ? a : o - 1u; });
  }
};

// A block-scope atomic claimed as a device-wide one.
struct BlockScope {
  AS_BUGGY_HEAD(BlockScope, "buggy.block_scope.add.i32", native::AddI32,
                "atomicAdd_block used by threads of several blocks on one address")
  AS_HD T operator()(T* p, T a, T, prim::Retry& r) const { return prim::add_block(p, a, r); }
};

// An add done as exchange-then-store: take the value, store the sum with a
// plain store.  Whatever others add in between is lost.
struct ExchStore {
  AS_BUGGY_HEAD(ExchStore, "buggy.exch_store.add.i32", native::AddI32,
                "atomicExch takes the value, then a plain store writes the sum: updates in "
                "between are lost")
  AS_HD T operator()(T* p, T a, T, prim::Retry&) const {
    const T old = prim::exch(p, T(0));
    prim::plain_store(p, static_cast<T>(uint32_t(old) + uint32_t(a)));
    return old;
  }
};

// 16-bit add by CAS on the enclosing word that rebuilds the word from the
// new half alone, clobbering the neighbouring half.
struct ClobberU16 {
  AS_BUGGY_HEAD(ClobberU16, "buggy.clobber.add.u16", emulated::AddU16,
                "16-bit CAS add writes the whole word from the new half: neighbour zeroed")
  AS_HD T operator()(T* p, T a, T, prim::Retry& r) const {
    auto* w = reinterpret_cast<uint32_t*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t(3));
    const unsigned shift = (reinterpret_cast<uintptr_t>(p) & 2u) * 8u;
    const uint32_t old = prim::cas_loop(w, r, [a, shift](uint32_t word) {
      return uint32_t(static_cast<uint16_t>((word >> shift) + a)) << shift;
    });
    return static_cast<T>(old >> shift);
  }
};

// A CAS loop that reads the address once, outside the loop, and never takes
// the value CAS returned: after one lost race it retries the same stale
// compare for ever (here: until its budget).
struct StaleRead {
  AS_BUGGY_HEAD(StaleRead, "buggy.stale_read.add.i32", emulated::AddI32,
                "CAS loop never refreshes its expected value from the CAS result")
  AS_HD T operator()(T* p, T a, T, prim::Retry& r) const {
    auto* w = reinterpret_cast<uint32_t*>(p);
    const uint32_t seen = prim::load(w);
    for (;;) {
      const uint32_t got = prim::cas(w, seen, seen + uint32_t(a));
      if (got == seen || !r.again()) return static_cast<T>(got);
    }
  }
};

#undef AS_BUGGY_HEAD

}  // namespace atomstress::buggy
