// Weak-memory bugs: each is a correct idiom of algorithms/weak_memory.cuh
// (its twin in the catalogue) with the one fence people leave out.  Under
// the PTX memory model each is a data race; on a given GPU it shows rarely
// or only under stress (TrialSpec::stress), so each is `needs_gpu` (the cpu
// backend's host threads are sequentially consistent at its fences) and its
// failure rate, with and without stress, is what selftest reports.
#pragma once

#include "atomics_under_test/algorithms/weak_memory.cuh"

namespace atomstress::buggy {

// The spin lock of a well-known CUDA textbook: atomicCAS to acquire,
// atomicExch to release, a plain read-modify-write in between, and no
// __threadfence() (nor volatile) anywhere.  Atomics order nothing but
// themselves: the counter's store may land after the release, and the next
// holder's load may be served before its acquire.
template <class A>
struct LockTextbook : algo::WeakLock<A, algo::WeakLockShape::Textbook, false> {
  static constexpr const char* form = "buggy.lock.textbook";
  static constexpr const char* bug = "atomicCAS/atomicExch spin lock with no __threadfence(): the protected "
                                     "load and store are not ordered with the lock (lost updates)";
  static constexpr bool needs_gpu = true;
  static constexpr bool weak_memory = true;
};

// A lock whose release is fenced, but whose acquire is not, and whose
// critical section reads the data through the L1 cache (__ldca; a plain
// pointer may compile to the same): the SM's L1 may still hold the line
// from before another SM's critical section.
template <class A>
struct LockL1Stale : algo::WeakLock<A, algo::WeakLockShape::L1Cached, false> {
  static constexpr const char* form = "buggy.lock.l1_stale";
  static constexpr const char* bug = "no __threadfence() after acquiring, and the protected data read through "
                                     "the L1 cache (__ldca): a stale line from before another SM's update";
  static constexpr bool needs_gpu = true;
  static constexpr bool weak_memory = true;
  // Its rate is the lowest of the weak-memory bugs (docs/design.md):
  // reported by its rate, not counted as a catch, so that a campaign
  // that misses it by chance does not fail the mutation score.
  static constexpr bool rate_only = true;
};

// A ticket lock that serves the next ticket without fencing first: the next
// holder may take the lock before this holder's data store is visible.
template <class A>
struct TicketLockNoReleaseFence : algo::WeakLock<A, algo::WeakLockShape::Ticket, false> {
  static constexpr const char* form = "buggy.lock.ticket_nofence";
  static constexpr const char* bug = "ticket lock released (serving++) with no __threadfence() before it: the "
                                     "next holder may read the data before this holder's store";
  static constexpr bool needs_gpu = true;
  static constexpr bool weak_memory = true;
};

// Message passing with the flag raised by atomicExch straight after the
// data store: "the atomic publishes it" is the mistake, since a relaxed
// atomic orders nothing before it.
template <class A>
struct MessageNoFence : algo::MessagePassing<A, false> {
  static constexpr const char* form = "buggy.message.nofence";
  static constexpr const char* bug = "data written, then atomicExch(&flag, 1) with no __threadfence() between: "
                                     "a reader that sees the flag may read the old data";
  static constexpr bool needs_gpu = true;
  static constexpr bool weak_memory = true;
};

// threadFenceReduction as people write it from the sample minus its
// __threadfence(): no fence at all, neither the writer's before atomicInc
// (the sample's own comment warns that the last block may otherwise read
// partial sums not yet visible) nor an acquire fence in the last block, which
// reads the partials straight after the __syncthreads that tells it it is last.
template <class A>
struct LastBlockNoFence : algo::LastBlockSum<A, false> {
  static constexpr const char* form = "buggy.sum.last_block_nofence";
  static constexpr const char* bug = "\"last block\" reduction with no fence: no __threadfence() between storing "
                                     "the block's partial sum and atomicInc on the block counter, and none before "
                                     "the last block reads the partials: it may sum a partial that is not visible yet";
  static constexpr bool needs_gpu = true;
  static constexpr bool weak_memory = true;
  // Both fences are missing: with the writer's alone missing it never showed.
  // Reported by its rate, not counted as a catch: the campaign needs most of
  // its per-bug budget to find it (docs/design.md).
  static constexpr bool rate_only = true;
};

}  // namespace atomstress::buggy
