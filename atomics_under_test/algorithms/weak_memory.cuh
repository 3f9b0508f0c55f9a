// Synchronisation idioms whose correctness rests on fences, each written
// the way people write it and, here, correctly: three spin locks (the
// textbook CAS lock, a lock whose critical section reads through the L1
// cache, a ticket lock), message passing through a flag, and the "last
// block" reduction of CUDA's threadFenceReduction sample.  Each takes a
// `Fenced` parameter; the broken twins in atomics_under_test/buggy/
// weak_memory.cuh drop one fence, a mistake the PTX memory model calls a
// data race and the hardware shows only sometimes (stress makes it show).
// Each is registered bound to one atomic (harness/catalogue/buggy.cu), not
// paired with every atomic that fits.
#pragma once

#include <cstdint>

#include "atomics_under_test/algorithms/forms.cuh"

namespace atomstress::algo {

// ====================================================================== locks
// The lock family's layout and oracle (harness/check/families/lock.cpp):
// memory is param lock words then param data words; element e adds x to
// data[key[e]] under lock key[e] and records the value it read.
enum class WeakLockShape : uint8_t {
  Textbook,  // while (atomicCAS(l, 0, 1) != 0); data += x; atomicExch(l, 0);
  L1Cached,  // the same, with the data read through the L1 cache (__ldca)
  Ticket,    // t = atomicAdd(&next, 1); while (serving != t); data += x; serving++
};

template <class A, WeakLockShape Shape, bool Fenced = true>
struct WeakLock {
  using Atomic = A;
  using M = uint32_t;
  static constexpr const char* family = "lock";
  static constexpr const char* form = Shape == WeakLockShape::Textbook   ? "lock.textbook"
                                      : Shape == WeakLockShape::L1Cached ? "lock.l1_cached"
                                                                         : "lock.ticket";
  static constexpr bool gpu_only = false;
  // Device-scope locks shared by the grid.  The ticket lock packs its two
  // counters in one word: the next ticket in the high half, the ticket being
  // served in the low half (as Linux's ticket spinlock did), so it is
  // released when the halves are equal.
  static constexpr LockTraits traits{.block_scope = false, .ticket = Shape == WeakLockShape::Ticket};

  // A spin on `held()`, bounded by the retry budget: a short tight spin (the
  // textbook has no back-off at all), then exponential back-off so that the
  // correct versions never starve under 2^14 contending sections.
  template <class F>
  AS_HD AS_FI static bool spin(prim::Retry& r, F&& held) {
    uint32_t pause = 32;
    for (;;) {
      if (held()) return true;
      if (!r.again()) return false;
      if (r.count > 64) {
        prim::backoff(pause);
        if (pause < 1024) pause <<= 1;
      }
    }
  }

  template <class Ctx>
  AS_HD static void run(Ctx& c, const Args& g) {
    M* lock = static_cast<M*>(g.mem);
    M* data = lock + g.param;
    each_element(c, g, [&](uint64_t e) {
      const uint64_t j = g.key[e];
      const M x = static_cast<M>(g.x[e]);
      prim::Retry r = make_retry(g);
      M v = 0;
      if constexpr (Shape == WeakLockShape::Ticket) {
        const M mine = (A{}(lock + j, M(1) << 16, M(0), r) >> 16) & 0xffffu;
        M served = 0x10000u;  // none seen yet
        uint64_t moved_ns = 0;  // when it last saw another ticket served
        const bool held = spin(r, [&] {
          const M now_served = prim::plain_load(lock + j) & 0xffffu;
          if (now_served == mine) return true;
          // Its first look, then each ticket served: the queue is live,
          // however long it is (a waiter gets the time to see it move).
          if (now_served != served) {
            const uint64_t now = queue_live(r, g);
            if (served != 0x10000u) moved_ns = now;
            served = now_served;
          }
          return false;
        });
        if (!held) {
          r.gave_up = queue_gave_up(r, moved_ns);
          record_retries(g, e, r);  // gave up: the runner reports a hang
          return;
        }
        prim::fence_device();  // acquire
        v = prim::ordinary_load(data + j);
        prim::ordinary_store(data + j, M(v + x));
        // Release: the data must be visible before the next ticket is served.
        if constexpr (Fenced) prim::fence_device();
        (void)A{}(lock + j, M(1), M(0), r);
      } else {
        r.lock_slot = 1 + prim::done_slot_of(j);  // live while lock j passes among others
        // (a = 1, b = 0): atomicCAS(lock, 0, 1).
        if (!spin(r, [&] { return A{}(lock + j, M(1), M(0), r) == 0u; })) {
          record_retries(g, e, r);
          return;
        }
        if constexpr (Shape == WeakLockShape::Textbook) {
          if constexpr (Fenced) prim::fence_device();
          v = prim::ordinary_load(data + j);
          prim::ordinary_store(data + j, M(v + x));
          if constexpr (Fenced) prim::fence_device();
        } else {
          // Acquire: without this fence the L1 may still hold the data line
          // from before another SM's critical section.
          if constexpr (Fenced) prim::fence_device();
          v = prim::l1_cached_load(data + j);
          prim::ordinary_store(data + j, M(v + x));
          prim::fence_device();  // release (correct in both versions)
        }
        (void)prim::exch(lock + j, M(0));
        if (g.rs != nullptr) prim::stamp_slot(g.rs, prim::done_slot_of(j));  // lock j passed on
      }
      record(g, e, v, r);
    });
  }
};

// ============================================================ message passing
// Each element sends one message and receives one: it writes its data word,
// raises its flag with atomicExch(&flag, 1), then waits (bounded) for its
// partner's flag and reads the partner's data.  A reader that saw the flag
// must see the data.  Memory: n flags then n data words (n elements), all 0.
// The partner of global thread t is the same thread of the next block (of
// the next warp, or the next thread, with one block): another SM where it can be.
AS_HD AS_FI uint64_t message_partner(uint64_t t, uint32_t grid, uint32_t block) {
  const uint64_t threads = uint64_t(grid) * block;
  if (grid > 1) return (t + block) % threads;
  return block > 32 ? (t + 32) % block : (t + 1) % block;
}
// The data element e sends: never 0 (the initial data).
AS_HD AS_FI uint32_t message_value(uint64_t e) { return static_cast<uint32_t>(e * 2654435761u) | 1u; }
// The recorded "old" of a receiver that saw its partner's flag: this bit
// and the data it read; 0 when the flag did not come within its polls.
inline constexpr uint64_t kMessageSeen = uint64_t(1) << 32;
// Polls of a partner's flag: a partner that is not resident yet is not
// waited for (nothing to check then), so no launch needs co-residency.  On
// the host a few: the cpu backend runs a block's threads in turn, so a
// partner in the same block has not started, and its host threads are
// sequentially consistent at the fences anyway.
AS_HD AS_FI uint32_t message_polls() { NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return 4096;), (return 16;)) }

template <class A, bool Fenced = true>
struct MessagePassing {
  using Atomic = A;
  using M = uint32_t;
  static constexpr const char* family = "message";
  static constexpr const char* form = "message.flag";
  static constexpr bool gpu_only = false;

  template <class Ctx>
  AS_HD static void run(Ctx& c, const Args& g) {
    const uint64_t n = g.threads * g.per_thread;
    M* flag = static_cast<M*>(g.mem);
    M* data = flag + n;
    c.each([&](uint32_t t) {
      const uint64_t gt = uint64_t(c.bid()) * g.block + t;
      const uint64_t partner = message_partner(gt, g.grid, g.block);
      for (uint32_t k = 0; k < g.per_thread; ++k) {
        const uint64_t e = uint64_t(k) * g.threads + gt, p = uint64_t(k) * g.threads + partner;
        prim::ordinary_store(data + e, message_value(e));
        // Send: the data must be visible before the flag.
        if constexpr (Fenced) prim::fence_device();
        prim::Retry w = make_retry(g);
        (void)A{}(flag + e, M(1), M(0), w);  // atomicExch(&flag[e], 1)
        // Receive: poll the partner's flag (a private, bounded Retry: a flag
        // that does not come is no hang), then acquire and read.
        prim::Retry poll;
        poll.budget = message_polls();
        poll.deadline_ns = g.deadline_ns;
        uint64_t got = 0;
        for (;;) {
          if (prim::plain_load(flag + p) != 0u) {
            prim::fence_device();
            got = kMessageSeen | prim::plain_load(data + p);
            break;
          }
          if (!poll.again()) break;
        }
        record(g, e, got, w);
      }
    });
  }
};

// ================================================== the "last block" reduction
// CUDA's threadFenceReduction sample: each block reduces its elements in
// shared memory, thread 0 stores the block's partial sum, fences, and takes
// a ticket with atomicInc(&count, grid); the block that gets the last
// ticket sums every block's partial and stores the total (and resets the
// count).  Fenced twice: the writer's fence before atomicInc, and an
// acquire fence before the last block reads the partials.  Memory: count,
// total, then grid partials (u32, wrapping sums).
template <class A, bool Fenced = true>
struct LastBlockSum {
  using Atomic = A;
  using M = uint32_t;
  static constexpr const char* family = "last_block";
  static constexpr const char* form = "sum.last_block";
  static constexpr bool gpu_only = false;

  template <class Ctx>
  AS_HD static void run(Ctx& c, const Args& g) {
    M* count = static_cast<M*>(g.mem);
    M* total = count + 1;
    M* partial = count + 2;
    M* s = reinterpret_cast<M*>(c.smem);  // block threads, then the "am last" flag
    auto tree = [&] {  // s[0] = s[0] + ... + s[block - 1]
      uint32_t half = 1;
      while (half < g.block) half <<= 1;
      for (half >>= 1; half > 0; half >>= 1) {
        c.each([&](uint32_t t) {
          if (t < half && t + half < g.block) s[t] = plus(s[t], s[t + half]);
        });
        c.sync();
      }
    };
    c.each([&](uint32_t t) { s[t] = thread_partial<M>(g, uint64_t(c.bid()) * g.block + t); });
    c.sync();
    tree();
    c.each([&](uint32_t t) {
      if (t != 0) return;
      prim::ordinary_store(partial + c.bid(), s[0]);
      // The partial must be visible before the ticket says it is there.
      if constexpr (Fenced) prim::fence_device();
      prim::Retry r = make_retry(g);
      const M ticket = A{}(count, M(g.grid), M(0), r);  // atomicInc(&count, grid)
      s[g.block] = ticket == g.grid - 1 ? 1u : 0u;
      record(g, uint64_t(c.bid()) * g.block, ticket, r);
    });
    c.sync();
    if (s[g.block] == 0u) return;  // the same for every thread of the block
    // Acquire: the other blocks' partials.  (CUDA's sample has only the
    // writer's fence; the unfenced twin drops both, so that its last block
    // reads the partials straight after the __syncthreads.)
    if constexpr (Fenced) prim::fence_device();
    c.each([&](uint32_t t) {
      M acc = 0;
      for (uint32_t b = t; b < g.grid; b += g.block) acc = plus(acc, prim::ordinary_load(partial + b));
      s[t] = acc;
    });
    c.sync();
    tree();
    c.each([&](uint32_t t) {
      if (t != 0) return;
      prim::ordinary_store(total, s[0]);
      prim::ordinary_store(count, M(0));
    });
  }
};

}  // namespace atomstress::algo
