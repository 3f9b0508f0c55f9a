// Algorithms built on atomics, as people write them: append through the
// returned old value, sums in four forms, histograms, argmax/argmin through a
// packed 64-bit key, spin locks, warp-aggregated atomics.
//
// Each algorithm (a "form") is a template over the catalogue atomic it uses,
// and says which atomics fit (`fits<A>()`, by the atomic's operation and
// type), so a new catalogue entry of the right kind (a user's own
// CAS-emulated add, say) gets every form it fits.  Each form names its
// family, whose oracle (harness/check/families/) checks it.
//
// The code of a block is written once, for the device and the host, against
// an execution context (harness/prim/exec.cuh), so the CPU backend runs the
// same source, blocks concurrently on host threads.  Forms that use warp
// intrinsics are device-only (`gpu_only`).
#pragma once

#include <cstdint>
#include <type_traits>

#include "atomics_under_test/algorithms/program.cuh"
#include "atomics_under_test/spec.cuh"

namespace atomstress::algo {

// ------------------------------------------------------------ fitting rules
// A correct, device-scope atomic of one of the given operations.
template <class A>
constexpr bool plain_device_atomic() {
  return !is_buggy_v<A> && A::sem.scope != Scope::Block && A::sem.global_ok;
}
template <class T>
constexpr bool is_int_counter() {
  return std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t> || std::is_same_v<T, unsigned long long>;
}

enum class SumForm : uint8_t { Element, Thread, Block, WarpDown, WarpXor };
// What the sum family's oracle reads of a form.
struct SumTraits {
  SumForm form = SumForm::Element;
};

// The arithmetic of partial sums, identical on device and host: integers
// wrap, floats round to nearest with the device's NaN results (float NaNs
// canonical), no flushing (nvcc's default -ftz=false; the 16-bit adds keep
// subnormals).
template <class T>
AS_HD AS_FI T plus(T a, T b) {
  if constexpr (std::is_same_v<T, float>) return prim::fadd(a, b);
  else if constexpr (std::is_same_v<T, double>) return prim::dadd(a, b);
  else if constexpr (prim::is_half_float_v<T>) return prim::hadd(a, b);
  else return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
}

// f(e) for every element of every thread of the block, each thread's
// elements in its program order.
template <class Ctx, class F>
AS_HD AS_FI void each_element(Ctx& c, const Args& g, F&& f) {
  c.each([&](uint32_t t) {
    const uint64_t gt = uint64_t(c.bid()) * g.block + t;
    for (uint32_t k = 0; k < g.per_thread; ++k) f(uint64_t(k) * g.threads + gt);
  });
}

// The thread-local partial sum of a thread's elements, in order.
template <class T>
AS_HD AS_FI T thread_partial(const Args& g, uint64_t gt) {
  T acc = prim::from_bits<T>(g.x[gt]);
  for (uint32_t k = 1; k < g.per_thread; ++k) acc = plus(acc, prim::from_bits<T>(g.x[uint64_t(k) * g.threads + gt]));
  return acc;
}

// ===================================================================== append
// loc = atomicAdd(&count, 1); out[loc] = element: a parallel filter.
// key[e] is 1 when element e passes the filter.  mem[0] is the counter.

// What the append family's oracle reads of a form.
struct AppendTraits {
  bool warp_agg = false;  // the hand-aggregated form: one atomic per warp
};

template <class A, bool WriteFirst = false>
struct Append {
  using Atomic = A;
  using M = typename A::T;
  static constexpr const char* family = "append";
  static constexpr const char* form = "append";
  static constexpr bool gpu_only = false;
  static constexpr AppendTraits traits{.warp_agg = false};
  static constexpr bool fits() { return A::op == Op::Add && is_int_counter<typename A::T>() && plain_device_atomic<A>(); }
  template <class Ctx>
  AS_HD static void run(Ctx& c, const Args& g) {
    M* count = static_cast<M*>(g.mem);
    each_element(c, g, [&](uint64_t e) {
      if (!g.key[e]) return;
      prim::Retry r = make_retry(g);
      if constexpr (WriteFirst) {
        // Bug: writes the slot it expects to get, then reserves.
        g.out[static_cast<uint64_t>(prim::plain_load(count))] = static_cast<uint32_t>(e);
        record(g, e, prim::to_bits(A{}(count, M(1), M(0), r)), r);
      } else {
        const M loc = A{}(count, M(1), M(0), r);
        g.out[static_cast<uint64_t>(loc)] = static_cast<uint32_t>(e);
        record(g, e, prim::to_bits(loc), r);
      }
    });
  }
};

// The same filter with a hand-written warp-aggregated atomic: one atomic per
// warp (ballot, the lowest lane leads, __popc of the votes, the base
// broadcast with a shuffle, each lane's offset the votes below it).
template <class A, bool FromLane0 = false>
struct AppendWarpAgg {
  using Atomic = A;
  using M = typename A::T;
  static constexpr const char* family = "append";
  static constexpr const char* form = "append.warp_agg";
  static constexpr bool gpu_only = true;
  static constexpr AppendTraits traits{.warp_agg = true};
  static constexpr bool fits() { return Append<A>::fits(); }
  template <class Ctx>
  AS_HD static void run(Ctx& c, const Args& g) {
    c.each([&](uint32_t t) {
      const uint32_t lane = t & 31u;
      const uint32_t lanes = prim::warp::lane_mask(t, g.block);
      const uint64_t gt = uint64_t(c.bid()) * g.block + t;
      M* count = static_cast<M*>(g.mem);
      for (uint32_t k = 0; k < g.per_thread; ++k) {
        const uint64_t e = uint64_t(k) * g.threads + gt;
        const bool keep = g.key[e] != 0;
        const uint32_t votes = prim::warp::ballot(lanes, keep);
        if (votes == 0) continue;
        const uint32_t leader = prim::warp::ffs(votes) - 1;
        M base = 0;
        if (lane == leader) {
          prim::Retry r = make_retry(g);
          base = A{}(count, M(prim::warp::popc(votes)), M(0), r);
          record(g, e, prim::to_bits(base), r);
        }
        base = prim::warp::shfl(lanes, base, FromLane0 ? 0u : leader);  // the bug: lane 0 need not lead
        if (keep)
          g.out[static_cast<uint64_t>(base) + prim::warp::popc(votes & ((1u << lane) - 1u))] = static_cast<uint32_t>(e);
      }
    });
  }
};

// ======================================================================= sums
// Accumulators mem[0..param); the elements of block b go to mem[b % param].

// Float sums are checked like f32 ones (harness/check/families/sum.cpp):
// bitwise against the form's partial sums, which the host computes exactly
// as the device does, and within the format's error bound.
template <class T>
constexpr bool is_sum_type() {
  return is_int_counter<T>() || std::is_same_v<T, float> || std::is_same_v<T, double> || prim::is_half_float_v<T>;
}

template <class A, SumForm F, bool SyncSteps = true>
struct Sum {
  using Atomic = A;
  using M = typename A::T;
  static constexpr const char* family = "sum";
  static constexpr SumTraits traits{.form = F};
  static constexpr const char* form = F == SumForm::Element    ? "sum.element"
                                      : F == SumForm::Thread   ? "sum.thread"
                                      : F == SumForm::Block    ? "sum.block"
                                      : F == SumForm::WarpDown ? "sum.warp_down"
                                                               : "sum.warp_xor";
  static constexpr bool gpu_only = F == SumForm::WarpDown || F == SumForm::WarpXor;
  // Its oracle chains the atomic's returned values through the atomic's own
  // phi (the numeric bound is for the usual add only): harness/check/families/sum.cpp.
  static constexpr bool oracle_follows_phi = true;
  static constexpr bool fits() { return A::op == Op::Add && is_sum_type<typename A::T>() && plain_device_atomic<A>(); }

  template <class Ctx>
  AS_HD static void run(Ctx& c, const Args& g) {
    M* acc = static_cast<M*>(g.mem) + c.bid() % g.param;
    if constexpr (F == SumForm::Element) {
      each_element(c, g, [&](uint64_t e) {
        prim::Retry r = make_retry(g);
        record(g, e, prim::to_bits(A{}(acc, prim::from_bits<M>(g.x[e]), M(0), r)), r);
      });
    } else if constexpr (F == SumForm::Thread) {
      c.each([&](uint32_t t) {
        const uint64_t gt = uint64_t(c.bid()) * g.block + t;
        prim::Retry r = make_retry(g);
        record(g, gt, prim::to_bits(A{}(acc, thread_partial<M>(g, gt), M(0), r)), r);
      });
    } else if constexpr (F == SumForm::Block) {
      M* s = reinterpret_cast<M*>(c.smem);
      c.each([&](uint32_t t) { s[t] = thread_partial<M>(g, uint64_t(c.bid()) * g.block + t); });
      c.sync();
      uint32_t half = 1;
      while (half < g.block) half <<= 1;
      for (half >>= 1; half > 0; half >>= 1) {
        c.each([&](uint32_t t) {
          if (t < half && t + half < g.block) s[t] = plus(s[t], s[t + half]);
        });
        if constexpr (SyncSteps) c.sync();
      }
      c.each([&](uint32_t t) {
        if (t == 0) {
          const uint64_t e = uint64_t(c.bid()) * g.block;
          prim::Retry r = make_retry(g);
          record(g, e, prim::to_bits(A{}(acc, s[0], M(0), r)), r);
        }
      });
    } else {
      c.each([&](uint32_t t) {
        const uint32_t lane = t & 31u, warp_base = t & ~31u;
        const uint32_t width = g.block - warp_base < 32u ? g.block - warp_base : 32u;
        const uint32_t lanes = prim::warp::lane_mask(t, g.block);
        const uint64_t gt = uint64_t(c.bid()) * g.block + t;
        M v = thread_partial<M>(g, gt);
        for (uint32_t off = 16; off > 0; off >>= 1) {
          if constexpr (F == SumForm::WarpDown) {
            const M o = prim::warp::shfl_down(lanes, v, off);
            if (lane + off < width) v = plus(v, o);
          } else {
            const M o = prim::warp::shfl_xor(lanes, v, off);
            if ((lane ^ off) < width) v = plus(v, o);
          }
        }
        if (lane == 0) {
          prim::Retry r = make_retry(g);
          record(g, gt, prim::to_bits(A{}(acc, v, M(0), r)), r);
        }
      });
    }
  }
};

// ================================================================= histograms
// Bins mem[0..bins); key[e] is element e's bin.  The increment is 1 for an
// add, and for an inc its type's largest limit (0xffffffff, or 2^64 - 1 for
// a 64-bit inc), with which it wraps like an add.  The shared form counts
// into privatised bins in shared memory, then merges each non-zero bin into
// global memory with one atomic.
// What the histogram family reads of a form.
struct HistogramTraits {
  bool shared_bins = false;  // privatised bins in shared memory
};

template <class A, bool Shared, bool SyncMerge = true>
struct Histogram {
  using Atomic = A;
  using M = typename A::T;
  static constexpr const char* family = "histogram";
  static constexpr const char* form = Shared ? "hist.shared" : "hist.global";
  static constexpr bool gpu_only = false;
  static constexpr HistogramTraits traits{.shared_bins = Shared};
  static constexpr bool atomic_in_shared = Shared;  // its atomic runs on shared memory
  static constexpr bool fits() {
    if (!plain_device_atomic<A>()) return false;
    if (A::op == Op::Add) return is_int_counter<typename A::T>() && (!Shared || A::sem.shared_ok);
    return !Shared && A::op == Op::Inc;
  }
  AS_HD static constexpr M one() {
    if constexpr (A::op == Op::Inc) return static_cast<M>(~M(0));
    else return M(1);
  }
  template <class Ctx>
  AS_HD static void run(Ctx& c, const Args& g) {
    M* bins = static_cast<M*>(g.mem);
    if constexpr (!Shared) {
      each_element(c, g, [&](uint64_t e) {
        prim::Retry r = make_retry(g);
        (void)A{}(bins + g.key[e], one(), M(0), r);
        record_retries(g, e, r);  // a loop that gave up is a hang, not a lost increment
      });
    } else {
      M* s = reinterpret_cast<M*>(c.smem);
      c.each([&](uint32_t t) {
        for (uint32_t b = t; b < g.param; b += g.block) s[b] = M(0);
      });
      c.sync();
      each_element(c, g, [&](uint64_t e) {
        prim::Retry r = make_retry(g);
        (void)A{}(s + g.key[e], one(), M(0), r);
        record_retries(g, e, r);
      });
      if constexpr (SyncMerge) c.sync();
      // A merge belongs to no element: one that gives up is seen through
      // RetryShared's abort flag (History::loop_stopped).
      c.each([&](uint32_t t) {
        for (uint32_t b = t; b < g.param; b += g.block) {
          const M n = s[b];
          prim::Retry r = make_retry(g);
          if (n != M(0)) (void)A{}(bins + b, n, M(0), r);
        }
      });
    }
  }
};

// ============================================================ argmax, argmin
// Values are floats; the winner is kept as one 64-bit word, value and
// element index together, so value and index change in one atomic.
//  * cas form (a CAS loop, float compares): NaN never wins, -0 == +0, ties
//    go to the lowest index.  Word: value bits << 32 | index; empty: ~0.
//  * max/min form (one atomicMax/atomicMin on an order-preserving key): NaN
//    never wins (skipped), -0 < +0, ties to the lowest index.
//    Word: ordered(value) << 32 | (~index for max, index for min);
//    empty: 0 for max, ~0 for min.
AS_HD AS_FI uint32_t ordered_bits(float v) {
  const uint32_t b = prim::bit_cast<uint32_t>(v);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}
AS_HD AS_FI bool is_nan_bits(uint32_t b) { return (b & 0x7fffffffu) > 0x7f800000u; }

// What the argbest family's oracle reads of a form.
struct ArgBestTraits {
  bool is_max = false;  // argmax (else argmin)
  bool is_cas = false;  // the CAS loop with float compares (else one max/min on a key)
};

template <class A, bool IsMax, bool Cas, bool TieLast = false>
struct ArgBest {
  using Atomic = A;
  using M = unsigned long long;
  static constexpr const char* family = "argbest";
  static constexpr const char* form =
      Cas ? (IsMax ? "argmax.cas" : "argmin.cas") : (IsMax ? "argmax.max" : "argmin.min");
  static constexpr bool gpu_only = false;
  static constexpr ArgBestTraits traits{.is_max = IsMax, .is_cas = Cas};
  static constexpr bool fits() {
    if (!plain_device_atomic<A>() || !std::is_same_v<typename A::T, unsigned long long>) return false;
    return Cas ? A::op == Op::Cas : A::op == (IsMax ? Op::Max : Op::Min);
  }
  // Whether (v, i) beats the word `cur` under the cas form's policy.
  AS_HD AS_FI static bool beats(float v, uint32_t i, M cur) {
    const uint32_t cb = static_cast<uint32_t>(cur >> 32), ci = static_cast<uint32_t>(cur);
    if (is_nan_bits(cb)) return true;  // empty (or a NaN, which never wins)
    const float cv = prim::bit_cast<float>(cb);
    if (IsMax ? v > cv : v < cv) return true;
    if constexpr (TieLast) return v == cv && i != ci;  // the bug: any tie replaces
    return v == cv && i < ci;
  }
  template <class Ctx>
  AS_HD static void run(Ctx& c, const Args& g) {
    M* best = static_cast<M*>(g.mem);
    each_element(c, g, [&](uint64_t e) {
      const uint32_t vb = static_cast<uint32_t>(g.x[e]);
      if (is_nan_bits(vb)) return;
      const uint32_t idx = static_cast<uint32_t>(e);
      prim::Retry r = make_retry(g);
      if constexpr (Cas) {
        const float v = prim::bit_cast<float>(vb);
        const M mine = (M(vb) << 32) | idx;
        M cur = prim::load(best);
        while (beats(v, idx, cur)) {
          const M seen = A{}(best, mine, cur, r);
          if (seen == cur) break;
          r.saw(seen);
          if (!r.again()) break;
          cur = seen;
        }
      } else {
        const M key = (M(ordered_bits(prim::bit_cast<float>(vb))) << 32) | (IsMax ? ~idx : idx);
        (void)A{}(best, key, M(0), r);
      }
      record_retries(g, e, r);
    });
  }
};

// ====================================================================== locks
// A spin lock from an atomic that returns the previous lock word (atomicCAS
// (lock, 0, 1) or atomicExch(lock, 1)), protecting a plain read-modify-write
// of ordinary memory: data[j] = data[j] + x.  Memory: locks then data.
// Device scope: param locks shared by the whole grid, __threadfence().
// Block scope: param locks per block, used by that block only,
// __threadfence_block().  The spin is bounded by the retry budget, with
// exponential back-off.  The value read inside the critical section is
// recorded as the element's "old", so the protected update is checked like
// an atomic add (a lost update is two sections that read the same value).
// What the lock family's oracle reads of a form.
struct LockTraits {
  bool block_scope = false;  // per-block locks, block fences
  // A ticket lock's word: next ticket << 16 | ticket served, released when
  // the halves are equal.
  bool ticket = false;
};

template <class A, bool BlockScope, bool Fenced = true>
struct Lock {
  using Atomic = A;
  using M = uint32_t;
  static constexpr const char* family = "lock";
  static constexpr const char* form = BlockScope ? "lock.block" : "lock.device";
  static constexpr bool gpu_only = false;
  static constexpr LockTraits traits{.block_scope = BlockScope};
  static constexpr bool fits() {
    return plain_device_atomic<A>() && std::is_same_v<typename A::T, uint32_t> &&
           (A::op == Op::Cas || A::op == Op::Exch);
  }
  AS_HD AS_FI static void fence() {
    if constexpr (BlockScope) prim::fence_block();
    else prim::fence_device();
  }
  template <class Ctx>
  AS_HD static void run(Ctx& c, const Args& g) {
    const uint64_t locks = BlockScope ? uint64_t(g.param) * g.grid : g.param;
    const uint64_t base = BlockScope ? uint64_t(c.bid()) * g.param : 0;
    M* lock = static_cast<M*>(g.mem);
    M* data = lock + locks;
    each_element(c, g, [&](uint64_t e) {
      const uint64_t j = base + g.key[e];
      prim::Retry r = make_retry(g);
      r.lock_slot = 1 + prim::done_slot_of(j);  // live while lock j passes among others
      bool held = false;
      uint32_t pause = 32;
      for (;;) {
        // (a = 1, b = 0): atomicCAS(lock, 0, 1) or atomicExch(lock, 1).
        if (A{}(lock + j, 1u, 0u, r) == 0u) {
          held = true;
          break;
        }
        if (!r.again()) break;
        prim::backoff(pause);
        if (pause < 1024) pause <<= 1;
      }
      if (!held) {  // gave up: recorded, the runner reports a hang
        record_retries(g, e, r);
        return;
      }
      if constexpr (Fenced) fence();
      const M v = prim::ordinary_load(data + j);
      prim::ordinary_store(data + j, M(v + static_cast<M>(g.x[e])));
      if constexpr (Fenced) {
        fence();
        (void)prim::exch(lock + j, 0u);
      } else {
        prim::plain_store(lock + j, 0u);
      }
      if (g.rs != nullptr) prim::stamp_slot(g.rs, prim::done_slot_of(j));  // lock j passed on
      record(g, e, v, r);
    });
  }
};

}  // namespace atomstress::algo
