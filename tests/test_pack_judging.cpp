// How a packed instance gets its verdict (harness/pipeline/pack_judging.hpp,
// the device verdict's rules in harness/backend/packed.hpp), on the CPU:
// histories run on the cpu backend stand for an instance's slice of a
// packed launch, and device verdicts are made up, so that every path an
// instance can take is taken (passed on the device, judged on the host, the
// two checkers compared, stopped by another instance's loop).  The device
// side is the GPU suite's (tests/test_gpu_pack_judging.cpp).
#include <gtest/gtest.h>

#include <string>

#include "harness/backend/packed.hpp"
#include "harness/pipeline/pack_judging.hpp"
#include "harness/pipeline/run_packed.hpp"
#include "harness/workload/workload.hpp"

using namespace atomstress;

namespace {

TrialSpec spec_of(const char* impl, uint64_t seed) {
  TrialSpec s;
  s.impl = impl;
  s.grid = 1;
  s.block = 32;
  s.ops_per_thread = 1;
  s.pattern = Pattern::Uniform;
  s.k = 4;
  s.seed = seed;
  return s;
}

// An instance as a packed launch leaves it, its history from the cpu backend.
PackedTrial ran_on_cpu(const TrialSpec& spec) {
  PackedTrial p;
  std::string error;
  p.w = expand_shape(spec, error);
  EXPECT_TRUE(p.w) << error;
  expand_arrays(*p.w);
  p.s = setup_trial(*p.w, error);
  EXPECT_TRUE(p.s) << error;
  EXPECT_TRUE(run_workload(*p.w, *p.s, BackendKind::Cpu, RunOptions{}, p.h, error)) << error;
  p.h.kernel_ms = 0.25;
  return p;
}

PackedTrial with_device(PackedTrial p, uint8_t flags) {
  p.device_judged = true;
  p.device = PackDeviceVerdict{flags, 7, 123, 0.5};
  return p;
}

RunOptions checker_is(CheckerKind c) {
  RunOptions o;
  o.policy.checker = c;
  return o;
}

// The verdict and finding the host gives the same history alone.
Outcome host_alone(const TrialSpec& spec, PackedTrial p) {
  Outcome out;
  out.spec = spec;
  out.backend = BackendKind::Cpu;
  judge_on_host(*p.w, *p.s, p.h, RunOptions{}, out);
  return out;
}

}  // namespace

TEST(PackJudging, CpuCheckerNeverAsksTheDevice) {
  int asked = 0;
  auto supported = [&] { return ++asked, true; };
  EXPECT_FALSE(packs_judged_on_device(CheckerKind::Cpu, supported));
  EXPECT_EQ(asked, 0);
  for (const CheckerKind c : {CheckerKind::Auto, CheckerKind::Gpu, CheckerKind::Both}) {
    EXPECT_TRUE(packs_judged_on_device(c, supported)) << to_string(c);
    EXPECT_FALSE(packs_judged_on_device(c, [] { return false; })) << to_string(c);
  }
  EXPECT_EQ(asked, 3);
}

TEST(PackJudging, WhichInstancesTheHostJudges) {
  const PackDeviceVerdict passed{};
  EXPECT_TRUE(host_judges(nullptr, CheckerKind::Auto));
  EXPECT_FALSE(host_judges(&passed, CheckerKind::Auto));
  EXPECT_FALSE(host_judges(&passed, CheckerKind::Gpu));
  EXPECT_TRUE(host_judges(&passed, CheckerKind::Both));
  for (const uint8_t f : {kPackUnexplained, kPackGaveUp, kPackBlockScopeGlobal, kPackWrapRange, kPackNotJudged}) {
    const PackDeviceVerdict v{f, 0, 0, 0};
    EXPECT_TRUE(host_judges(&v, CheckerKind::Gpu)) << int(f);
    // Only the checker's own verdict is compared with the host's.
    EXPECT_EQ(trail_test_alone(v), f == kPackUnexplained) << int(f);
  }
  EXPECT_TRUE(trail_test_alone(passed));
}

TEST(PackJudging, FewHistoriesComeBackOneByOne) {
  EXPECT_FALSE(copy_back_in_bulk(0, 4096));
  EXPECT_FALSE(copy_back_in_bulk(1, 4096));
  EXPECT_FALSE(copy_back_in_bulk(16, 4096));
  EXPECT_TRUE(copy_back_in_bulk(17, 4096));
  EXPECT_FALSE(copy_back_in_bulk(1, 4));
  EXPECT_TRUE(copy_back_in_bulk(2, 4));  // half a small pack: one copy is cheaper
}

TEST(PackJudging, PassedOnTheDeviceUsesTheDevicesCounts) {
  const TrialSpec spec = spec_of("native.add.i32", 1);
  PackedTrial p = with_device(ran_on_cpu(spec), 0);
  p.h.old.clear();  // its history never left the device: nothing of it is read
  p.h.retries.clear();
  p.h.gave_up.clear();
  p.h.final_mem.clear();
  const auto out = judge_packed_trial(spec, p, BackendKind::Cuda, checker_is(CheckerKind::Auto));
  ASSERT_TRUE(out);
  EXPECT_EQ(out->verdict, Verdict::Pass);
  EXPECT_TRUE(out->checked_on_gpu);
  EXPECT_EQ(out->total_retries, 123u);
  EXPECT_EQ(out->max_retries, 7u);
  EXPECT_EQ(out->check_ms, 0.5);
  EXPECT_EQ(out->run_ms, 0.25);
  EXPECT_EQ(out->ops, 32u);
  EXPECT_EQ(out->spec.seed, spec.seed);
  EXPECT_EQ(out->backend, BackendKind::Cuda);
}

TEST(PackJudging, HostJudgedWithoutADeviceVerdict) {
  for (const char* impl : {"native.add.i32", "buggy.returns_new.add.f32"}) {
    const TrialSpec spec = spec_of(impl, 2);
    PackedTrial p = ran_on_cpu(spec);
    const Outcome alone = host_alone(spec, p);
    const auto out = judge_packed_trial(spec, p, BackendKind::Cpu, checker_is(CheckerKind::Cpu));
    ASSERT_TRUE(out) << impl;
    EXPECT_EQ(out->verdict, alone.verdict) << impl;
    EXPECT_EQ(out->why(), alone.why()) << impl;
    EXPECT_FALSE(out->checked_on_gpu) << impl;
  }
  EXPECT_NE(host_alone(spec_of("buggy.returns_new.add.f32", 2), ran_on_cpu(spec_of("buggy.returns_new.add.f32", 2)))
                .verdict,
            Verdict::Pass);
}

TEST(PackJudging, FailingOnTheDeviceIsExplainedByTheHost) {
  const TrialSpec spec = spec_of("buggy.returns_new.add.f32", 3);
  PackedTrial p = with_device(ran_on_cpu(spec), kPackUnexplained);
  const Outcome alone = host_alone(spec, p);
  ASSERT_EQ(alone.verdict, Verdict::Fail);
  const auto out = judge_packed_trial(spec, p, BackendKind::Cuda, checker_is(CheckerKind::Gpu));
  ASSERT_TRUE(out);
  EXPECT_EQ(out->verdict, Verdict::Fail);
  EXPECT_EQ(out->why(), alone.why());
  EXPECT_TRUE(out->checked_on_gpu);
}

TEST(PackJudging, CheckersThatDisagreeAreAnError) {
  // The device passed what the host fails (seen under --checker both), and
  // failed what the host passes (seen whenever the device fails one).
  const TrialSpec bad = spec_of("buggy.returns_new.add.f32", 4), good = spec_of("native.add.i32", 4);
  PackedTrial p = with_device(ran_on_cpu(bad), 0);
  auto out = judge_packed_trial(bad, p, BackendKind::Cuda, checker_is(CheckerKind::Both));
  ASSERT_TRUE(out);
  EXPECT_EQ(out->verdict, Verdict::Error);
  EXPECT_NE(out->why().find("the GPU checker passed a history the host's checker failed"), std::string::npos)
      << out->why();
  PackedTrial q = with_device(ran_on_cpu(good), kPackUnexplained);
  out = judge_packed_trial(good, q, BackendKind::Cuda, checker_is(CheckerKind::Gpu));
  ASSERT_TRUE(out);
  EXPECT_EQ(out->verdict, Verdict::Error);
  EXPECT_NE(out->why().find("the GPU checker failed a history the host's checker passed"), std::string::npos)
      << out->why();
  // Under both, agreeing checkers give the host's verdict, with its counts.
  PackedTrial r = with_device(ran_on_cpu(good), 0);
  out = judge_packed_trial(good, r, BackendKind::Cuda, checker_is(CheckerKind::Both));
  ASSERT_TRUE(out);
  EXPECT_EQ(out->verdict, Verdict::Pass);
  EXPECT_NE(out->total_retries, 123u);
}

TEST(PackJudging, HostOnlyRulesAreNotComparedWithTheChecker) {
  // A wrap or scope flag (the host words the rule): a history the trail test
  // failed on the device but the host passes is no disagreement.
  const TrialSpec spec = spec_of("native.add.i32", 5);
  PackedTrial p = with_device(ran_on_cpu(spec), kPackUnexplained | kPackBlockScopeGlobal);
  const auto out = judge_packed_trial(spec, p, BackendKind::Cuda, checker_is(CheckerKind::Gpu));
  ASSERT_TRUE(out);
  EXPECT_EQ(out->verdict, Verdict::Pass);
}

// An instance whose inputs the device expanded comes back with them (the
// runner copies them into its workload) but without a setup: the host makes
// the setup from the inputs that ran and gives the verdict it gives with one.
// Inputs that did not come back are an ERROR, never made anew on the host.
TEST(PackJudging, InputsExpandedOnTheDeviceAreJudgedAsTheyRan) {
  const TrialSpec spec = spec_of("buggy.returns_new.add.f32", 8);
  ASSERT_NE(find_impl(spec.impl), nullptr);
  PackedTrial with_setup = with_device(ran_on_cpu(spec), kPackUnexplained);
  PackedTrial without = with_setup;
  without.s.reset();
  const auto a = judge_packed_trial(spec, with_setup, BackendKind::Cuda, checker_is(CheckerKind::Gpu));
  const auto b = judge_packed_trial(spec, without, BackendKind::Cuda, checker_is(CheckerKind::Gpu));
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->verdict, Verdict::Fail) << a->why();
  EXPECT_EQ(a->verdict, b->verdict);
  EXPECT_EQ(a->why(), b->why());
  ASSERT_TRUE(without.s);
  EXPECT_EQ(without.s->mem_init, with_setup.s->mem_init);

  PackedTrial not_back = with_device(ran_on_cpu(spec), kPackUnexplained);
  not_back.s.reset();
  not_back.w->arrays_elsewhere = true;
  const auto c = judge_packed_trial(spec, not_back, BackendKind::Cuda, checker_is(CheckerKind::Gpu));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->verdict, Verdict::Error);
  EXPECT_NE(c->why().find("did not come back"), std::string::npos) << c->why();
  // An instance the device passed needs neither inputs nor setup.
  PackedTrial passed = with_device(ran_on_cpu(spec_of("native.add.i32", 9)), 0);
  passed.s.reset();
  passed.w->arrays_elsewhere = true;
  const auto d = judge_packed_trial(spec_of("native.add.i32", 9), passed, BackendKind::Cuda, checker_is(CheckerKind::Gpu));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->verdict, Verdict::Pass);
}

TEST(PackJudging, GaveUpIsTheHangRuleOrStoppedByAnother) {
  const TrialSpec spec = spec_of("native.add.i32", 6);
  PackedTrial stopped = with_device(ran_on_cpu(spec), kPackGaveUp);
  stopped.h.gave_up[3] = uint8_t(GaveUp::Aborted);
  EXPECT_FALSE(judge_packed_trial(spec, stopped, BackendKind::Cuda, checker_is(CheckerKind::Gpu)))
      << "an instance stopped by another's loop runs alone";
  PackedTrial own = with_device(ran_on_cpu(spec), kPackGaveUp);
  own.h.gave_up[3] = uint8_t(GaveUp::Aborted);
  own.h.gave_up[5] = uint8_t(GaveUp::Budget);
  const auto out = judge_packed_trial(spec, own, BackendKind::Cuda, checker_is(CheckerKind::Gpu));
  ASSERT_TRUE(out);
  EXPECT_EQ(out->verdict, Verdict::Hang);
  EXPECT_NE(out->why().find("op #5"), std::string::npos) << out->why();
}

// A pack's launches (run_packed.hpp group_launches), from the specs alone:
// one entry each, every spec that may pack in exactly one, in spec order, at most kPackLaunchOps
// ops; an entry's instances spread over the launch threads while a launch
// keeps kPackMinLaunchOps ops.
TEST(PackJudging, LaunchesHoldOneEntryEachSpreadOverTheLaunchThreads) {
  std::vector<TrialSpec> specs;
  auto add = [&](const char* impl, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      TrialSpec s;
      s.impl = impl;
      s.grid = 1;
      s.block = 32;
      s.pattern = Pattern::Uniform;
      s.k = 4;
      s.seed = specs.size();
      std::string error;
      ASSERT_TRUE(expand_shape(s, error)) << error;
      specs.push_back(s);
    }
  };
  add("native.add.i32", 2048);
  add("cas.add.i32", 100);
  add("native.add.i32", 2048);
  specs.emplace_back(specs.front());
  specs.back().impl = "no.such.entry";  // does not pack: in no launch
  specs.emplace_back(specs.front());
  specs.back().block = 1024;
  specs.back().ops_per_thread = 8;  // more than kPackMaxOps: in no launch

  auto check = [&](size_t spread, size_t native_launches) {
    const auto launches = group_launches(specs, spread);
    std::vector<int> seen(specs.size(), 0);
    size_t native = 0;
    for (const auto& l : launches) {
      ASSERT_FALSE(l.empty());
      const Entry* entry = find_impl(specs[l.front()].impl);
      uint64_t ops = 0;
      for (size_t j = 0; j < l.size(); ++j) {
        ++seen[l[j]];
        EXPECT_EQ(find_impl(specs[l[j]].impl), entry);
        if (j > 0) {
          EXPECT_LT(l[j - 1], l[j]);
        }
        ops += specs[l[j]].ops();
      }
      EXPECT_LE(ops, kPackLaunchOps);
      if (std::string(entry->name) == "native.add.i32") {
        ++native;
        EXPECT_EQ(ops, 4096 * 32 / native_launches) << "spread " << spread;
      } else {
        EXPECT_EQ(ops, 100 * 32u);  // below kPackMinLaunchOps: one launch
      }
    }
    for (size_t i = 0; i + 2 < specs.size(); ++i) EXPECT_EQ(seen[i], 1) << i;
    EXPECT_EQ(seen[specs.size() - 2], 0);
    EXPECT_EQ(seen.back(), 0);
    EXPECT_EQ(native, native_launches) << "spread " << spread;
  };
  check(1, 2);   // 131072 ops: the kPackLaunchOps cap
  check(4, 4);   // 32768 ops each
  check(64, 16);  // kPackMinLaunchOps (8192) each
}
