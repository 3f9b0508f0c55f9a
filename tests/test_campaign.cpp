// A fuzz campaign's rounds run several specs at once (CampaignConfig::at_once,
// fuzz --trials-at-once) against the same campaign run one spec after
// another, on the cpu backend in this process: the same specs in the same
// order, and only what a trial does alone is a verdict.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "fuzz/at_once_ramp.hpp"
#include "fuzz/campaign.hpp"
#include "harness/support/busy_time.hpp"
#include "harness/registry/registry.hpp"

namespace {

using namespace atomstress;

// Runs each trial in this process as it starts, and ends those in flight in
// a random order; `spoil` may turn a trial's outcome into what a neighbour
// could cause (a Fail, or lost).
class InProcessTrials final : public ConcurrentTrials {
 public:
  using Spoil = std::function<std::optional<Outcome>(Outcome)>;
  InProcessTrials(size_t capacity, RunOptions opt, Spoil spoil = nullptr)
      : capacity_(capacity), opt_(std::move(opt)), spoil_(std::move(spoil)) {}
  size_t capacity() const override { return capacity_; }
  void start(size_t ticket, const TrialSpec& spec) override {
    EXPECT_LT(flight_.size(), capacity_);
    Outcome out = run_trial(spec, BackendKind::Cpu, opt_);
    flight_.push_back({ticket, spoil_ ? spoil_(std::move(out)) : std::optional<Outcome>(std::move(out))});
    most = std::max(most, flight_.size());
    ++started;
  }
  std::vector<Ended> collect() override {
    std::shuffle(flight_.begin(), flight_.end(), rng_);
    const size_t n = 1 + rng_() % flight_.size();
    std::vector<Ended> ended(std::make_move_iterator(flight_.begin()), std::make_move_iterator(flight_.begin() + n));
    flight_.erase(flight_.begin(), flight_.begin() + n);
    return ended;
  }
  size_t most = 0, started = 0;

 private:
  size_t capacity_;
  RunOptions opt_;
  Spoil spoil_;
  std::mt19937 rng_{7};
  std::vector<Ended> flight_;
};

RunOptions in_process() {
  RunOptions opt;
  opt.policy.isolate = false;
  return opt;
}

fuzz::CampaignConfig campaign_of(const char* impl, uint64_t max_specs) {
  fuzz::CampaignConfig cfg;
  const Entry* e = find_impl(impl);
  EXPECT_NE(e, nullptr) << impl;
  cfg.gen = properties::default_config(BackendKind::Cpu, {e});
  cfg.gen.max_ops = 512;  // small trials: the test is about order, not load
  cfg.run = in_process();
  cfg.budget_s = 120;     // max_specs ends it, not the clock
  cfg.max_specs = max_specs;
  cfg.seed = 11;
  return cfg;
}

using Evaluations = std::vector<std::pair<uint64_t, uint64_t>>;  // (runs, ops) per spec, in order

TEST(CampaignAtOnce, ARoundAtOnceEvaluatesTheSpecsOneAfterAnotherWouldInTheirOrder) {
  fuzz::CampaignConfig cfg = campaign_of("native.add.i32", 45);  // three rounds, the last a partial one
  Evaluations one_by_one, at_once;
  cfg.on_evaluated = [&](uint64_t runs, uint64_t ops) { one_by_one.emplace_back(runs, ops); };
  const auto a = fuzz::run_campaign(cfg);
  InProcessTrials runner(3, in_process());
  cfg.at_once = &runner;
  cfg.on_evaluated = [&](uint64_t runs, uint64_t ops) { at_once.emplace_back(runs, ops); };
  const auto b = fuzz::run_campaign(cfg);
  EXPECT_FALSE(a.found);
  EXPECT_FALSE(b.found);
  EXPECT_EQ(one_by_one.size(), 45u);
  EXPECT_EQ(at_once, one_by_one) << "the same specs (by their ops), each run --reruns times, in the same order";
  EXPECT_EQ(b.specs, a.specs);
  EXPECT_EQ(b.runs, a.runs);
  EXPECT_EQ(b.ops, a.ops);
  EXPECT_EQ(runner.most, 3u) << "trials were in flight at once";
  EXPECT_EQ(runner.started, b.runs);
}

TEST(CampaignAtOnce, AFailureBesideOthersIsNotAVerdictUntilItFailsAlone) {
  // A correct entry whose trials come back failed or lost beside others (a
  // neighbour's stray write, a trap that ended the context): each runs again
  // alone, passes, and nothing is found.
  fuzz::CampaignConfig cfg = campaign_of("native.add.i32", 20);
  size_t spoiled = 0;
  InProcessTrials runner(4, in_process(), [&](Outcome out) -> std::optional<Outcome> {
    if (++spoiled % 3 == 1) return std::nullopt;  // lost
    if (spoiled % 3 == 2) {
      out.verdict = Verdict::Fail;
      out.finding.explanation = "a neighbour's stray write";
    }
    return out;
  });
  cfg.at_once = &runner;
  const auto r = fuzz::run_campaign(cfg);
  EXPECT_GT(spoiled, 10u);
  EXPECT_FALSE(r.found) << r.why;
  EXPECT_EQ(r.specs, 20u);
}

TEST(CampaignAtOnce, ABugFoundAtOnceIsShrunkFromItsSpecAsOneAfterAnotherShrinksIt) {
  fuzz::CampaignConfig cfg = campaign_of("buggy.inc_gt.u32", 200);
  const auto a = fuzz::run_campaign(cfg);
  InProcessTrials runner(3, in_process());
  cfg.at_once = &runner;
  const auto b = fuzz::run_campaign(cfg);
  ASSERT_TRUE(a.found);
  ASSERT_TRUE(b.found) << "the same bug is found";
  EXPECT_EQ(b.verdict, a.verdict);
  EXPECT_EQ(b.diagnosis.cls, a.diagnosis.cls);
  EXPECT_LE(b.shrunk.ops(), b.first.ops());
  EXPECT_EQ(b.shrunk.ops(), a.shrunk.ops()) << describe(a.shrunk) << "\n" << describe(b.shrunk);
  EXPECT_GT(b.rate_runs, 0u);
  EXPECT_GT(b.rate_failures, 0u) << "its shrunk case fails again alone";
}

// A round's busy time is the union of its trials' kernels, which overlap.
TEST(CampaignAtOnce, BusyTimeIsTheUnionOfTheKernelsThatOverlapped) {
  BusyTime b;
  EXPECT_EQ(b.ms(), 0);
  b.add(10.0, 1000);   // [9, 10]
  b.add(9.5, 1000);    // [8.5, 9.5]: overlaps the first
  b.add(12.0, 500);    // [11.5, 12]: apart
  b.add(11.9, 100);    // inside the last
  b.add(0, 250);       // not stamped: counted whole
  b.add(20.0, 0);      // nothing
  EXPECT_NEAR(b.ms(), 1500 + 500 + 250, 1e-6);
  // A round of trials run one after another sums as before.
  BusyTime seq;
  seq.add(1.0, 100);
  seq.add(1.2, 100);
  EXPECT_NEAR(seq.ms(), 200, 1e-6);
}

// The GPU's busy time adds atomstress's own device work (checking) to the
// code under test's kernels, overlaps counted once; the code under test's
// own share leaves it out.
TEST(CampaignAtOnce, TheGpusBusyTimeIsTheUnionOfTheKernelsAndTheirChecking) {
  BusyTime b;
  b.add(10.0, 1000);      // a run, [9, 10]
  b.add_own(10.5, 500);   // its checking, [10, 10.5]: after it
  b.add(10.4, 1000);      // another trial's run, [9.4, 10.4]: overlaps both
  b.add_own(13.0, 1000);  // a pack's judging, [12, 13]: apart
  b.add_own(0, 40);       // not stamped: counted whole
  EXPECT_NEAR(b.ms(), 1400, 1e-6);
  EXPECT_NEAR(b.gpu_ms(), 1500 + 1000 + 40, 1e-6);
  BusyTime none;
  none.add(5.0, 100);
  EXPECT_EQ(none.gpu_ms(), none.ms()) << "without own work the GPU was busy with the code under test alone";
}

TEST(CampaignAtOnce, ARoundAtOnceCountsTheUnionOfItsKernelsNotTheirSum) {
  // Every trial says its kernel took the same second, [99, 100] on the
  // steady clock: all of them overlapped, so the round was busy one second.
  fuzz::CampaignConfig cfg = campaign_of("native.add.i32", 20);
  InProcessTrials runner(3, in_process(), [](Outcome out) -> std::optional<Outcome> {
    out.run_end_s = 100.0;
    out.run_ms = 1000;
    return out;
  });
  cfg.at_once = &runner;
  const auto r = fuzz::run_campaign(cfg);
  EXPECT_EQ(r.runs, 40u);
  EXPECT_NEAR(r.run_ms, 1000, 1e-6) << "the union, not the sum of 40 seconds";
}

// How many trials a round runs at once (fuzz/at_once_ramp.hpp): doubled
// after a round that kept the GPU busy less than half its time, halved after
// one that kept it busy nine tenths or more, between its start and its top.
TEST(CampaignAtOnce, TheWidthGrowsAfterAnIdleRoundAndShrinksAfterABusyOne) {
  fuzz::AtOnceRamp r(4, 12);
  EXPECT_EQ(r.width(), 4u);
  r.after_round(100, 10);
  EXPECT_EQ(r.width(), 8u);
  r.after_round(100, 49);
  EXPECT_EQ(r.width(), 12u) << "never past its top";
  r.after_round(100, 70);
  EXPECT_EQ(r.width(), 12u) << "between half and nine tenths busy: kept";
  r.after_round(100, 90);
  EXPECT_EQ(r.width(), 6u);
  r.after_round(100, 150);  // kernels stamped before the round began count too
  EXPECT_EQ(r.width(), 4u) << "never below its start";
  r.after_round(0, 0);
  EXPECT_EQ(r.width(), 4u) << "a round of no measured time changes nothing";
  EXPECT_EQ(r.widest(), 12u);
  fuzz::AtOnceRamp fixed(3, 3);
  fixed.after_round(100, 0);
  EXPECT_EQ(fixed.width(), 3u) << "a start equal to its top is a fixed width";
  EXPECT_EQ(fuzz::AtOnceRamp(9, 5).width(), 5u) << "a start past the top starts at the top";
}

// An entry's next slice starts at the width its last one ended at
// (CampaignConfig::at_once_start, kept in the fuzz state), still between the
// ramp's floor and its top, and narrows from there after busy rounds.
TEST(CampaignAtOnce, ASliceStartsAtTheWidthItsEntrysLastSliceEndedAt) {
  EXPECT_EQ(fuzz::AtOnceRamp(4, 12, 8).width(), 8u);
  EXPECT_EQ(fuzz::AtOnceRamp(4, 12, 0).width(), 4u) << "no start: the floor";
  EXPECT_EQ(fuzz::AtOnceRamp(4, 12, 2).width(), 4u) << "never below the floor";
  EXPECT_EQ(fuzz::AtOnceRamp(4, 12, 40).width(), 12u) << "never past the top";
  fuzz::AtOnceRamp r(4, 12, 12);
  r.after_round(100, 95);
  EXPECT_EQ(r.width(), 6u);
  r.after_round(100, 95);
  EXPECT_EQ(r.width(), 4u);
  EXPECT_EQ(r.widest(), 12u);

  auto stamped = [](double ms) {
    return [ms](Outcome out) -> std::optional<Outcome> {
      out.run_end_s = steady_seconds();
      out.run_ms = ms;
      return out;
    };
  };
  fuzz::CampaignConfig cfg = campaign_of("native.add.i32", 100);  // five rounds
  InProcessTrials busy(8, in_process(), stamped(60000));
  cfg.at_once = &busy;
  cfg.at_once_from = 2;
  cfg.at_once_start = 8;
  const auto b = fuzz::run_campaign(cfg);
  EXPECT_FALSE(b.found) << b.why;
  EXPECT_EQ(busy.most, 8u) << "the first round runs at the start";
  EXPECT_EQ(b.widest_at_once, 8u);
  EXPECT_EQ(b.next_at_once, 2u) << "busy rounds narrowed it to the floor, where the next slice starts";
  InProcessTrials idle(8, in_process(), stamped(1e-4));
  cfg.at_once = &idle;
  cfg.at_once_start = 0;
  const auto a = fuzz::run_campaign(cfg);
  EXPECT_FALSE(a.found) << a.why;
  EXPECT_EQ(a.next_at_once, 8u) << "idle rounds widened it to the top, where the next slice starts";
  cfg.at_once = nullptr;
  EXPECT_EQ(fuzz::run_campaign(cfg).next_at_once, 0u) << "one after another: no width";
}

// A campaign whose rounds leave the GPU idle widens to the runner's
// capacity, and still evaluates the specs one after another would, in
// their order; one whose rounds keep it busy stays at its start.
TEST(CampaignAtOnce, RoundsThatLeaveTheGpuIdleRunMoreAtOnceInTheSameOrder) {
  fuzz::CampaignConfig cfg = campaign_of("native.add.i32", 100);  // five rounds
  Evaluations one_by_one, widened;
  cfg.on_evaluated = [&](uint64_t runs, uint64_t ops) { one_by_one.emplace_back(runs, ops); };
  ASSERT_FALSE(fuzz::run_campaign(cfg).found);
  auto stamped = [](double ms) {
    return [ms](Outcome out) -> std::optional<Outcome> {
      out.run_end_s = steady_seconds();
      out.run_ms = ms;
      return out;
    };
  };
  InProcessTrials idle(8, in_process(), stamped(1e-4));  // kernels of 0.1 us: the GPU idle
  cfg.at_once = &idle;
  cfg.at_once_from = 2;
  cfg.on_evaluated = [&](uint64_t runs, uint64_t ops) { widened.emplace_back(runs, ops); };
  const auto a = fuzz::run_campaign(cfg);
  EXPECT_FALSE(a.found) << a.why;
  EXPECT_EQ(widened, one_by_one) << "the same specs, each run --reruns times, in the same order";
  EXPECT_EQ(idle.most, 8u) << "widened to the runner's capacity";
  EXPECT_EQ(a.widest_at_once, 8u);
  InProcessTrials busy(8, in_process(), stamped(60000));  // each trial's kernel spans the round
  cfg.at_once = &busy;
  cfg.on_evaluated = nullptr;
  const auto b = fuzz::run_campaign(cfg);
  EXPECT_FALSE(b.found) << b.why;
  EXPECT_EQ(b.specs, 100u);
  EXPECT_EQ(busy.most, 2u) << "a busy GPU gets no more at once than the start";
  EXPECT_EQ(b.widest_at_once, 2u);
}

}  // namespace
