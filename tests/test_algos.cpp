// The algorithms on the CPU backend, and their oracles: each oracle passes a
// correct run and names the fault in a corrupted one (a test that cannot
// fail proves nothing).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>

#include "harness/pipeline/run_trial.hpp"
#include "harness/registry/bits.hpp"
#include "properties/generators.hpp"
#include "test_support.hpp"

using namespace atomstress;

namespace {

using AlgoRun = atomstress::testing::CpuRun;

AlgoRun run_cpu(const std::string& impl, uint32_t grid, uint32_t block, uint32_t ops, Pattern p = Pattern::Single,
            uint32_t k = 1, Dist dist = Dist::Full, uint32_t special = 0, uint64_t seed = 7) {
  TrialSpec spec;
  spec.impl = impl;
  spec.grid = grid;
  spec.block = block;
  spec.ops_per_thread = ops;
  spec.pattern = p;
  spec.k = k;
  spec.dist = dist;
  spec.special_permille = special;
  spec.seed = seed;
  return atomstress::testing::run_on_cpu(spec);
}

Finding check(const AlgoRun& r) { return check_trial(r.w, r.s, r.h); }

}  // namespace

TEST(Algorithms, EveryFormFitsTheAtomicsItShould) {
  // Forms pick their atomics from the catalogue by operation and type.
  EXPECT_NE(find_impl("sum.block@cas.add.f64"), nullptr);
  EXPECT_NE(find_impl("hist.global@native.inc.u32"), nullptr);
  EXPECT_NE(find_impl("argmax.cas@native.cas.u64"), nullptr);
  EXPECT_NE(find_impl("lock.device@native.exch.u32"), nullptr);
  EXPECT_EQ(find_impl("sum.block@native.add_block.i32"), nullptr);  // block scope: not for a grid-wide sum
  EXPECT_EQ(find_impl("sum.block@buggy.plain_rmw.add.i32"), nullptr);
  EXPECT_EQ(find_impl("hist.shared@native.inc.u32"), nullptr);       // merging needs an add
  // 16-bit float adds sum (checked like f32), but count nothing; a 64-bit
  // inc counts into global bins.
  EXPECT_NE(find_impl("sum.block@native.add.f16"), nullptr);
  EXPECT_NE(find_impl("sum.warp_xor@cas.add.bf16"), nullptr);
  EXPECT_EQ(find_impl("append@native.add.f16"), nullptr);
  EXPECT_EQ(find_impl("hist.global@cas.add.bf16"), nullptr);
  EXPECT_NE(find_impl("hist.global@cas.inc.u64"), nullptr);
  EXPECT_EQ(find_impl("hist.shared@cas.inc.u64"), nullptr);
  EXPECT_EQ(find_impl("hist.global@cas.dec.u64"), nullptr);
  EXPECT_GE(match_impls("algorithms").size(), 60u);
  EXPECT_EQ(match_impls("buggy.*@*").size(), 11u);  // buggy/forms.cuh 6, buggy/weak_memory.cuh 5
  EXPECT_EQ(match_impls("weak_memory").size(), 6u);  // those 5 and buggy.lock.unfenced
}

TEST(Algorithms, AppendOracleCatchesDuplicatesHolesAndStrayWrites) {
  const AlgoRun ok = run_cpu("append@native.add.u32", 3, 40, 3);
  ASSERT_TRUE(check(ok).ok()) << check(ok).explanation;
  const uint32_t count = uint32_t(ok.h.final_mem[0]);
  ASSERT_GT(count, 2u);
  AlgoRun dup = ok;
  dup.h.out[1] = dup.h.out[0];
  EXPECT_NE(check(dup).explanation.find("appears twice"), std::string::npos) << check(dup).explanation;
  AlgoRun hole = ok;
  hole.h.out[count - 1] = kEmptySlot;
  EXPECT_NE(check(hole).explanation.find("hole"), std::string::npos) << check(hole).explanation;
  AlgoRun stray = ok;
  stray.h.out[count] = 0;
  EXPECT_NE(check(stray).explanation.find("past the count"), std::string::npos) << check(stray).explanation;
  AlgoRun lost = ok;
  lost.h.final_mem[0] = count - 1;
  EXPECT_FALSE(check(lost).ok());
}

TEST(Algorithms, SumOracleIsExactForIntegersAndBitwiseForFloatChains) {
  for (const char* impl : {"sum.element@native.add.i32", "sum.thread@native.add.u64", "sum.block@cas.add.i32"}) {
    AlgoRun r = run_cpu(impl, 4, 33, 3, Pattern::Uniform, 3);
    ASSERT_TRUE(check(r).ok()) << impl << ": " << check(r).explanation;
    r.h.final_mem[1] += 1;
    EXPECT_NE(check(r).explanation.find("exact"), std::string::npos) << impl << ": " << check(r).explanation;
  }
  for (const char* impl : {"sum.element@native.add.f32", "sum.block@cas.add.f32", "sum.thread@native.add.f64"}) {
    AlgoRun r = run_cpu(impl, 4, 33, 3, Pattern::PerBlock, 1, Dist::Full, 30);
    ASSERT_TRUE(check(r).ok()) << impl << ": " << check(r).explanation;
    // One ulp off: within the error bound, but no order of the partial sums
    // gives it, so the atomic's history cannot be explained.
    AlgoRun ulp = r;
    for (uint32_t j = 0; j < 4; ++j)
      if (!std::isnan(from_bits<float>(ulp.h.final_mem[j]))) {
        ulp.h.final_mem[j] ^= 1;
        break;
      }
    EXPECT_FALSE(check(ulp).ok()) << impl;
  }
}

TEST(Algorithms, FloatSumBoundRejectsLargeErrors) {
  AlgoRun r = run_cpu("sum.element@native.add.f32", 2, 64, 4, Pattern::Single, 1, Dist::Full, 0);
  ASSERT_TRUE(check(r).ok()) << check(r).explanation;
  const float got = from_bits<float>(r.h.final_mem[0]);
  r.h.final_mem[0] = to_bits<float>(got + 1000.0f);
  const auto v = check(r);
  EXPECT_NE(v.explanation.find("exceeds the bound"), std::string::npos) << v.explanation;
}

TEST(Algorithms, FloatSumOfIntegersMustBeExact) {
  // Small integers: every partial sum is exact, so any order gives the exact sum.
  AlgoRun r = run_cpu("sum.thread@cas.add.f32", 3, 32, 4, Pattern::Single, 1, Dist::Small, 0);
  ASSERT_TRUE(check(r).ok()) << check(r).explanation;
  r.h.final_mem[0] = to_bits<float>(from_bits<float>(r.h.final_mem[0]) + 1.0f);
  EXPECT_FALSE(check(r).ok());
}

// 16-bit float sums: the same oracle as f32 (bitwise chain, error bound,
// exact integer sums), in the format's own constants.
TEST(Algorithms, HalfFloatSumsAreCheckedLikeF32) {
  auto finite = [](VK k, uint64_t b) { return (b & 0x7fff) < (k == VK::F16 ? 0x7c00u : 0x7f80u); };
  auto value = [](VK k, uint64_t b) {
    return k == VK::F16 ? prim::to_double(from_bits<__half>(b)) : prim::to_double(from_bits<__nv_bfloat16>(b));
  };
  auto bits = [](VK k, double v) {
    return k == VK::F16 ? to_bits(prim::narrow<__half>(v)) : to_bits(prim::narrow<__nv_bfloat16>(v));
  };
  for (const char* impl : {"sum.element@native.add.f16", "sum.block@cas.add.f16", "sum.thread@native.add.bf16",
                           "sum.element@cas.add.bf16"}) {
    SCOPED_TRACE(impl);
    AlgoRun r = run_cpu(impl, 4, 33, 3, Pattern::PerBlock, 1, Dist::Full, 30);
    const VK k = r.w.impl->kind;
    ASSERT_TRUE(check(r).ok()) << check(r).explanation;
    // One ulp off: no order of the partial sums gives it.
    AlgoRun ulp = r;
    for (uint32_t j = 0; j < 4; ++j)
      if (finite(k, ulp.h.final_mem[j])) {
        ulp.h.final_mem[j] ^= 1;
        break;
      }
    EXPECT_FALSE(check(ulp).ok());
    // Far off: outside the error bound.
    AlgoRun far = run_cpu(impl, 1, 16, 2, Pattern::Single, 1, Dist::Full, 0);
    ASSERT_TRUE(check(far).ok()) << check(far).explanation;
    double sumabs = std::fabs(value(k, far.s.mem_init[0]));
    for (uint64_t x : far.w.a) sumabs += std::fabs(value(k, x));
    far.h.final_mem[0] = bits(k, value(k, far.h.final_mem[0]) + 2 * sumabs + 64);
    EXPECT_NE(check(far).explanation.find("exceeds the bound"), std::string::npos) << check(far).explanation;
    // Small integers: off by one is caught (by the bound, where it is tight).
    AlgoRun ints = run_cpu(impl, 1, 8, 2, Pattern::Single, 1, Dist::Small, 0);  // |sum| <= 136 < 2^8
    ASSERT_TRUE(check(ints).ok()) << check(ints).explanation;
    ints.h.final_mem[0] = bits(k, value(k, ints.h.final_mem[0]) + 1);
    EXPECT_FALSE(check(ints).ok());
  }
  // Where the bound is loose, exactness alone: every partial sum of small
  // integers is exact below 2^11 (f16) or 2^8 (bf16).
  for (const char* impl : {"sum.element@native.add.f16", "sum.element@cas.add.bf16"}) {
    // 33 terms in [-8, 8]: sum|x| is below 2^8 for this seed (else the rule would not apply).
    AlgoRun ints = run_cpu(impl, 1, 16, 2, Pattern::Single, 1, Dist::Small, 0);
    const VK k = ints.w.impl->kind;
    ASSERT_TRUE(check(ints).ok()) << check(ints).explanation;
    ints.h.final_mem[0] = bits(k, value(k, ints.h.final_mem[0]) + 1);
    EXPECT_NE(check(ints).explanation.find("every partial sum is exact"), std::string::npos)
        << impl << ": " << check(ints).explanation;
  }
}

TEST(Algorithms, SumWithANanTermMustBeNan) {
  AlgoRun r = run_cpu("sum.element@native.add.f64", 1, 8, 8, Pattern::Single, 1, Dist::Full, 300);
  bool has_nan = false;
  for (uint64_t x : r.w.a) has_nan |= std::isnan(from_bits<double>(x));
  has_nan |= std::isnan(from_bits<double>(r.s.mem_init[0]));
  ASSERT_TRUE(has_nan) << "seed gives no NaN term";
  ASSERT_TRUE(check(r).ok()) << check(r).explanation;
  r.h.final_mem[0] = to_bits<double>(1.0);
  EXPECT_FALSE(check(r).ok());
}

TEST(Algorithms, HistogramOracleCountsLostIncrements) {
  // (hist.global@cas.inc.u64: 64-bit initial counts above 2^32, which an
  // inc limit of 2^32 - 1 would wrap to 0.)
  for (const char* impl : {"hist.global@native.inc.u32", "hist.shared@native.add.u64", "hist.global@cas.add.i32",
                           "hist.global@cas.inc.u64"}) {
    AlgoRun r = run_cpu(impl, 3, 50, 4, Pattern::Zipf, 16);
    ASSERT_TRUE(check(r).ok()) << impl << ": " << check(r).explanation;
    std::vector<uint32_t> count(r.s.param, 0);
    for (uint32_t k : r.s.key) ++count[k];
    const uint32_t b = uint32_t(std::max_element(count.begin(), count.end()) - count.begin());
    r.h.final_mem[b] -= 2;
    EXPECT_NE(check(r).explanation.find("2 increments lost"), std::string::npos) << impl << ": " << check(r).explanation;
  }
}

TEST(Algorithms, ArgBestPoliciesForNanSignedZeroAndTies) {
  // Values chosen by hand through a workload with explicit operands.
  const Entry* cas = find_impl("argmax.cas@native.cas.u64");
  const Entry* mx = find_impl("argmax.max@native.max.u64");
  const Entry* mn = find_impl("argmin.min@native.min.u64");
  auto run_values = [](const Entry* impl, std::vector<float> v) {
    TrialSpec spec;
    spec.impl = impl->name;
    spec.grid = 1;
    spec.block = uint32_t(v.size());
    std::string err;
    Workload w = *expand(spec, err);
    for (size_t i = 0; i < v.size(); ++i) w.a[i] = to_bits<float>(v[i]);
    atomstress::Setup s = *setup_trial(w, err);
    History h;
    RunOptions opt;
    EXPECT_TRUE(run_workload(w, s, BackendKind::Cpu, opt, h, err));
    EXPECT_TRUE(check_trial(w, s, h).ok()) << check_trial(w, s, h).explanation;
    return h.final_mem[0];
  };
  const float nan = std::nanf("");
  // cas form: NaN never wins; -0 == +0, so the first of them (index 1) wins.
  EXPECT_EQ(run_values(cas, {nan, -0.0f, 0.0f, -1.0f}), (uint64_t(to_bits(-0.0f)) << 32) | 1);
  // Ties go to the lowest index.
  EXPECT_EQ(run_values(cas, {2.0f, 5.0f, 5.0f, 5.0f}) & 0xffffffffu, 1u);
  // max form: -0 < +0, so +0 at index 2 wins.
  EXPECT_EQ(run_values(mx, {nan, -0.0f, 0.0f, -1.0f}) & 0xffffffffu, ~2u);
  EXPECT_EQ(run_values(mn, {3.0f, nan, 3.0f, 7.0f}) & 0xffffffffu, 0u);
  // All NaN: no winner.
  EXPECT_EQ(run_values(cas, {nan, nan}), ~0ull);
  EXPECT_EQ(run_values(mx, {nan, nan}), 0ull);
}

TEST(Algorithms, ArgBestOracleCatchesAWrongWinner) {
  AlgoRun r = run_cpu("argmax.cas@native.cas.u64", 2, 32, 2, Pattern::Single, 1, Dist::Small);
  ASSERT_TRUE(check(r).ok()) << check(r).explanation;
  r.h.final_mem[0] ^= 1;  // another index
  EXPECT_NE(check(r).explanation.find("sequential answer"), std::string::npos) << check(r).explanation;
}

TEST(Algorithms, LockOracleCatchesALostUpdateAndAHeldLock) {
  for (const char* impl : {"lock.device@native.cas.u32", "lock.block@native.exch.u32"}) {
    AlgoRun r = run_cpu(impl, 3, 20, 3, Pattern::Uniform, 2);
    ASSERT_TRUE(check(r).ok()) << impl << ": " << check(r).explanation;
    AlgoRun held = r;
    held.h.final_mem[0] = 1;
    EXPECT_NE(check(held).explanation.find("still held"), std::string::npos);
    // Two sections that read the same value: a lost update.
    AlgoRun lost = r;
    uint64_t e1 = 0, e2 = 1;
    while (lost.s.key[e2] != lost.s.key[e1] || lost.w.block_of(e2) != lost.w.block_of(e1)) ++e2;
    lost.h.old[e2] = lost.h.old[e1];
    EXPECT_FALSE(check(lost).ok()) << impl;
  }
}

// The weak-memory idioms' oracles (algorithms/weak_memory.cuh): each passes
// its own run and rejects the outcome its bug would give.
TEST(Algorithms, WeakMemoryLockOraclesCatchALostUpdateAndAHeldLock) {
  for (const char* impl : {"lock.textbook@native.cas.u32", "lock.l1_cached@native.cas.u32", "lock.ticket@native.add.u32"}) {
    AlgoRun r = run_cpu(impl, 3, 20, 3, Pattern::Uniform, 2);
    ASSERT_TRUE(check(r).ok()) << impl << ": " << check(r).explanation;
    AlgoRun held = r;
    held.h.final_mem[0] += 1;  // a ticket lock: one ticket taken and never served
    EXPECT_NE(check(held).explanation.find("still held"), std::string::npos) << impl;
    AlgoRun lost = r;
    uint64_t e1 = 0, e2 = 1;
    while (lost.s.key[e2] != lost.s.key[e1]) ++e2;
    lost.h.old[e2] = lost.h.old[e1];
    EXPECT_FALSE(check(lost).ok()) << impl;
  }
  std::string err;
  TrialSpec big;
  big.impl = "lock.ticket@native.add.u32";
  big.grid = 2;
  big.block = 1024;
  big.ops_per_thread = 40;  // 81920 sections: past the 16-bit tickets
  EXPECT_FALSE(setup_trial(*expand(big, err), err));
  EXPECT_NE(err.find("ticket"), std::string::npos) << err;
}

TEST(Algorithms, MessageOracleCatchesDataSeenBeforeItsFlag) {
  // One block: the cpu backend runs its threads in turn, so only the last
  // thread (whose partner, thread 0, has run) sees a flag, in each round.
  AlgoRun r = run_cpu("message.flag@native.exch.u32", 1, 8, 2);
  ASSERT_TRUE(check(r).ok()) << check(r).explanation;
  uint64_t seen = 0;
  for (uint64_t v : r.h.old) seen += (v >> 32) != 0;
  ASSERT_EQ(seen, 2u);
  // A reader that saw the flag but read the initial data.
  AlgoRun stale = r;
  for (uint64_t& v : stale.h.old)
    if (v >> 32) {
      v &= ~uint64_t(0xffffffffu);
      break;
    }
  EXPECT_NE(check(stale).explanation.find("became visible after the flag"), std::string::npos)
      << check(stale).explanation;
  AlgoRun unsent = r;
  unsent.h.final_mem[0] = 0;  // a flag never raised
  EXPECT_FALSE(check(unsent).ok());
}

TEST(Algorithms, LastBlockOracleCatchesAStalePartial) {
  AlgoRun r = run_cpu("sum.last_block@native.inc.u32", 5, 33, 3);
  ASSERT_TRUE(check(r).ok()) << check(r).explanation;
  AlgoRun stale = r;
  stale.h.final_mem[1] += 7;  // the total from a partial not yet visible
  EXPECT_NE(check(stale).explanation.find("not visible yet"), std::string::npos) << check(stale).explanation;
  AlgoRun twice = r;
  twice.h.old[0] = twice.h.old[33];  // two blocks with one ticket
  EXPECT_NE(check(twice).explanation.find("ticket"), std::string::npos) << check(twice).explanation;
  AlgoRun counter = r;
  counter.h.final_mem[0] = 5;
  EXPECT_FALSE(check(counter).ok());
}

TEST(Algorithms, BadInputGetsAOneLineError) {
  TrialSpec spec;
  spec.impl = "sum.block@native.add.f32";
  spec.space = Space::Shared;
  std::string err;
  EXPECT_FALSE(expand(spec, err));
  EXPECT_NE(err.find("global memory"), std::string::npos) << err;
  spec.space = Space::Global;
  spec.pattern = Pattern::PerPage;
  EXPECT_FALSE(expand(spec, err));
  EXPECT_NE(err.find("pattern"), std::string::npos) << err;
  spec.impl = "hist.shared@native.add.u32";
  spec.pattern = Pattern::Uniform;
  spec.k = 1u << 20;  // 4 MiB of privatised bins
  auto w = expand(spec, err);
  ASSERT_TRUE(w);
  EXPECT_FALSE(setup_trial(*w, err));
  EXPECT_NE(err.find("shared memory"), std::string::npos) << err;
  // A warp-intrinsic form on the cpu backend.
  spec.impl = "sum.warp_down@native.add.i32";
  const auto t = run_trial(spec, BackendKind::Cpu, RunOptions{});
  EXPECT_EQ(t.verdict, Verdict::Error);
  EXPECT_NE(t.why().find("cuda backend"), std::string::npos) << t.why();
}

// Generated specs over every correct cpu-capable algorithm pass on the cpu
// backend (the property the selftest runs at scale).
RC_GTEST_PROP(Algorithms, CorrectAlgorithmsPassGeneratedSpecsOnCpu, ()) {
  static const auto cfg = properties::default_config(BackendKind::Cpu, match_impls("algorithms"));
  const TrialSpec spec = *properties::gen_trial_spec(cfg);
  RunOptions opt;
  opt.knobs.cpu_threads = 2;
  const auto t = run_trial(spec, BackendKind::Cpu, opt);
  RC_ASSERT(t.verdict == Verdict::Pass);
}

// A deliberately broken algorithm the cpu backend can show is caught.
TEST(Algorithms, WriteBeforeReserveAppendIsCaughtOnCpu) {
  TrialSpec spec;
  spec.impl = "buggy.append.write_first@native.add.u32";
  spec.grid = 8;
  spec.block = 64;
  spec.ops_per_thread = 4;
  spec.zipf_s = 4;
  RunOptions opt;
  opt.knobs.yield_permille = 200;
  opt.knobs.cpu_threads = 8;  // more host threads than cores: the OS interleaves them too
  int failures = 0;
  // Up to 200 seeds, stopping at the first failure: on a loaded 2-core
  // machine the host threads may run one after another for many trials.
  for (uint64_t seed = 0; seed < 200 && failures == 0; ++seed) {
    spec.seed = seed;
    failures += run_trial(spec, BackendKind::Cpu, opt).verdict == Verdict::Fail;
  }
  EXPECT_GT(failures, 0);
}
