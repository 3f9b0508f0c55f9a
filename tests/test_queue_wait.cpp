// Loops that are slow, not stuck.  A fair lock's waiter that sees its queue
// move (Args::queue_wait_ns; algorithms/program.cuh queue_live), and a
// compare-and-swap loop that sees its word change (prim::Retry::saw), may go
// on past the watchdog.  Found on two H200s: `fuzz --devices 0,1` called the
// correct ticket lock a HANG ("the spin lock was never acquired") at its
// 1309 ms watchdog under heavy stress, while other tickets were still being
// served; and one-lane fuzz on an H200 called a correct atomic_ref add of
// 210,180 ops on one word a HANG ("the loop does not terminate") at its
// 5203 ms watchdog, while the same case alone ran in 1.4 s.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "atomics_under_test/algorithms/program.cuh"
#include "harness/backend/backend.hpp"
#include "harness/pipeline/isolated.hpp"
#include "harness/pipeline/run_trial.hpp"
#include "harness/prim/call_scope.cuh"
#include "harness/registry/family.hpp"
#include "harness/registry/registry.hpp"
#include "harness/workload/workload.hpp"

using namespace atomstress;

namespace {

constexpr uint64_t kMs = 1000000;

// Arguments whose deadline is `watchdog_ms` from now (this thread's clock,
// as a cpu backend worker's) and whose waiters may wait `queue_ms` more.
Args waiting_args(uint64_t watchdog_ms, uint64_t queue_ms) {
  prim::set_host_interleave(0, false, 1);
  // The worker's clock as if it had run 5 stalls already (modular: no wrap).
  prim::host_interleave.cpu_start_ns -= 5 * kQueueStallNs;
  Args g;
  g.deadline_ns = prim::deadline_after_ms(prim::now_ns(), watchdog_ms);
  g.queue_wait_ns = queue_ms * kMs;
  g.budget = 100;
  return g;
}

TEST(QueueWait, AMovingQueueKeepsItsWaiterUpToTheCapAndTheRetryBudgetCountsFromTheMove) {
  const Args g = waiting_args(1, 4);  // the cap, 5 ms from now, comes before a stall (1 s)
  prim::Retry r = make_retry(g);
  r.count = 500;
  const uint64_t moved = queue_live(r, g);
  EXPECT_NE(moved, 0u);
  EXPECT_EQ(r.deadline_ns, g.deadline_ns + g.queue_wait_ns);
  EXPECT_EQ(r.budget, 600u);
  r.gave_up = 2;  // the watchdog fired at the cap, the queue moving until then
  EXPECT_EQ(queue_gave_up(r, moved), uint32_t(GaveUp::QueueTooSlow));
}

TEST(QueueWait, AQueueThatStopsMovingStillHangsAtAWatchdog) {
  const Args g = waiting_args(1, 100000);  // a cap far past a stall
  prim::Retry joined = make_retry(g);
  queue_live(joined, g);  // joined the queue: a stall's time to see it move
  EXPECT_GT(joined.deadline_ns, g.deadline_ns);
  EXPECT_LE(joined.deadline_ns, prim::now_ns() + kQueueStallNs);
  joined.gave_up = 2;  // never saw it move
  EXPECT_EQ(queue_gave_up(joined, 0), uint32_t(GaveUp::Watchdog));
  // Saw it move more than a stall ago: stuck since.
  EXPECT_EQ(queue_gave_up(joined, prim::now_ns() - 2 * kQueueStallNs), uint32_t(GaveUp::Watchdog));
  joined.gave_up = 1;  // its retry budget, since the last move
  EXPECT_EQ(queue_gave_up(joined, prim::now_ns()), uint32_t(GaveUp::Budget));
}

TEST(QueueWait, WithoutAnAllowanceAMoveChangesNothing) {
  const Args g = waiting_args(1, 0);
  prim::Retry r = make_retry(g);
  r.count = 500;
  EXPECT_EQ(queue_live(r, g), 0u);
  EXPECT_EQ(r.deadline_ns, g.deadline_ns);
  EXPECT_EQ(r.budget, 100u);
  r.gave_up = 2;
  EXPECT_EQ(queue_gave_up(r, 0), uint32_t(GaveUp::Watchdog));
}

TEST(QueueWait, EveryFamilyButKernelsLetsALiveLoopGoOnAndTheHostWaitsWithIt) {
  const Entry* ticket = find_impl("lock.ticket@native.add.u32");
  const Entry* textbook = find_impl("lock.textbook@native.cas.u32");
  const Entry* atomic = find_impl("cas.add.i32");
  ASSERT_TRUE(ticket && textbook && atomic);
  EXPECT_EQ(ticket->family->queue_wait_ms(*ticket, 1309), 4 * 1309u);
  // Any lock's waiter that sees its lock pass among others (Retry::lock_slot)
  // is slow, not stuck, as a ticket lock's is: the same four watchdogs.
  EXPECT_EQ(textbook->family->queue_wait_ms(*textbook, 1309), 4 * 1309u);
  EXPECT_EQ(atomic->family->queue_wait_ms(*atomic, 1309), 1309u);
  // (A user's kernel gets none: KernelEntries.NoLoopOfAKernelGoesOnPastItsWatchdog.)

  RunOptions opt;
  TrialSpec spec;
  spec.impl = ticket->name;
  spec.grid = 161;
  spec.block = 32;
  spec.ops_per_thread = 3;
  const TrialDeadline d = trial_deadline(spec, opt);
  EXPECT_EQ(d.watchdog_ms, effective_watchdog_ms(opt, spec.ops()));
  EXPECT_EQ(d.queue_ms, 4 * d.watchdog_ms);
  EXPECT_EQ(d.total_ms(), d.watchdog_ms + d.queue_ms + d.grace_ms);
  spec.impl = atomic->name;
  EXPECT_EQ(trial_deadline(spec, opt).queue_ms, d.watchdog_ms);
}

// A small trial of `impl` run on the cpu backend (one block of 4 threads, 2
// ops each), whose op #2 is then said to have given up `why`: the hang
// rule's words for it.
struct GaveUpAtOp2 {
  std::optional<Workload> w;
  std::optional<Setup> s;
  RunOptions opt;
  History h;
  explicit GaveUpAtOp2(const char* impl) {
    TrialSpec spec;
    spec.impl = impl;
    spec.grid = 1;
    spec.block = 4;
    spec.ops_per_thread = 2;
    std::string error;
    w = expand(spec, error);
    EXPECT_TRUE(w) << error;
    if (w) s = setup_trial(*w, error);
    EXPECT_TRUE(s) << error;
    opt.knobs.cpu_threads = 2;
    if (s) {
      EXPECT_TRUE(run_workload(*w, *s, BackendKind::Cpu, opt, h, error)) << error;
    }
    EXPECT_GE(h.gave_up.size(), 3u);
  }
  std::string judged(GaveUp why) {
    if (!s || h.gave_up.size() < 3) return "";
    History stopped = h;
    stopped.gave_up[2] = uint8_t(why);
    Outcome out;
    out.backend = BackendKind::Cpu;
    EXPECT_FALSE(judge_on_host(*w, *s, stopped, opt, out));
    EXPECT_EQ(out.verdict, Verdict::Hang);
    return out.finding.explanation;
  }
};

TEST(QueueWait, AWaiterOfAMovingQueueIsToldAsTooSlowNotAsALockNeverReleased) {
  GaveUpAtOp2 run("lock.ticket@native.add.u32");
  ASSERT_TRUE(run.w);
  const std::string slow = run.judged(GaveUp::QueueTooSlow);
  EXPECT_NE(slow.find("op #2 "), std::string::npos) << slow;
  EXPECT_NE(slow.find("still waiting in a queue that kept moving"), std::string::npos) << slow;
  EXPECT_NE(slow.find(std::to_string(effective_queue_wait_ms(run.opt, *run.w)) + " ms more"), std::string::npos) << slow;
  EXPECT_EQ(slow.find("never"), std::string::npos) << slow;
  const std::string stuck = run.judged(GaveUp::Watchdog);
  EXPECT_NE(stuck.find("never acquired"), std::string::npos) << stuck;
}

// A loop's Retry with its deadline just passed and `cap_ms` of allowance
// left (this thread's clock, as a cpu backend worker's).
prim::Retry past_deadline(uint64_t cap_ms) {
  prim::set_host_interleave(0, false, 1);
  prim::host_interleave.cpu_start_ns -= 5 * prim::kLiveStallNs;
  prim::Retry r;
  const uint64_t now = prim::now_ns();
  r.deadline_ns = now - 1;
  r.live_cap_ns = cap_ms ? now + cap_ms * kMs : 0;
  r.count = 63;  // the next again() checks the deadline
  return r;
}

TEST(LiveLoop, ACasLoopThatSawItsWordChangeGoesOnAStallAtATime) {
  prim::Retry r = past_deadline(100000);
  r.saw(7);
  r.saw(9);  // another op's success came between two of its attempts
  const uint64_t before = prim::now_ns();
  EXPECT_TRUE(r.again());
  EXPECT_EQ(r.gave_up, 0u);
  EXPECT_GE(r.deadline_ns, before + prim::kLiveStallNs);
  EXPECT_LE(r.deadline_ns, prim::now_ns() + prim::kLiveStallNs);
  EXPECT_EQ(r.moved, 0u);  // each check asks again
}

TEST(LiveLoop, ALoopWhoseWordStandsStillGivesUpAtItsDeadline) {
  prim::Retry r = past_deadline(100000);
  r.saw(7);
  r.saw(7);
  r.moved = 0;  // only the same word since the last check: a wrong compare, a NaN
  r.saw(7);
  EXPECT_FALSE(r.again());
  EXPECT_EQ(r.gave_up, uint32_t(GaveUp::Watchdog));
}

TEST(LiveLoop, ALoopStillMovingAtItsCapIsTooSlowNotStuck) {
  prim::Retry r = past_deadline(0);
  r.live_cap_ns = r.deadline_ns;  // the allowance is spent
  r.saw(1);
  r.saw(2);
  EXPECT_FALSE(r.again());
  EXPECT_EQ(r.gave_up, uint32_t(GaveUp::WordKeptMoving));
  EXPECT_TRUE(gave_up_by_itself(uint8_t(r.gave_up)));
}

TEST(LiveLoop, WithoutAnAllowanceAMovingWordChangesNothing) {
  prim::Retry r = past_deadline(0);  // a packed instance's loops: no allowance
  r.saw(1);
  r.saw(2);
  EXPECT_FALSE(r.again());
  EXPECT_EQ(r.gave_up, uint32_t(GaveUp::Watchdog));
}

TEST(LiveLoop, MakeRetryCapsALiveLoopAtTheWatchdogPlusTheAllowance) {
  Args g;
  g.deadline_ns = 1000;
  g.queue_wait_ns = 500;
  EXPECT_EQ(make_retry(g).live_cap_ns, 1500u);
  g.queue_wait_ns = 0;
  EXPECT_EQ(make_retry(g).live_cap_ns, 0u);
  g.queue_wait_ns = UINT64_MAX;  // saturates
  EXPECT_EQ(make_retry(g).live_cap_ns, UINT64_MAX);
}

// A lock's waiter sees its own word stand still (held) while the lock passes
// among others; each critical section stamps its lock's slot
// (prim::stamp_slot), and a waiter that finds its slot stamped within a
// stall goes on as a live loop does.  Found on an H200: a correct spin lock
// (examples/byo mylib.spin) of 11,184 ops under 121 stress blocks ran about
// 2 s alone, and every run was a HANG at its 1223 ms watchdog.
prim::RetryShared lock_passed_ago(uint32_t slot, uint64_t ago_ns) {
  prim::RetryShared s{};
  s.done_ns[slot * prim::kDoneStride] = prim::now_ns() - ago_ns;
  return s;
}

TEST(LiveLoop, ALockWaiterWhoseLockPassedWithinAStallGoesOn) {
  prim::Retry r = past_deadline(100000);
  prim::RetryShared shared = lock_passed_ago(prim::done_slot_of(37), prim::kLiveStallNs / 2);
  r.shared = &shared;
  r.lock_slot = 1 + prim::done_slot_of(37);
  r.saw(1);
  r.moved = 0;  // its word stood still: held by others
  const uint64_t before = prim::now_ns();
  EXPECT_TRUE(r.again());
  EXPECT_EQ(r.gave_up, 0u);
  EXPECT_GE(r.deadline_ns, before + prim::kLiveStallNs);
}

TEST(LiveLoop, ALockWaiterWhoseLockStoppedPassingGivesUpAtItsDeadline) {
  for (const uint64_t ago : {2 * prim::kLiveStallNs, uint64_t(0)}) {
    prim::Retry r = past_deadline(100000);
    prim::RetryShared shared = lock_passed_ago(prim::done_slot_of(5), 2 * prim::kLiveStallNs);
    if (ago == 0) shared = prim::RetryShared{};  // never passed: a lock never released
    r.shared = &shared;
    r.lock_slot = 1 + prim::done_slot_of(5);
    EXPECT_FALSE(r.again()) << ago;
    EXPECT_EQ(r.gave_up, uint32_t(GaveUp::Watchdog)) << ago;
  }
  // Another lock's slot passing does not keep it.
  prim::Retry r = past_deadline(100000);
  prim::RetryShared shared = lock_passed_ago(prim::done_slot_of(6), 0);
  r.shared = &shared;
  r.lock_slot = 1 + prim::done_slot_of(5);
  EXPECT_FALSE(r.again());
  EXPECT_EQ(r.gave_up, uint32_t(GaveUp::Watchdog));
}

TEST(LiveLoop, ALockWaiterStillSeeingItsLockPassAtTheCapIsTooSlowNotNeverAcquired) {
  prim::Retry r = past_deadline(0);
  r.live_cap_ns = r.deadline_ns;  // the allowance is spent
  prim::RetryShared shared = lock_passed_ago(prim::done_slot_of(2), 0);
  r.shared = &shared;
  r.lock_slot = 1 + prim::done_slot_of(2);
  EXPECT_FALSE(r.again());
  EXPECT_EQ(r.gave_up, uint32_t(GaveUp::WordKeptMoving));
  GaveUpAtOp2 run("lock.device@native.cas.u32");
  ASSERT_TRUE(run.w);
  const std::string why = run.judged(GaveUp::WordKeptMoving);
  EXPECT_NE(why.find("op #2 "), std::string::npos) << why;
  EXPECT_NE(why.find("waiting for a lock that kept passing among other ops"), std::string::npos) << why;
  EXPECT_NE(why.find("too slow for its deadline, not shown stuck"), std::string::npos) << why;
  EXPECT_EQ(why.find("never acquired"), std::string::npos) << why;
  EXPECT_EQ(why.find("word that kept changing"), std::string::npos) << why;
}

// A fair lock's waiter that polls (libcu++'s atomic_ref load, intercepted)
// and sees its queue move goes on past its deadline, as a live
// compare-and-swap loop does; once its polled value stands still through a
// check past the deadline, it is stopped there.
TEST(LiveLoop, AnInterceptedPollThatSawItsValueChangeGoesOnAndOneStandingStillStops) {
  prim::Retry r = past_deadline(100000);
  prim::CallScope scope{&r};
  prim::set_call_scope(&scope);
  uint64_t serving = 0;
  auto poll_256 = [&](bool moving) {
    for (int i = 0; i < 256; ++i) {
      prim::intercepted_saw(moving ? ++serving : serving);  // the load's value
      prim::intercepted_poll();                             // the next load: every 256th checks the deadline
    }
  };
  const uint64_t before = prim::now_ns();
  EXPECT_NO_THROW(poll_256(true));
  EXPECT_EQ(r.gave_up, 0u);
  EXPECT_GE(r.deadline_ns, before + prim::kLiveStallNs) << "the queue moved: a stall more";
  r.deadline_ns = prim::now_ns() - 1;  // that stall passed too
  EXPECT_THROW(poll_256(false), prim::LoopStopped);
  EXPECT_EQ(r.gave_up, uint32_t(GaveUp::Watchdog));
  prim::set_call_scope(nullptr);
}

// (The false HANG itself is timing: on the cpu backend, `check --impl
// cas.add.i32 --backend cpu --grid 4 --block 64 --ops-per-thread 16
// --watchdog-ms 4 --yield 1000 --cpu-threads 64 --pattern single` was a HANG
// "the loop does not terminate" and passes on an idle host, but a loaded
// one stretches any such run; device-suite's live-loops step replays the
// GPU's case, before and after.)

TEST(LiveLoop, ALiveLoopThatGaveUpIsToldAsTooSlowNotAsNeverEnding) {
  GaveUpAtOp2 run("cas.add.i32");
  ASSERT_TRUE(run.w);
  const std::string why = run.judged(GaveUp::WordKeptMoving);
  EXPECT_NE(why.find("op #2 "), std::string::npos) << why;
  EXPECT_NE(why.find("a word that kept changing"), std::string::npos) << why;
  EXPECT_NE(why.find(std::to_string(effective_queue_wait_ms(run.opt, *run.w)) + " ms more"), std::string::npos) << why;
  EXPECT_EQ(why.find("does not terminate"), std::string::npos) << why;
}

TEST(LiveLoop, ALoopTheStallWatchStoppedIsToldAsAStalledTrial) {
  GaveUpAtOp2 run("cas.add.i32");
  ASSERT_TRUE(run.w);
  Entry users = *run.w->impl;  // the watch is a user's atomic's (effective_stall_ms)
  users.user_code = true;
  run.w->impl = &users;
  const std::string why = run.judged(GaveUp::Stalled);
  EXPECT_NE(why.find("op #2 "), std::string::npos) << why;
  EXPECT_NE(why.find("no op of the trial had completed for " + std::to_string(kStallMs) + " ms while it ran"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("does not terminate"), std::string::npos) << why;
  EXPECT_EQ(why.find("watchdog"), std::string::npos) << why;
}

}  // namespace
