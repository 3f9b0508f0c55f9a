// The stall watch (prim/retry.cuh, effective_stall_ms): a loop that, running
// all along, sees no op of its trial complete for the window gives up as
// Stalled long before the watchdog.  The GPU's case (examples/byo's loops
// that never end, found in a fraction of a second instead of the watchdog's
// 1.7 s twice over) is the device suite's; here, the rule on made-up clocks,
// its check in a user's intercepted calls, and which trials it watches.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "harness/backend/backend.hpp"
#include "harness/prim/call_scope.cuh"
#include "harness/prim/retry.cuh"
#include "harness/registry/registry.hpp"
#include "harness/workload/workload.hpp"

using namespace atomstress;

namespace {

constexpr uint64_t kWindow = 1000;  // made-up nanoseconds

struct Watched {
  prim::RetryShared shared{};
  prim::Retry r;
  Watched() {
    shared.stall_ns = kWindow;
    r.shared = &shared;
  }
  // Checks at `from`, `from + step`, ... up to `to`; the time it gave up (0: never).
  uint64_t checks(uint64_t from, uint64_t to, uint64_t step) {
    for (uint64_t t = from; t <= to; t += step) {
      r.watch_stall(t);
      if (r.gave_up != 0) return t;
    }
    return 0;
  }
  void completed_at(uint64_t t, uint64_t op) { shared.done_ns[(op >> 5) % prim::kDoneSlots * prim::kDoneStride] = t; }
};

TEST(StallWatch, ALoopThatSeesNoOpCompleteForTheWindowGivesUpThenAndNotBefore) {
  Watched w;
  w.completed_at(50, 0);  // before the loop began to watch: not progress it saw
  EXPECT_EQ(w.checks(100, 100 + kWindow - 10, 10), 0u);
  EXPECT_EQ(w.r.gave_up, 0u);
  EXPECT_EQ(w.checks(100 + kWindow, 100 + kWindow, 10), 100 + kWindow);
  EXPECT_EQ(w.r.gave_up, uint32_t(GaveUp::Stalled));
}

TEST(StallWatch, AnOpCompletingAnywhereInTheTrialKeepsTheLoopGoing) {
  Watched w;
  // A lock's waiter: its own word stands still, but every so often another
  // op (in any slot) completes.
  uint64_t t = 100;
  for (uint64_t op = 0; op < 64 * 32; op += 32, t += kWindow / 2) {
    w.completed_at(t, op);
    EXPECT_EQ(w.checks(t, t + kWindow / 2 - 10, 10), 0u) << "at " << t;
  }
  EXPECT_EQ(w.r.gave_up, 0u);
  // Then nothing completes: a window after the last completion, it gives up.
  const uint64_t last = t - kWindow / 2;
  const uint64_t at = w.checks(t, t + 2 * kWindow, 10);
  EXPECT_GE(at, last + kWindow);
  EXPECT_LE(at, last + kWindow + 20);
  EXPECT_EQ(w.r.gave_up, uint32_t(GaveUp::Stalled));
}

TEST(StallWatch, AStampThatReadsAheadOfThisClockIsProgressNotAWrap) {
  Watched w;
  EXPECT_EQ(w.checks(1000, 1000 + kWindow - 10, 10), 0u);
  w.completed_at(1000 + kWindow + 5, 7);  // another SM's clock, a little ahead
  EXPECT_EQ(w.checks(1000 + kWindow, 1000 + 2 * kWindow, 10), 0u);
  EXPECT_EQ(w.r.gave_up, 0u);
}

TEST(StallWatch, TimeTheLoopDidNotRunNeverCounts) {
  // A gap of over a quarter window between two checks (the context switched
  // out, or slow retries) starts the window again at the later check.
  Watched w;
  EXPECT_EQ(w.checks(0 + 1, kWindow / 2, 10), 0u);
  const uint64_t back = kWindow / 2 + kWindow / 4 + 20;  // after a gap
  EXPECT_EQ(w.checks(back, back + kWindow - 10, 10), 0u);
  EXPECT_EQ(w.checks(back + kWindow, back + kWindow, 10), back + kWindow);
  // Checks always further apart than that never give up.
  Watched slow;
  EXPECT_EQ(slow.checks(1, 100 * kWindow, kWindow / 4 + 1), 0u);
  EXPECT_EQ(slow.r.gave_up, 0u);
}

TEST(StallWatch, OnlyTheUsersInterceptedCallsWatchAndOnlyWithAWindow) {
  prim::RetryShared shared{};  // stall_ns 0: the cpu backend, packs, every trial it does not watch
  prim::Retry r;
  r.shared = &shared;
  EXPECT_TRUE(r.progressing());
  EXPECT_EQ(r.watched_at, 0u) << "not watched: no clock read";
  // The built-in loops' own check never watches (inlined into every loop,
  // the watch took their registers): check_stop with a window set.
  shared.stall_ns = 1;
  for (int i = 0; i < 1000; ++i) r.check_stop();
  EXPECT_EQ(r.gave_up, 0u);
  EXPECT_EQ(r.watched_at, 0u);
}

// A user's compare-and-swap loop that never succeeds, in a trial where no op
// completes: its intercepted calls check the watch every 64 retries and stop
// it as Stalled (on the host the stop throws), the other loops asked to stop.
TEST(StallWatch, AUsersLoopIsStoppedThroughItsInterceptedCalls) {
  prim::set_host_interleave(0, false, 1);  // this thread's clock from now (host_now_ns)
  prim::RetryShared shared{};
  shared.stall_ns = 200000;  // 0.2 ms of this thread's CPU time
  prim::Retry r;
  r.shared = &shared;
  r.budget = UINT32_MAX;
  prim::CallScope scope{&r};
  prim::set_call_scope(&scope);
  uint64_t calls = 0;
  EXPECT_THROW(
      while (true) {
        ++calls;
        if (prim::intercepted_cas_call(false) != prim::CasCall::Run) break;
      },
      prim::LoopStopped);
  prim::set_call_scope(nullptr);
  EXPECT_EQ(r.gave_up, uint32_t(GaveUp::Stalled)) << calls << " calls";
  EXPECT_TRUE(prim::abort_requested(&shared));
  EXPECT_LT(r.count, r.budget);
}

// A loop that gave up and was released (prim::intercepted_cas_call) may
// call again; its own abort request must not turn its reason into another's
// (Aborted), or the trial would have no loop that stopped by itself.
TEST(StallWatch, ALoopThatGaveUpKeepsItsReasonWhenItsReleasedCodeCallsAgain) {
  for (uint32_t why : {uint32_t(GaveUp::Stalled), uint32_t(GaveUp::Watchdog)}) {
    prim::RetryShared shared{};
    prim::Retry r;
    r.shared = &shared;
    r.gave_up = why;
    prim::request_abort(&shared);
    for (int i = 0; i < 200; ++i) EXPECT_FALSE(r.again());
    EXPECT_EQ(r.gave_up, why);
  }
}

std::optional<Workload> workload_of(const char* impl) {
  TrialSpec spec;
  spec.impl = impl;
  spec.grid = 1;
  spec.block = 4;
  spec.ops_per_thread = 1;
  std::string error;
  auto w = expand(spec, error);
  EXPECT_TRUE(w) << impl << ": " << error;
  return w;
}

TEST(StallWatch, ItWatchesAUsersSingleAtomicWithTheAutomaticWatchdogOnly) {
  RunOptions opt;
  const auto cas = workload_of("cas.add.i32");
  const auto algo = workload_of("sum.element@cas.add.i32");
  ASSERT_TRUE(cas && algo);
  // A user's atomic (the registry's flag; the test binary registers none).
  Entry users = *cas->impl;
  users.user_code = true;
  Workload user = *cas;
  user.impl = &users;
  EXPECT_EQ(effective_stall_ms(opt, user), kStallMs);
  EXPECT_EQ(effective_stall_ms(opt, *cas), 0u) << "the catalogue's loops are not watched";
  EXPECT_EQ(effective_stall_ms(opt, *algo), 0u) << "an algorithm's waiters may wait on steps that are no op";
  Entry users_algo = *algo->impl;
  users_algo.user_code = true;
  Workload user_algo = *algo;
  user_algo.impl = &users_algo;
  EXPECT_EQ(effective_stall_ms(opt, user_algo), 0u);
  RunOptions shared = opt;
  shared.policy.gpu_share = 3;
  EXPECT_EQ(effective_stall_ms(shared, user), 3 * kStallMs);
  RunOptions explicit_watchdog = opt;
  explicit_watchdog.knobs.watchdog_ms = 60000;
  EXPECT_EQ(effective_stall_ms(explicit_watchdog, user), 0u) << "a watchdog the user chose is the only time bound";
  RunOptions sanitized = opt;
  sanitized.policy.sanitize = SanitizeTool::Memcheck;
  EXPECT_EQ(effective_stall_ms(sanitized, user), 0u);
  RunOptions timing = opt;
  timing.timing.bench_reps = 5;
  EXPECT_EQ(effective_stall_ms(timing, user), 0u) << "profile's timed launches record nothing";
  EXPECT_LT(kStallMs, effective_watchdog_ms(opt, 1)) << "the watch must come before the watchdog";
}

}  // namespace
