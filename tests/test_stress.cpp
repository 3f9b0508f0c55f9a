// Stress incantations on the host: they travel in reproduction tokens (as3;
// as2 and as1 still decode, unstressed), the generators vary them, the
// shrinker turns them off first, and the cpu backend ignores them with one
// note.  (That they stress without a false failure is the GPU suite's:
// tests/test_gpu_stress.cpp.)
#include <gtest/gtest.h>

#include <set>

#include "fuzz/shrink_spec.hpp"
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
  // Written before stress existed (README's example, and an as1 token).
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
  s.impl = "buggy.returns_new.add.f32";
  s.grid = 2;
  s.block = 8;
  s.dist = Dist::Full;
  s.seed = 5;
  s.stress = stressed_spec().stress;
  RunOptions run;
  const auto ev = properties::evaluate(s, BackendKind::Cpu, run, 1);
  ASSERT_EQ(ev.verdict, Verdict::Fail) << ev.why;
  fuzz::ShrinkConfig cfg;
  cfg.max_seconds = 20;
  cfg.rate_runs = 2;
  const auto shrunk = fuzz::shrink_spec(s, ev.verdict, ev.why, cfg);
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
