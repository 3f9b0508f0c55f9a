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

}  // namespace
