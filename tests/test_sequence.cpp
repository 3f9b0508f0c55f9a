// Pipelined sequences of trials (harness/pipeline/run_sequence.hpp): the
// outcomes, and their order, are those of run_trial one trial at a time,
// whether a trial is judged on its own thread (large) or in line (small);
// until_failure stops at the first failure.
#include <gtest/gtest.h>

#include <vector>

#include "harness/pipeline/run_sequence.hpp"

using namespace atomstress;

namespace {

TrialSpec spec_of(const char* impl, uint32_t grid, uint32_t block, uint32_t ops, uint64_t seed) {
  TrialSpec s;
  s.impl = impl;
  s.grid = grid;
  s.block = block;
  s.ops_per_thread = ops;
  s.pattern = Pattern::Uniform;
  s.k = 64;
  s.seed = seed;
  return s;
}

// Large trials (judged on the judging thread) and small ones (in line),
// passing and failing, and one that is refused.
std::vector<TrialSpec> mixed_specs() {
  std::vector<TrialSpec> v;
  for (uint64_t i = 0; i < 4; ++i) {
    v.push_back(spec_of("native.add.i32", 4, 64, 32, i));          // 8192 ops: overlapped
    v.push_back(spec_of("cas.max.f32", 2, 32, 1, 10 + i));          // 64 ops: in line
    v.push_back(spec_of("buggy.returns_new.add.f32", 4, 64, 32, i));  // fails, every time
  }
  v.push_back(spec_of("no.such.entry", 1, 1, 1, 0));  // Error
  v.push_back(spec_of("sum.block@native.add.u32", 3, 64, 24, 7));
  return v;
}

RunOptions cpu_options() {
  RunOptions o;
  o.knobs.cpu_threads = 4;
  o.knobs.yield_permille = 20;
  return o;
}

}  // namespace

TEST(Sequence, GivesRunTrialsOutcomesInOrder) {
  const auto specs = mixed_specs();
  ASSERT_GE(uint64_t(specs[0].ops()), kOverlapMinOps);
  ASSERT_LT(uint64_t(specs[1].ops()), kOverlapMinOps);
  std::vector<Outcome> got;
  const SequenceStats stats = run_trial_sequence(specs, {BackendKind::Cpu, cpu_options(), 0, false},
                                                 [&](Outcome&& o) { got.push_back(std::move(o)); });
  ASSERT_EQ(got.size(), specs.size());
  EXPECT_EQ(stats.reported, specs.size());
  EXPECT_FALSE(stats.context_lost);
  size_t failed = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    // The cpu backend's interleavings differ from run to run, so the
    // comparison is of what is deterministic: verdict, spec, ops, and the
    // kind of finding; a pass is a pass either way.
    const Outcome alone = run_trial(specs[i], BackendKind::Cpu, cpu_options());
    EXPECT_EQ(got[i].spec, specs[i]) << i;
    EXPECT_EQ(got[i].ops, alone.ops) << i;
    EXPECT_EQ(got[i].verdict, alone.verdict) << i << ": " << got[i].why() << " / " << alone.why();
    EXPECT_EQ(got[i].finding.kind, alone.finding.kind) << i;
    if (got[i].verdict == Verdict::Fail) ++failed;
  }
  EXPECT_EQ(failed, 4u);
  EXPECT_EQ(got[12].verdict, Verdict::Error);
  EXPECT_EQ(got[13].verdict, Verdict::Pass) << got[13].why();
  EXPECT_GE(stats.overlapped_ms, 0.0);
}

TEST(Sequence, UntilFailureStopsAtTheFirstFailure) {
  const auto specs = mixed_specs();
  std::vector<Outcome> got;
  std::vector<size_t> running, ran;
  const SequenceProgress progress{[&](size_t i) { running.push_back(i); }, [&](size_t i) { ran.push_back(i); }};
  const SequenceStats stats = run_trial_sequence(specs, {BackendKind::Cpu, cpu_options(), 0, true},
                                                 [&](Outcome&& o) { got.push_back(std::move(o)); }, progress);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(stats.reported, 3u);
  EXPECT_EQ(got[0].verdict, Verdict::Pass) << got[0].why();
  EXPECT_EQ(got[1].verdict, Verdict::Pass) << got[1].why();
  EXPECT_EQ(got[2].verdict, Verdict::Fail);
  EXPECT_EQ(got[2].spec, specs[2]);
  // Progress comes in order, each run's start before its end; at most one
  // trial past the failure was run.
  EXPECT_EQ(running, ran);
  ASSERT_GE(running.size(), 3u);
  EXPECT_LE(running.size(), 4u);
  for (size_t i = 0; i < running.size(); ++i) EXPECT_EQ(running[i], i);
}

TEST(Sequence, AnEmptySequenceReportsNothing) {
  size_t calls = 0;
  const SequenceStats stats =
      run_trial_sequence({}, {BackendKind::Cpu, cpu_options(), 0, true}, [&](Outcome&&) { ++calls; });
  EXPECT_EQ(calls, 0u);
  EXPECT_EQ(stats.reported, 0u);
}

TEST(Sequence, JudgesOnThePoolOnlyWhereTheCheckIsARealShareOfATrial) {
  EXPECT_TRUE(worth_overlapping(-1, -1));  // nothing known yet
  EXPECT_TRUE(worth_overlapping(-1, 20));
  EXPECT_TRUE(worth_overlapping(50, 1));   // a long check: hide it
  EXPECT_TRUE(worth_overlapping(5, 20));   // a quarter
  EXPECT_FALSE(worth_overlapping(4.9, 20));
  EXPECT_FALSE(worth_overlapping(0, 20));
}
