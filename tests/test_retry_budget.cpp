// The retry budget a trial's loops get (backend.hpp effective_retry_budget):
// one thread alone gets kLoneThreadRetryBudget, more threads the knob's.
// Run end to end on the cpu backend with a loop that never ends on NaN
// (buggy.float_compare.add.f32: it compares floats, and NaN != NaN).
#include <gtest/gtest.h>

#include <string>

#include "harness/backend/backend.hpp"
#include "properties/properties.hpp"

using namespace atomstress;

namespace {

TrialSpec nan_loop(uint32_t grid, uint32_t block) {
  TrialSpec s;
  s.impl = "buggy.float_compare.add.f32";
  s.grid = grid;
  s.block = block;
  s.ops_per_thread = 8;
  s.pattern = Pattern::Single;
  s.k = 1;
  s.special_permille = 1000;  // every operand special: NaN among them
  s.init = Init::Zero;
  return s;
}

// The first seed whose trial hangs (specials drawn at random: some seeds draw no NaN).
properties::Evaluation first_hang(TrialSpec s, const RunOptions& run) {
  properties::Evaluation ev;
  for (s.seed = 0; s.seed < 64; ++s.seed) {
    ev = properties::evaluate(s, BackendKind::Cpu, run, 1);
    if (ev.verdict == Verdict::Hang) return ev;
  }
  ADD_FAILURE() << "no seed of 64 drew a NaN into the float-compare loop";
  return ev;
}

TEST(RetryBudget, OneThreadAloneGetsTheSmallBudgetMoreThreadsTheKnobs) {
  RunOptions run;
  TrialSpec one = nan_loop(1, 1), two = nan_loop(1, 2);
  EXPECT_EQ(effective_retry_budget(run, one), kLoneThreadRetryBudget);
  EXPECT_EQ(effective_retry_budget(run, two), run.knobs.retry_budget);
  run.policy.sequential = true;  // the diagnosis replay runs every op in one thread
  EXPECT_EQ(effective_retry_budget(run, two), kLoneThreadRetryBudget);
  run.policy.sequential = false;
  run.knobs.retry_budget = 100;  // a smaller knob wins
  EXPECT_EQ(effective_retry_budget(run, one), 100u);
}

TEST(RetryBudget, ALoneThreadsEndlessLoopIsAHangAtTheSmallBudget) {
  RunOptions run;
  run.knobs.cpu_threads = 2;
  const auto alone = first_hang(nan_loop(1, 1), run);
  EXPECT_NE(alone.why.find("exceeded its retry budget of " + std::to_string(kLoneThreadRetryBudget)),
            std::string::npos) << alone.why;
  const auto two = first_hang(nan_loop(1, 2), run);
  EXPECT_NE(two.why.find("exceeded its retry budget of " + std::to_string(run.knobs.retry_budget)),
            std::string::npos) << two.why;
}

// fuzz --jobs N puts N lanes on one GPU, which time-slices their kernels:
// each lane's watchdogs are N times longer (ExecutionPolicy::gpu_share).
// Found on an H100: three lanes, and a correct CAS add cut short at its
// one-lane watchdog (a false HANG).
TEST(RetryBudget, ASharedGpuLengthensEveryWatchdog) {
  RunOptions run;
  const uint64_t alone = effective_watchdog_ms(run, 50000);
  EXPECT_EQ(alone, 2000u);  // 1 s + 20 us an op
  run.policy.gpu_share = 3;
  EXPECT_EQ(effective_watchdog_ms(run, 50000), 3 * alone);
  run.knobs.watchdog_ms = 500;  // a given watchdog too
  EXPECT_EQ(effective_watchdog_ms(run, 50000), 1500u);
  run.policy.gpu_share = 0;  // never shorter
  EXPECT_EQ(effective_watchdog_ms(run, 50000), 500u);
}

// A histogram over a CAS-loop add, every element on one bin, whose loops
// give up at their first retry (a retry budget of 0): the run is cut short.
TrialSpec cut_short_histogram(const char* impl, uint64_t seed) {
  TrialSpec s;
  s.impl = impl;
  s.grid = 64;  // 64 merges of the shared form into one global bin
  s.block = 32;
  s.ops_per_thread = 2;
  s.pattern = Pattern::Single;
  s.k = 1;
  s.init = Init::Zero;
  s.seed = seed;
  return s;
}

// Until one of 64 seeds' runs gave up (a loop retried): its evaluation.
properties::Evaluation first_not_passing(const char* impl) {
  RunOptions run;
  run.knobs.cpu_threads = 2;
  run.knobs.retry_budget = 0;
  run.knobs.yield_permille = 1000;  // a yield at every interleaving point: loops race, and retry
  properties::Evaluation ev;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    ev = properties::evaluate(cut_short_histogram(impl, seed), BackendKind::Cpu, run, 1);
    if (ev.verdict != Verdict::Pass) return ev;
  }
  ADD_FAILURE() << impl << ": no loop retried in 64 seeds";
  return ev;
}

// A loop that gave up drops its increment: that is a hang (the run was cut
// short), never a histogram that lost increments.  The histogram's element
// loops once recorded no give-up, and a CAS histogram cut short by its
// watchdog read as "N increments lost" (found on an H100 beside other work).
TEST(RetryBudget, AHistogramWhoseLoopsGaveUpIsAHangNotLostIncrements) {
  const auto global = first_not_passing("hist.global@cas.add.i32");
  EXPECT_EQ(global.verdict, Verdict::Hang) << global.why;
  EXPECT_NE(global.why.find("exceeded its retry budget of 0"), std::string::npos) << global.why;
  EXPECT_EQ(global.why.find("lost"), std::string::npos) << global.why;
}

TEST(RetryBudget, ASharedHistogramsMergeThatGaveUpIsAHang) {
  // The shared form's elements count in their block's shared bins (one host
  // worker a block: no retry there); its merges into the one global bin
  // contend, and a merge belongs to no element: its give-up is seen through
  // the run's abort flag (History::loop_stopped).
  const auto merged = first_not_passing("hist.shared@cas.add.i32");
  EXPECT_EQ(merged.verdict, Verdict::Hang) << merged.why;
  EXPECT_NE(merged.why.find("belongs to no op"), std::string::npos) << merged.why;
  EXPECT_EQ(merged.why.find("lost"), std::string::npos) << merged.why;
}

}  // namespace
