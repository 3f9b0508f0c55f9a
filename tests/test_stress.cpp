// Stress incantations on the host: they travel in reproduction tokens (as3;
// as2 and as1 still decode, unstressed), the generators vary them, the
// shrinker turns them off first, and the cpu backend ignores them with one
// note.  (That they stress without a false failure is the GPU suite's:
// tests/test_gpu_stress.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "fuzz/shrink_spec.hpp"
#include "fuzz/stress_rates.hpp"
#include "harness/pipeline/run_trial.hpp"
#include "harness/trial/token.hpp"
#include "harness/trial/validate.hpp"
#include "properties/generators.hpp"
#include "run_program.hpp"

using namespace atomstress;

namespace {

TrialSpec stressed_spec() {
  TrialSpec s;
  s.impl = "lock.device@native.cas.u32";
  s.grid = 3;
  s.block = 40;
  s.ops_per_thread = 2;
  s.seed = 0x1234abcdull;
  s.stress.blocks = 17;
  s.stress.mem_permille = 500;
  s.stress.lines = 4;
  s.stress.stride = 32;
  s.stress.access = StressAccess::StoreLoad;
  s.stress.shuffle = true;
  s.stress.barrier_us = 100;
  s.stress.bank_conflicts = true;
  return s;
}

// A bug that fails every run on the cpu backend, unstressed.
TrialSpec cpu_bug_spec(uint32_t grid) {
  TrialSpec s;
  s.impl = "buggy.returns_new.add.f32";
  s.grid = grid;
  s.block = 8;
  s.dist = Dist::Full;
  s.seed = 5;
  return s;
}

// That bug under stress (the cpu backend ignores it), shrunk with `by_rate`
// as asked.
reports::ShrunkCase shrink_stressed_cpu_bug(uint32_t grid, bool by_rate, TrialSpec& failing) {
  TrialSpec& s = failing;
  s = cpu_bug_spec(grid);
  s.stress = stressed_spec().stress;
  RunOptions run;
  const auto ev = properties::evaluate(s, BackendKind::Cpu, run, 1);
  EXPECT_EQ(ev.verdict, Verdict::Fail) << ev.why;
  fuzz::ShrinkConfig cfg;
  cfg.max_seconds = 20;
  cfg.rate_runs = 2;
  cfg.by_rate = by_rate;
  return fuzz::shrink_spec(s, ev.verdict, ev.why, cfg);
}

}  // namespace

TEST(Stress, TokensCarryEveryStressField) {
  const TrialSpec s = stressed_spec();
  const TrialKnobs k{7, 3, 250, 4096};
  const std::string tok = encode_token(s, k);
  EXPECT_EQ(tok.rfind("as3.", 0), 0u) << tok;
  std::string err;
  const auto r = decode_repro_token(tok, err);
  ASSERT_TRUE(r) << err;
  EXPECT_EQ(r->spec, s);
  EXPECT_EQ(r->spec.stress, s.stress);
  ASSERT_TRUE(r->knobs);
  EXPECT_EQ(*r->knobs, k);
  // Every field on its own: a token that dropped one would not round-trip.
  for (int f = 0; f < 8; ++f) {
    TrialSpec one;
    one.impl = "native.add.i32";
    Stress& t = one.stress;
    switch (f) {
      case 0: t.blocks = 1, t.lines = 1, t.stride = 1; break;
      case 1: t.blocks = 2, t.lines = 1, t.stride = 1, t.mem_permille = 999; break;
      case 2: t.blocks = 2, t.lines = 64, t.stride = 1; break;
      case 3: t.blocks = 2, t.lines = 1, t.stride = 4096; break;
      case 4: t.blocks = 2, t.lines = 1, t.stride = 1, t.access = StressAccess::StoreStore; break;
      case 5: t.shuffle = true; break;
      case 6: t.barrier_us = 100000; break;
      default: t.bank_conflicts = true; break;
    }
    const auto back = decode_token(encode_token(one, TrialKnobs{}), err);
    ASSERT_TRUE(back) << f << ": " << err;
    EXPECT_EQ(back->stress, one.stress) << f;
  }
}

TEST(Stress, UnstressedTokensStayVersion2) {
  TrialSpec s = stressed_spec();
  s.stress = Stress{};
  const std::string tok = encode_token(s, TrialKnobs{});
  EXPECT_EQ(tok.rfind("as2.", 0), 0u) << tok;
  std::string err;
  const auto back = decode_token(tok, err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(*back, s);
}

TEST(Stress, OlderTokensDecodeWithStressOff) {
  std::string err;
  // Written before stress existed (an as2 token, and an as1 token).
  const auto v2 = decode_repro_token(
      "as2.0_1_0.buggy.exch_store.add.i32.1.3.1.0.0.1.1.0.0.0.32bc8eeabd97221d.20.4.0.1048576.ad73e0d3", err);
  ASSERT_TRUE(v2) << err;
  EXPECT_EQ(v2->spec.stress, Stress{});
  EXPECT_EQ(v2->spec.block, 3u);
  const auto v1 = decode_repro_token("as1.native.add.i32.4.64.4.0.0.32.1.0.0.1.1234.910451f7", err);
  ASSERT_TRUE(v1) << err;
  EXPECT_EQ(v1->spec.stress, Stress{});
}

TEST(Stress, TokensWithStressOutOfRangeAreRefused) {
  std::string err;
  TrialSpec s = stressed_spec();
  s.stress.blocks = kMaxStressBlocks + 1;
  EXPECT_FALSE(decode_token(encode_token(s, TrialKnobs{}), err));
  EXPECT_NE(err.find("stress"), std::string::npos) << err;
  s = stressed_spec();
  s.stress.lines = 0;  // stress blocks hammer at least one line
  EXPECT_FALSE(decode_token(encode_token(s, TrialKnobs{}), err));
  s = stressed_spec();
  s.stress.access = StressAccess(9);
  EXPECT_FALSE(decode_token(encode_token(s, TrialKnobs{}), err));
  // A stress token cut short loses its checksum.
  const std::string tok = encode_token(stressed_spec(), TrialKnobs{});
  EXPECT_FALSE(decode_token(tok.substr(0, tok.size() - 12), err));
}

TEST(Stress, DescribeNamesTheStress) {
  const std::string d = describe(stressed_spec());
  EXPECT_NE(d.find("stress: 17 extra blocks"), std::string::npos) << d;
  EXPECT_NE(d.find("store/load"), std::string::npos) << d;
  EXPECT_NE(d.find("shuffle"), std::string::npos) << d;
  EXPECT_NE(d.find("barrier<=100us"), std::string::npos) << d;
  EXPECT_NE(d.find("bank-conflicts"), std::string::npos) << d;
  TrialSpec plain = stressed_spec();
  plain.stress = Stress{};
  EXPECT_EQ(describe(plain).find("stress"), std::string::npos);
}

TEST(Stress, NormaliseGivesOneSpellingOfNone) {
  Stress s;
  s.lines = 9;
  s.stride = 3;
  s.mem_permille = 7;
  normalise_stress(s);
  EXPECT_EQ(s, Stress{});
  Stress t;
  t.blocks = 5;
  normalise_stress(t);
  EXPECT_EQ(t.lines, 1u);
  EXPECT_EQ(t.stride, 1u);
  std::string err;
  EXPECT_TRUE(validate_stress(t, err)) << err;
}

TEST(Stress, GeneratorsVaryEveryIncantation) {
  auto cfg = properties::default_config(BackendKind::Cpu, match_impls("all"));
  EXPECT_FALSE(cfg.stress);  // the cpu backend ignores it: not drawn there by default
  cfg.stress = true;
  const auto gen = properties::gen_trial_spec(cfg);
  uint32_t none = 0, blocks = 0, shuffle = 0, barrier = 0, bank = 0;
  std::set<uint32_t> lines, strides, accesses, shares;
  for (int i = 0; i < 600; ++i) {
    const TrialSpec s = gen(rc::Random(uint64_t(i) + 77), 50).value();
    std::string err;
    ASSERT_TRUE(validate_stress(s.stress, err)) << describe(s) << ": " << err;
    ASSERT_LE(s.stress.blocks, cfg.max_stress_blocks);
    none += !s.stress.any();
    if (s.stress.blocks) {
      ++blocks;
      lines.insert(s.stress.lines);
      strides.insert(s.stress.stride);
      accesses.insert(unsigned(s.stress.access));
      shares.insert(s.stress.mem_permille);
    }
    shuffle += s.stress.shuffle;
    barrier += s.stress.barrier_us != 0;
    bank += s.stress.bank_conflicts;
  }
  EXPECT_GT(none, 100u);
  EXPECT_GT(blocks, 50u);
  EXPECT_GT(shuffle, 50u);
  EXPECT_GT(barrier, 50u);
  EXPECT_GT(bank, 50u);
  EXPECT_GE(lines.size(), 3u);
  EXPECT_GE(strides.size(), 3u);
  EXPECT_EQ(accesses.size(), 4u);
  EXPECT_GE(shares.size(), 2u);
  // Off when the campaign says so.
  cfg.stress = false;
  const auto quiet = properties::gen_trial_spec(cfg);
  for (int i = 0; i < 200; ++i) EXPECT_FALSE(quiet(rc::Random(uint64_t(i)), 50).value().stress.any());
}

TEST(Stress, ShrinkingTurnsStressOff) {
  // A bug the cpu backend shows with or without stress (it ignores stress):
  // the shrunk case keeps none of it.
  TrialSpec s;
  const auto shrunk = shrink_stressed_cpu_bug(2, false, s);
  ASSERT_FALSE(::testing::Test::HasFailure());
  EXPECT_EQ(shrunk.spec.stress, Stress{}) << describe(shrunk.spec);
  EXPECT_LE(shrunk.spec.ops(), s.ops());
}

TEST(Stress, CpuBackendIgnoresGpuKnobsWithOneNote) {
  // Through the program, so that the note is this process's first: an
  // isolated worker runs both trials, and says so once.
  TrialSpec s = stressed_spec();
  const std::string tok = encode_token(s, TrialKnobs{});
  const auto r =
      atomstress::testing::run_shell(atomstress::testing::binary() + " repro " + tok + " --backend cpu --runs 2 2>&1");
  EXPECT_EQ(r.status, 0) << r.out;
  const std::string note = "the cpu backend ignores the GPU-only stress knobs";
  const size_t at = r.out.find(note);
  EXPECT_NE(at, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(note, at + 1), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("failed 0 of 2 runs"), std::string::npos) << r.out;
}

// Issue 16's rate table: the pure parts, and the search on the cpu.
TEST(Stress, RateUpperBoundIsTheRuleOfThreeWithNoFailure) {
  for (uint32_t n : {20u, 200u, 1000u}) {
    const double b = fuzz::rate_upper_bound(0, n);
    EXPECT_NEAR(b, 3.0 / n, 0.1 * 3.0 / n) << n;
    EXPECT_NEAR(std::pow(1 - b, n), 0.05, 1e-6) << n;  // P(no failure | b) = 5%
  }
  // More failures, a higher bound; never below the observed rate; 1 at the ends.
  EXPECT_GT(fuzz::rate_upper_bound(1, 200), fuzz::rate_upper_bound(0, 200));
  EXPECT_GT(fuzz::rate_upper_bound(5, 20), 5.0 / 20);
  EXPECT_NEAR(fuzz::rate_upper_bound(1, 20), 0.2161, 1e-3);  // Clopper-Pearson's one-sided 95%
  EXPECT_EQ(fuzz::rate_upper_bound(20, 20), 1.0);
  EXPECT_EQ(fuzz::rate_upper_bound(0, 0), 1.0);
}

TEST(Stress, TargetIsHalfTheRunsOrTenTimesTheUnstressedBound) {
  using fuzz::Target;
  EXPECT_EQ(fuzz::target_of(10, 20, 20, 20), Target::Half);  // fails without stress too: still >= 50%
  EXPECT_EQ(fuzz::target_of(18, 20, 1, 20), Target::Half);
  // Against 0 of 20 a ratio means nothing (10 x 3/20 > 1) ...
  EXPECT_EQ(fuzz::target_of(8, 20, 0, 20), Target::NotMet);
  // ... against 0 of 200 it does: 10 x 1.5% <= 40%, and 3 of 20 just makes it.
  EXPECT_EQ(fuzz::target_of(8, 20, 0, 200), Target::TenFold);
  EXPECT_EQ(fuzz::target_of(3, 20, 0, 200), Target::TenFold);
  EXPECT_EQ(fuzz::target_of(2, 20, 0, 200), Target::NotMet);
  EXPECT_EQ(fuzz::target_of(0, 20, 0, 200), Target::NotMet);
  EXPECT_EQ(fuzz::target_of(3, 20, 2, 200), Target::NotMet);  // the unstressed rate is not rare enough
  EXPECT_STREQ(fuzz::to_string(Target::Half), "met: >=50%");
  EXPECT_STREQ(fuzz::to_string(Target::TenFold), "met: >=10x");
  EXPECT_STREQ(fuzz::to_string(Target::NotMet), "not met");
}

TEST(Stress, UnstressedRunsGoOnWhileTheyCanDecideTenFold) {
  // The loop measure_stress_rate runs, with a bug that never fails unstressed.
  auto runs_until_decided = [](uint32_t stressed, uint32_t runs, uint32_t max_runs) {
    uint32_t n = runs;
    while (fuzz::more_unstressed_runs_help(stressed, runs, 0, n, max_runs)) ++n;
    return n;
  };
  // 8 of 20 stressed: decided once 10 x 3/n <= 40%, at about 75 runs, not 200.
  const uint32_t n8 = runs_until_decided(8, 20, 200);
  EXPECT_GT(n8, 20u);
  EXPECT_LT(n8, 200u);
  EXPECT_EQ(fuzz::target_of(8, 20, 0, n8), fuzz::Target::TenFold);
  EXPECT_NE(fuzz::target_of(8, 20, 0, n8 - 1), fuzz::Target::TenFold);
  // 3 of 20: needs nearly all of 10 x runs.
  const uint32_t n3 = runs_until_decided(3, 20, 200);
  EXPECT_EQ(fuzz::target_of(3, 20, 0, n3), fuzz::Target::TenFold);
  EXPECT_GT(n3, 150u);
  // No use: nothing failed stressed; 1 of 20 could not be 10x even against
  // 0 of 200; already 10x; already at the cap.
  EXPECT_FALSE(fuzz::more_unstressed_runs_help(0, 20, 0, 20, 200));
  EXPECT_FALSE(fuzz::more_unstressed_runs_help(1, 20, 0, 20, 200));
  EXPECT_FALSE(fuzz::more_unstressed_runs_help(8, 20, 0, 100, 200));
  EXPECT_FALSE(fuzz::more_unstressed_runs_help(20, 20, 0, 200, 200));
  // A failure unstressed raises the bar: 2 of 20 unstressed, 18 stressed can still make it.
  EXPECT_TRUE(fuzz::more_unstressed_runs_help(18, 20, 2, 20, 200));
  EXPECT_FALSE(fuzz::more_unstressed_runs_help(18, 20, 20, 20, 200));  // 20 of 20 unstressed: never 10x
}

TEST(Stress, PresetGridIsValidAndDiverse) {
  for (BackendKind backend : {BackendKind::Cpu, BackendKind::Cuda}) {
    const auto presets = fuzz::stress_presets(backend);
    EXPECT_GE(presets.size(), 6u);
    EXPECT_LE(presets.size(), 8u);
    std::set<std::string> names;
    std::set<uint32_t> blocks, lines, barriers;
    std::set<unsigned> accesses;
    bool shuffled = false, unshuffled = false, bank = false, none = false;
    for (const auto& p : presets) {
      EXPECT_TRUE(names.insert(p.name).second) << p.name;
      std::string err;
      EXPECT_TRUE(validate_stress(p.stress, err)) << p.name << ": " << err;
      Stress normal = p.stress;
      normalise_stress(normal);
      EXPECT_EQ(normal, p.stress) << p.name << " is not in its one spelling";
      EXPECT_TRUE(p.stress.any()) << p.name;
      // As a whole trial too: a weak-memory bug's shrunk shape with the preset.
      TrialSpec s;
      s.impl = "buggy.lock.textbook@native.cas.u32";
      s.grid = 2;
      s.block = 3;
      s.stress = p.stress;
      EXPECT_TRUE(validate(s, find_impl(s.impl)->limits, err)) << p.name << ": " << err;
      blocks.insert(p.stress.blocks);
      if (p.stress.blocks) {
        lines.insert(p.stress.lines);
        accesses.insert(unsigned(p.stress.access));
      } else {
        none = true;
      }
      barriers.insert(p.stress.barrier_us);
      (p.stress.shuffle ? shuffled : unshuffled) = true;
      bank |= p.stress.bank_conflicts;
    }
    EXPECT_EQ(presets.front().name, std::string("heavy"));  // selftest's preset before the search
    EXPECT_GE(blocks.size(), 3u);  // none, n and 2n
    EXPECT_TRUE(lines.count(1) && lines.count(4) && lines.count(16) && lines.count(64));
    EXPECT_EQ(accesses.size(), 4u);
    EXPECT_TRUE(barriers.count(100) && barriers.count(1000));
    EXPECT_TRUE(shuffled && unshuffled && bank && none);
  }
}

TEST(Stress, RateTableSearchOnTheCpu) {
  // The cpu backend ignores stress, so a deterministic bug fails under every
  // candidate and without: each candidate screened (its own stress first),
  // the first kept on the tie, no more unstressed runs (20 of 20 can never
  // be 10x), target >= 50%.
  TrialSpec s = cpu_bug_spec(2);
  s.stress = stressed_spec().stress;
  RunOptions run;
  const auto r = fuzz::measure_stress_rate(*find_impl(s.impl), s, BackendKind::Cpu, run, 4, 1);
  EXPECT_EQ(r.candidates, fuzz::stress_presets(BackendKind::Cpu).size() + 1);
  EXPECT_EQ(r.screened, r.candidates);
  EXPECT_EQ(r.best_source, "campaign");
  EXPECT_EQ(r.best, s.stress);
  EXPECT_EQ(r.stressed, 4u);
  EXPECT_EQ(r.unstressed, 4u);
  EXPECT_EQ(r.unstressed_runs, 4u);
  EXPECT_EQ(r.trial.stress, Stress{});
  EXPECT_EQ(fuzz::target_of(r.stressed, r.runs, r.unstressed, r.unstressed_runs), fuzz::Target::Half);
  // A correct entry's contended trial: nothing fails, so no more unstressed runs either.
  const auto ok = fuzz::measure_stress_rate(*find_impl("native.add.i32"), std::nullopt, BackendKind::Cpu, run, 4, 1);
  EXPECT_EQ(ok.candidates, fuzz::stress_presets(BackendKind::Cpu).size());
  EXPECT_EQ(ok.best_source, "preset heavy");
  EXPECT_EQ(ok.stressed + ok.unstressed + ok.other, 0u);
  EXPECT_EQ(ok.unstressed_runs, 4u);
}

// Rate-keeping shrinking (shrink_spec.hpp).
TEST(Stress, RateKeepingShrinkRule) {
  // A candidate must fail at least half as often as the current case (ceil), at least once.
  EXPECT_EQ(fuzz::failures_needed(10, 10), 5u);
  EXPECT_EQ(fuzz::failures_needed(5, 10), 3u);
  EXPECT_EQ(fuzz::failures_needed(4, 10), 2u);
  EXPECT_EQ(fuzz::failures_needed(2, 10), 1u);
  EXPECT_EQ(fuzz::failures_needed(1, 10), 1u);
  EXPECT_EQ(fuzz::failures_needed(0, 10), 1u);   // not seen again: any failure
  EXPECT_EQ(fuzz::failures_needed(30, 10), 5u);  // never more than half the reruns
  // Which entries shrink by rate: the weak-memory and rate-only bugs.
  EXPECT_TRUE(fuzz::shrinks_by_rate(*find_impl("buggy.lock.textbook@native.cas.u32")));
  EXPECT_TRUE(fuzz::shrinks_by_rate(*find_impl("buggy.sum.last_block_nofence@native.inc.u32")));
  EXPECT_FALSE(fuzz::shrinks_by_rate(*find_impl("buggy.returns_new.add.f32")));
  EXPECT_FALSE(fuzz::shrinks_by_rate(*find_impl("native.add.i32")));
}

TEST(Stress, RateKeeperOnADeterministicBug) {
  // On the cpu a bug that fails every run: measured 10 of 10, so a smaller
  // candidate needs 5 of 10; one that fails keeps 10, one that passes is
  // refused once 5 are out of reach (6 runs), and a spent deadline refuses
  // without a run.
  const TrialSpec s = cpu_bug_spec(2);
  RunOptions run;
  fuzz::RateKeeper keeper(s, Verdict::Fail, BackendKind::Cpu, run, 3, 60);
  EXPECT_EQ(keeper.reruns(), fuzz::kRateShrinkReruns);
  EXPECT_EQ(keeper.current_failures(), 10u);
  EXPECT_EQ(keeper.last().runs, 10u);
  TrialSpec smaller = s;
  smaller.grid = 1;
  EXPECT_TRUE(keeper.accepts(smaller));
  EXPECT_EQ(keeper.last().failures, 10u);
  EXPECT_FALSE(keeper.last().why.empty());
  TrialSpec correct = smaller;
  correct.impl = "native.add.f32";
  EXPECT_FALSE(keeper.accepts(correct));
  EXPECT_EQ(keeper.last().runs, 6u);
  EXPECT_EQ(keeper.current_failures(), 10u);
  fuzz::RateKeeper late(s, Verdict::Fail, BackendKind::Cpu, run, 3, -1);
  EXPECT_EQ(late.last().runs, 0u);
  EXPECT_FALSE(late.accepts(smaller));
  EXPECT_EQ(late.last().runs, 0u);
}

TEST(Stress, ShrinkingByRateStillShrinks) {
  // by_rate on a deterministic cpu bug: each accepted candidate fails 10 of
  // 10, so the walk ends where the plain one does, with no stress.
  TrialSpec s;
  const auto shrunk = shrink_stressed_cpu_bug(3, true, s);
  ASSERT_FALSE(::testing::Test::HasFailure());
  EXPECT_EQ(shrunk.spec.stress, Stress{}) << describe(shrunk.spec);
  EXPECT_LT(shrunk.spec.ops(), s.ops());
  EXPECT_EQ(shrunk.rate_failures, shrunk.rate_runs);
  EXPECT_FALSE(shrunk.timed_out);
}

TEST(Stress, ShrinkingCountsTheCodeUnderTestsTimeOfEveryRun) {
  // fuzz's busy share counts a shrink's runs as RapidCheck's shrinking
  // counts its own: every candidate's runs and the rate's, plain and by rate.
  for (const bool by_rate : {false, true}) {
    const TrialSpec s = cpu_bug_spec(3);
    uint64_t runs = 0;
    fuzz::ShrinkConfig cfg;
    cfg.max_seconds = 20;
    cfg.rate_runs = 2;
    cfg.by_rate = by_rate;
    cfg.run_trial = [&](const TrialSpec& spec) {
      Outcome out = run_trial(spec, BackendKind::Cpu, RunOptions{});
      out.run_ms = 1.5;
      ++runs;
      return out;
    };
    const auto shrunk = fuzz::shrink_spec(s, Verdict::Fail, "", cfg);
    EXPECT_LT(shrunk.spec.ops(), s.ops()) << by_rate;
    EXPECT_GT(runs, shrunk.rate_runs) << by_rate;
    EXPECT_DOUBLE_EQ(shrunk.run_ms, 1.5 * double(runs)) << by_rate;
  }
}

TEST(Stress, ShrinkingRunsARefusedCandidateOnceAndEndsWhereItDidBefore) {
  // Deterministic cpu bugs: remembering refused candidates changes no step of
  // the walk, only skips the runs of candidates it met before (each accepted
  // step offers the tiny candidates again), so the shrunk case is the same
  // and the candidates run plus those skipped are those run before.  By
  // rate too: each accepted candidate fails 10 of 10, so a refused one
  // would need as many failures again.
  for (const bool by_rate : {false, true}) {
    for (const char* impl : {"buggy.block_scope.add.i32", "buggy.argmax.tie_any@native.cas.u64"}) {
      TrialSpec s;
      s.impl = impl;
      s.grid = 4;
      s.block = 64;
      s.ops_per_thread = 4;
      s.k = 32;
      s.seed = 0xd39b776e7a2a3746ull;
      RunOptions run;
      const auto ev = properties::evaluate(s, BackendKind::Cpu, run, 1);
      ASSERT_EQ(ev.verdict, Verdict::Fail) << impl << (by_rate ? " by rate" : "");
      fuzz::ShrinkConfig cfg;
      cfg.max_seconds = 60;
      cfg.rate_runs = 2;
      cfg.by_rate = by_rate;
      cfg.remember_refused = false;
      const auto every = fuzz::shrink_spec(s, ev.verdict, ev.why, cfg);
      cfg.remember_refused = true;
      const auto once = fuzz::shrink_spec(s, ev.verdict, ev.why, cfg);
      EXPECT_EQ(describe(once.spec), describe(every.spec)) << impl << (by_rate ? " by rate" : "");
      EXPECT_EQ(once.steps, every.steps) << impl << (by_rate ? " by rate" : "");
      EXPECT_EQ(every.repeats_skipped, 0u) << impl << (by_rate ? " by rate" : "");
      EXPECT_GT(once.repeats_skipped, 0u) << impl << (by_rate ? " by rate" : "");
      EXPECT_EQ(once.candidates + once.repeats_skipped, every.candidates) << impl << (by_rate ? " by rate" : "");
      EXPECT_LT(once.candidates, every.candidates) << impl << (by_rate ? " by rate" : "");
      EXPECT_FALSE(once.timed_out || every.timed_out) << impl << (by_rate ? " by rate" : "");
    }
  }
}

namespace {
// The first failure of a plain read-add-write race, as CI once found it.
TrialSpec plain_rmw_first_failure() {
  TrialSpec s;
  s.impl = "buggy.plain_rmw.add.i32";
  s.grid = 4;
  s.block = 64;
  s.ops_per_thread = 4;
  s.k = 32;
  s.init = Init::Random;
  s.seed = 0xe090f47920de1e46ull;
  return s;
}
// The tiny candidate of two threads and seed 0, as shrink_spec makes it first.
TrialSpec first_tiny_candidate(TrialSpec s) {
  s.grid = 1;
  s.block = 2;
  s.ops_per_thread = 1;
  s.k = 1;
  s.seed = 0;
  return s;
}
}  // namespace

TEST(Stress, ACandidateThatFailedOnceAndNeverAgainIsRefusedAndTheWalkGoesOnFromTheCaseBefore) {
  // CI's flake: a plain read-add-write race of two threads (seed 0, where
  // only one order of the writes loses an update) failed its one run as a
  // candidate, then 0 of 10 in the rate's reruns, and the walk went back to
  // the 1024-op first failure although two threads with seed 2 fail every
  // time.  A fake runner gives that sequence: the case printed is the
  // 2-op one of seed 2, reached from the first failure, which the rate saw
  // fail; the seed-0 case ran once as a candidate and 10 times for its rate.
  const TrialSpec s = plain_rmw_first_failure();
  auto two_threads = [](const TrialSpec& c, uint64_t seed) {
    return c.grid == 1 && c.block == 2 && c.ops_per_thread == 1 && c.seed == seed;
  };
  const TrialSpec seed0 = first_tiny_candidate(s);  // two threads and seed 0
  for (const bool by_rate : {false, true}) {
    uint32_t seed0_runs = 0;
    fuzz::ShrinkConfig cfg;
    cfg.max_seconds = 60;
    cfg.by_rate = by_rate;
    cfg.run_trial = [&](const TrialSpec& c) {
      Outcome o;
      o.spec = c;
      seed0_runs += c == seed0 ? 1 : 0;
      const bool fails = c == s || two_threads(c, 2) || (c == seed0 && seed0_runs == 1);
      o.verdict = fails ? Verdict::Fail : Verdict::Pass;
      o.finding.explanation = fails ? "lost update" : "";
      return o;
    };
    const auto shrunk = fuzz::shrink_spec(s, Verdict::Fail, "lost update", cfg);
    const std::string how = by_rate ? "by rate" : "plain";
    EXPECT_TRUE(two_threads(shrunk.spec, 2)) << how << ": " << describe(shrunk.spec);
    EXPECT_EQ(shrunk.rate_failures, shrunk.rate_runs) << how;
    EXPECT_EQ(shrunk.rate_runs, cfg.rate_runs) << how;
    // By rate the seed-0 case needs 5 failures of 10 and its runs stop once
    // they are out of reach (1 failure, 6 passes): refused, never accepted.
    // Plain, its first run's failure accepts it, and the rate's 10 reruns
    // refuse it for good.
    EXPECT_EQ(seed0_runs, by_rate ? 7u : 1u + cfg.rate_runs) << how;
    EXPECT_FALSE(shrunk.timed_out) << how;
  }
}

TEST(Stress, ARareShrunkCaseIsMeasuredAgainAndNotPrintedWhenItDoesNotReproduce) {
  // The cpu flake of issue 60: a two-thread case kept after failing 1 of 10
  // reruns, which then replayed 0 of 50.  A fake runner gives that: the tiny
  // candidate fails its first run (accepted) and one run of its rate's 10,
  // then never.  Its rate is rare, so it is measured 3 times as long again;
  // it fails none of those, so the case printed is the first failure, with
  // its own rate.  A case that fails often is not measured again.
  const TrialSpec s = plain_rmw_first_failure();
  const TrialSpec tiny = first_tiny_candidate(s);
  uint32_t tiny_runs = 0;
  fuzz::ShrinkConfig cfg;
  cfg.max_seconds = 60;
  cfg.run_trial = [&](const TrialSpec& c) {
    Outcome o;
    o.spec = c;
    tiny_runs += c == tiny ? 1 : 0;
    const bool fails = c == s || (c == tiny && (tiny_runs == 1 || tiny_runs == 5));
    o.verdict = fails ? Verdict::Fail : Verdict::Pass;
    o.finding.explanation = fails ? "lost update" : "";
    return o;
  };
  const auto shrunk = fuzz::shrink_spec(s, Verdict::Fail, "lost update", cfg);
  EXPECT_EQ(describe(shrunk.spec), describe(s));
  EXPECT_EQ(shrunk.rate_failures, cfg.rate_runs);
  EXPECT_EQ(shrunk.rate_runs, cfg.rate_runs);
  EXPECT_EQ(tiny_runs, 1u + cfg.rate_runs + fuzz::kConfirmRuns * cfg.rate_runs);
  // Measured directly: 1 of 10 then 0 of 30 does not reproduce; 6 of 10 is not rare.
  uint32_t n = 0;
  const properties::TrialRunner rare = [&](const TrialSpec& c) {
    Outcome o;
    o.spec = c;
    o.verdict = ++n == 4 ? Verdict::Fail : Verdict::Pass;
    return o;
  };
  const auto r = fuzz::measure_reported_rate(s, rare, 10, 60);
  EXPECT_FALSE(r.reproduces);
  EXPECT_EQ(r.rate.failures, 1u);
  EXPECT_EQ(r.rate.runs, 40u);
  n = 0;
  const properties::TrialRunner often = [&](const TrialSpec& c) {
    Outcome o;
    o.spec = c;
    o.verdict = ++n % 5 < 3 ? Verdict::Fail : Verdict::Pass;
    return o;
  };
  const auto f = fuzz::measure_reported_rate(s, often, 10, 60);
  EXPECT_TRUE(f.reproduces);
  EXPECT_EQ(f.rate.runs, 10u);
}
