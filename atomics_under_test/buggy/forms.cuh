// Deliberately broken algorithms: the mistakes people make with atomics in
// real code.  Each is a correct algorithm with one thing wrong, and says in
// `bug` what is wrong.  Each is registered with one atomic
// (harness/catalogue/buggy.cu), not paired automatically.
#pragma once

#include "atomics_under_test/algorithms/forms.cuh"

namespace atomstress::buggy {

// Reads the counter, writes its slot, then reserves: two threads that read
// the same count write the same slot, and a slot is left empty.
template <class A>
struct AppendWriteFirst : algo::Append<A, true> {
  static constexpr const char* form = "buggy.append.write_first";
  static constexpr const char* bug = "writes out[count] before reserving the slot with the atomic: "
                                     "concurrent appends overwrite one slot and leave holes";
};

// A warp-aggregated append that broadcasts the base from lane 0, which is
// the leader only when lane 0 votes.
template <class A>
struct AppendWarpAggLane0 : algo::AppendWarpAgg<A, true> {
  static constexpr const char* form = "buggy.append.warp_agg_lane0";
  static constexpr const char* bug = "shuffles the reserved base from lane 0 instead of from the leader "
                                     "(the lowest voting lane): wrong slots whenever lane 0 does not vote";
  static constexpr bool needs_gpu = true;
};

// The shared-memory tree reduction with no __syncthreads() between steps.
template <class A>
struct SumBlockNoSync : algo::Sum<A, algo::SumForm::Block, false> {
  static constexpr const char* form = "buggy.sum.block_nosync";
  static constexpr const char* bug = "block reduction without __syncthreads() between tree steps: a warp "
                                     "reads partial sums another warp has not written yet";
  static constexpr bool needs_gpu = true;  // the cpu backend runs a block's threads in lockstep
};

// Privatised histogram that merges shared bins before every thread of the
// block has finished counting.
template <class A>
struct HistSharedNoSync : algo::Histogram<A, true, false> {
  static constexpr const char* form = "buggy.hist.shared_nosync";
  static constexpr const char* bug = "no __syncthreads() between counting into shared bins and merging them: "
                                     "counts made after a bin was merged are lost";
  static constexpr bool needs_gpu = true;
};

// Argmax CAS loop whose tie test lets any equal value replace the winner.
template <class A>
struct ArgMaxTieLast : algo::ArgBest<A, true, true, true> {
  static constexpr const char* form = "buggy.argmax.tie_any";
  static constexpr const char* bug = "the CAS loop replaces the winner on any tie, not only by a lower index: "
                                     "the index of a tied maximum depends on timing";
};

// A spin lock with no __threadfence() around the critical section and a
// release by a plain store.  Under the PTX memory model the protected data
// race; on a given GPU the loss may be rare or never seen: the harness
// reports the observed rate rather than demanding a failure.
template <class A>
struct LockUnfenced : algo::Lock<A, false, false> {
  static constexpr const char* form = "buggy.lock.unfenced";
  static constexpr const char* bug = "no __threadfence() in acquire or release and a plain store to release: "
                                     "the protected update may be seen out of order (a data race)";
  static constexpr bool rate_only = true;
  static constexpr bool weak_memory = true;
};

}  // namespace atomstress::buggy
