// Stress on the GPU (part of the GPU suite, tests/test_gpu.cpp's main):
// the correct catalogue passes stressed trials (stress changes where and
// when threads run, never what they compute), and each weak-memory bug is
// caught under stress.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "harness/pipeline/run_trial.hpp"
#include "harness/trial/token.hpp"
#include "harness/trial/validate.hpp"

using namespace atomstress;

namespace {

// Three kinds of stress: everything at once; thread randomisation alone;
// a few idle-ish extra blocks with a short barrier and skewed warps.
std::vector<Stress> stresses() {
  Stress heavy;
  heavy.blocks = 2 * uint32_t(std::max(1, cuda_sm_count()));
  heavy.mem_permille = 1000;
  heavy.lines = 16;
  heavy.stride = 32;
  heavy.access = StressAccess::StoreLoad;
  heavy.shuffle = true;
  heavy.barrier_us = 1000;
  heavy.bank_conflicts = true;
  Stress shuffle;
  shuffle.shuffle = true;
  Stress light;
  light.blocks = 8;
  light.mem_permille = 500;
  light.lines = 2;
  light.stride = 1;
  light.access = StressAccess::LoadStore;
  light.barrier_us = 100;
  light.bank_conflicts = true;
  return {heavy, shuffle, light};
}

}  // namespace

TEST(Stress, CorrectCataloguePassesStressedTrials) {
  struct G {
    uint32_t grid, block, ops;
  };
  // Full warps (permuted as warps), a partial last warp, one-thread blocks.
  const G shapes[] = {{8, 96, 2}, {5, 33, 3}, {40, 1, 2}};
  const auto kinds = stresses();
  RunOptions opt;
  size_t ran = 0;
  uint64_t seed = 1;
  for (const Entry* impl : match_impls("all")) {
    for (size_t i = 0; i < std::size(shapes); ++i) {
      const G& g = shapes[i];
      TrialSpec s;
      s.impl = impl->name;
      s.grid = g.grid;
      s.block = g.block;
      s.ops_per_thread = g.ops;
      s.pattern = i == 1 ? Pattern::PerBlock : Pattern::Uniform;  // per-block: the logical block ids matter
      s.space = i == 0 ? Space::Shared : Space::Global;
      s.k = 8;
      s.dist = Dist::Full;
      s.special_permille = 50;
      s.seed = seed++;
      s.stress = kinds[(ran + i) % kinds.size()];
      normalise(s, impl->limits, uint64_t(1) << 16);
      const auto t = run_trial(s, BackendKind::Cuda, opt);
      ASSERT_EQ(t.verdict, Verdict::Pass) << describe(s) << ": " << t.why();
      ++ran;
    }
  }
  EXPECT_GT(ran, 300u);
}

// The weak-memory cases the campaign shrank to on an H100 (selftest --bugs
// weak_memory, sm_90), replayed from their tokens: each fails again under
// its stress within 50 runs, never as a hang or crash.  (The same stress on
// other small shapes of these bugs showed nothing in 50 runs: the shape the
// campaign found matters.)  Their rates without the stress are printed.
TEST(Stress, TheShrunkWeakMemoryCasesFailAgainUnderTheirStress) {
  const char* tokens[] = {
      // buggy.lock.textbook: 2 x 3 x 1, 264 hammering blocks, a 100 us barrier
      "as3.0_1_0.buggy.lock.textbook@native.cas.u32.2.3.1.0.3.1.1.1.0.0.0.20.4.0.1048576.264.250.4.8.0.0.100.0."
      "caaf7e53",
      // buggy.lock.unfenced: the same shape and stress
      "as3.0_1_0.buggy.lock.unfenced@native.cas.u32.2.3.1.0.3.1.1.1.0.0.0.20.4.0.1048576.264.250.4.8.0.0.100.0."
      "4a172771",
  };
  for (const char* token : tokens) {
    std::string error;
    const auto r = decode_repro_token(token, error);
    ASSERT_TRUE(r) << error;
    TrialSpec s = r->spec;
    ASSERT_TRUE(s.stress.any()) << token;
    RunOptions opt;
    if (r->knobs) opt.knobs = *r->knobs;
    uint32_t failed = 0, runs = 0;
    for (; runs < 50 && failed == 0; ++runs) {
      const auto t = run_trial(s, BackendKind::Cuda, opt);
      ASSERT_TRUE(t.verdict == Verdict::Pass || t.verdict == Verdict::Fail) << describe(s) << ": " << t.why();
      failed += t.verdict == Verdict::Fail;
    }
    EXPECT_GT(failed, 0u) << s.impl << " did not fail again in 50 stressed runs";
    TrialSpec bare = s;
    bare.stress = {};
    uint32_t bare_failed = 0;
    for (int i = 0; i < 20; ++i) bare_failed += run_trial(bare, BackendKind::Cuda, opt).verdict == Verdict::Fail;
    std::printf("%-36s failed again after %u stressed runs; without its stress %u of 20\n", s.impl.c_str(), runs,
                bare_failed);
  }
}
