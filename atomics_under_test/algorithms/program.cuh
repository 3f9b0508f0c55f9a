// What a trial's device (or host) code gets, for single atomics and for the
// algorithms alike: one argument block and the per-element records.
// Element e = k * threads + t is the k-th operation (element) of global
// thread t.
#pragma once

#include <cstdint>

#include "harness/prim/prim.cuh"

namespace atomstress {

struct Args {
  uint64_t threads = 0;
  uint32_t per_thread = 0, block = 0, grid = 0;
  const uint32_t* key = nullptr;  // per element: address, accumulator, bin, lock, or keep flag
  const uint64_t* x = nullptr;    // per element: first operand (value) bits
  const uint64_t* y = nullptr;    // per element: second operand bits (single atomics)
  void* mem = nullptr;            // the trial's memory words
  uint32_t region_elems = 0;      // single atomics in shared memory: words per block
  uint32_t shared = 0;            // single atomics: 1 when the trial runs in shared memory
  uint32_t* out = nullptr;        // append: output slots
  uint64_t* old = nullptr;        // may be null (benchmarks): nothing recorded
  uint32_t* retries = nullptr;
  uint32_t* cycles = nullptr;     // may be null: no cycle counts
  uint8_t* gave = nullptr;
  prim::RetryShared* rs = nullptr;
  uint32_t budget = 1u << 20;
  uint64_t deadline_ns = 0;
  // How much longer than deadline_ns a loop that sees its queue (a ticket
  // lock's FIFO, queue_live) or its compare-and-swap's word
  // (prim::Retry::saw) keep moving may go on: such a loop is slow, not
  // stuck.  0: none.
  uint64_t queue_wait_ns = 0;
  uint32_t param = 0;             // per family: accumulators, bins or locks per block
  uint32_t stall_watch = 0;       // 1: each op that completes stamps rs (the stall watch, prim/retry.cuh)
};

// Set in History::gave_up when the op used a block-scope atomic.
inline constexpr uint8_t kBlockScopeBit = 0x80;

AS_HD AS_FI prim::Retry make_retry(const Args& g) {
  prim::Retry r;
  r.budget = g.budget;
  r.shared = g.rs;
  r.deadline_ns = g.deadline_ns;
  if (g.queue_wait_ns != 0 && g.deadline_ns != 0)
    r.live_cap_ns = g.deadline_ns > UINT64_MAX - g.queue_wait_ns ? UINT64_MAX : g.deadline_ns + g.queue_wait_ns;
  return r;
}
// A waiter that sees no movement of its queue for this long is stuck.
inline constexpr uint64_t kQueueStallNs = prim::kLiveStallNs;

// A loop waiting in a queue joined it, or saw it move (a ticket lock served
// another ticket): the queue is live, so the loop's deadline is
// kQueueStallNs from now (never past its live_cap_ns, deadline_ns +
// queue_wait_ns) and its retry budget counts from here.  A correct fair lock under heavy stress
// hands on slowly; only a queue that stops moving is a hang.  Returns the
// time it read (0: no allowance, nothing changed).
AS_HD AS_FI uint64_t queue_live(prim::Retry& r, const Args& g) {
  if (r.live_cap_ns == 0) return 0;  // no allowance (make_retry)
  const uint64_t now = prim::now_ns();
  const uint64_t stall = now > UINT64_MAX - kQueueStallNs ? UINT64_MAX : now + kQueueStallNs;
  const uint64_t until = stall < r.live_cap_ns ? stall : r.live_cap_ns;
  if (until > r.deadline_ns) r.deadline_ns = until;
  r.budget = r.count > UINT32_MAX - g.budget ? UINT32_MAX : r.count + g.budget;
  return now;
}
// The give-up code of a queue's waiter that last saw the queue move at
// `moved_ns` (0: never): a watchdog that fired while it was still moving
// (within kQueueStallNs) is QueueTooSlow (4), not a stall (2).
AS_HD AS_FI uint32_t queue_gave_up(const prim::Retry& r, uint64_t moved_ns) {
  if (r.gave_up != 2 || moved_ns == 0) return r.gave_up;
  return prim::now_ns() - moved_ns < kQueueStallNs ? 4u : 2u;
}

// What element e's loop did: retries and whether it gave up (for the runner's
// hang check) and, with record(), the value its atomic returned.
AS_HD AS_FI void record_retries(const Args& g, uint64_t e, const prim::Retry& r) {
  if (g.old == nullptr) return;
  g.retries[e] = r.count;
  g.gave[e] = static_cast<uint8_t>(r.gave_up | (r.block_scope ? kBlockScopeBit : 0u));
}
AS_HD AS_FI void record(const Args& g, uint64_t e, uint64_t old_bits, const prim::Retry& r) {
  if (g.old == nullptr) return;
  g.old[e] = old_bits;
  record_retries(g, e, r);
}

}  // namespace atomstress
