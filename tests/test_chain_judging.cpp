// An algorithm's chain of atomics judged by a lent judge
// (check/chain_judging.hpp, pipeline/device_chains.hpp), on the CPU: a fake
// judge stands in for the GPU checker, so that each way its verdict can
// meet the host's is reached.  The GPU's own judge is tested in
// tests/test_gpu.cpp (ChainsOnTheDevice).
#include <gtest/gtest.h>

#include "harness/check/chain_judging.hpp"
#include "harness/pipeline/device_chains.hpp"
#include "harness/pipeline/run_trial.hpp"
#include "test_support.hpp"

using namespace atomstress;

namespace {

struct FakeJudge final : ChainJudge {
  bool take = true, can = true, says_ok = true;
  unsigned asked = 0;
  uint64_t last_ops = 0;
  bool takes(const Entry&, uint64_t ops) override {
    last_ops = ops;
    return take;
  }
  bool explains(const HostChain& chain, DeviceVerdict& out, std::string& error) override {
    ++asked;
    if (!can) {
      error = "a CUDA error, made up";
      return false;
    }
    EXPECT_EQ(chain.arg.size(), chain.addr.size());
    EXPECT_EQ(chain.old.size(), chain.addr.size());
    out.ok = says_ok;
    out.device_ms = 0.25;
    out.end_s = 7.5;
    return true;
  }
};

using Ran = atomstress::testing::CpuRun;

Ran run_on_cpu(const char* impl) {
  TrialSpec spec;
  spec.impl = impl;
  spec.grid = 4;
  spec.block = 64;
  spec.ops_per_thread = 3;
  spec.seed = 3;
  return atomstress::testing::run_on_cpu(spec);
}

// A returned value no order gives (the sum's total is left as it was, so
// only the chain can tell).
void break_the_chain(Ran& r) { r.h.old[5] += 1; }

// The trial judged as the pipeline judges it (judge_on_host's order): the
// family's oracle with the judge lent, the verdict, what the loan adds.
Outcome judged(Ran& r, FakeJudge& judge, CheckerKind policy, BackendKind backend = BackendKind::Cuda) {
  Outcome out;
  out.backend = backend;
  ExecutionPolicy p;
  p.checker = policy;
  ChainsOnDevice chains(*r.w.impl, out, p, &judge);
  out.finding = check_trial(r.w, r.s, r.h);
  if (!out.finding.ok()) out.verdict = Verdict::Fail;
  chains.add_to(out);
  return out;
}

const char* const kSum = "sum.element@native.add.i32";

}  // namespace

TEST(ChainJudging, AChainTheJudgePassesIsNotCheckedAgainOnTheHost) {
  Ran r = run_on_cpu(kSum);
  FakeJudge judge;
  const Outcome out = judged(r, judge, CheckerKind::Auto);
  EXPECT_EQ(out.verdict, Verdict::Pass) << out.finding.explanation;
  EXPECT_EQ(judge.asked, 1u);
  EXPECT_EQ(judge.last_ops, r.w.ops());  // one atomic per element
  EXPECT_TRUE(out.checked_on_gpu);
  EXPECT_DOUBLE_EQ(out.device_check_ms, 0.25);
  EXPECT_DOUBLE_EQ(out.device_check_end_s, 7.5);
  // The device's pass is the verdict: a broken chain it passed passes (the
  // host's checker is not asked; the GPU checker's own tests keep it honest).
  break_the_chain(r);
  EXPECT_EQ(judged(r, judge, CheckerKind::Auto).verdict, Verdict::Pass);
}

TEST(ChainJudging, AChainTheJudgeFailsIsExplainedByTheHostsChecker) {
  Ran r = run_on_cpu(kSum);
  break_the_chain(r);
  const Finding host = check_trial(r.w, r.s, r.h);  // nothing lent
  ASSERT_EQ(host.kind, FindingKind::Unexplained) << host.explanation;
  FakeJudge judge;
  judge.says_ok = false;
  const Outcome out = judged(r, judge, CheckerKind::Auto);
  EXPECT_EQ(out.verdict, Verdict::Fail);
  EXPECT_EQ(out.finding.explanation, host.explanation);
  EXPECT_EQ(out.finding.ops, host.ops);
  EXPECT_TRUE(out.checked_on_gpu);
}

TEST(ChainJudging, CheckersThatDisagreeAreAnErrorOfAtomstressNotAVerdict) {
  Ran r = run_on_cpu(kSum);
  FakeJudge judge;
  judge.says_ok = false;  // fails a chain the host explains
  Outcome out = judged(r, judge, CheckerKind::Auto);
  EXPECT_EQ(out.verdict, Verdict::Error);
  EXPECT_EQ(out.finding.kind, FindingKind::BackendError);
  EXPECT_NE(out.finding.explanation.find("the GPU checker failed a history the host's checker passed"),
            std::string::npos)
      << out.finding.explanation;
  // Under both the host judges what the device passed too.
  break_the_chain(r);
  judge.says_ok = true;
  out = judged(r, judge, CheckerKind::Both);
  EXPECT_EQ(out.verdict, Verdict::Error);
  EXPECT_NE(out.finding.explanation.find("the GPU checker passed a history the host's checker failed"),
            std::string::npos)
      << out.finding.explanation;
  EXPECT_NE(out.finding.explanation.find("the partial sums' atomics"), std::string::npos) << out.finding.explanation;
}

TEST(ChainJudging, AChainTheJudgeCannotJudgeIsTheHostsCheckersToJudge) {
  // A CUDA error while judging (the device's memory, or another trial's trap
  // beside this one) says nothing of this trial: the host's verdict stands.
  Ran r = run_on_cpu(kSum);
  FakeJudge judge;
  judge.can = false;
  Outcome out = judged(r, judge, CheckerKind::Auto);
  EXPECT_EQ(out.verdict, Verdict::Pass) << out.finding.explanation;
  EXPECT_FALSE(out.checked_on_gpu);
  EXPECT_EQ(judge.asked, 1u);
  break_the_chain(r);
  const Finding host = check_trial(r.w, r.s, r.h);
  out = judged(r, judge, CheckerKind::Auto);
  EXPECT_EQ(out.verdict, Verdict::Fail);
  EXPECT_EQ(out.finding.explanation, host.explanation);
}

TEST(ChainJudging, NoJudgeIsLentOffTheCudaBackendUnderCpuOrForADiagnosisOrASingleAtomic) {
  Ran r = run_on_cpu(kSum);
  FakeJudge judge;
  judge.says_ok = false;  // would make a correct trial an error if asked
  EXPECT_EQ(judged(r, judge, CheckerKind::Auto, BackendKind::Cpu).verdict, Verdict::Pass);
  EXPECT_EQ(judged(r, judge, CheckerKind::Cpu).verdict, Verdict::Pass);
  EXPECT_EQ(judge.asked, 0u);
  Outcome out;
  out.backend = BackendKind::Cuda;
  ExecutionPolicy diagnosis;
  diagnosis.sequential = true;
  {
    ChainsOnDevice chains(*r.w.impl, out, diagnosis, &judge);
    EXPECT_EQ(lent_chain_judge(), nullptr);
  }
  Ran single = run_on_cpu("native.add.i32");
  {
    ChainsOnDevice chains(*single.w.impl, out, ExecutionPolicy{}, &judge);
    EXPECT_EQ(lent_chain_judge(), nullptr);
  }
  // A judge that does not take the chain leaves it to the host.
  judge.take = false;
  EXPECT_EQ(judged(r, judge, CheckerKind::Auto).verdict, Verdict::Pass);
  EXPECT_EQ(judge.asked, 0u);
  EXPECT_EQ(lent_chain_judge(), nullptr);  // every loan ended with its scope
}

TEST(ChainJudging, TheGpuCheckersJudgeTakesChainsByThePolicyAndSize) {
  // Under auto a short chain stays on the host whatever the device; under
  // cpu no chain leaves it.  (Without a GPU, no chain is taken at all.)
  DeviceChains automatic(CheckerKind::Auto), cpu(CheckerKind::Cpu);
  const Entry& add = *find_impl("native.add.i32");
  EXPECT_FALSE(automatic.takes(add, kDeviceCheckMinOps - 1));
  EXPECT_FALSE(cpu.takes(add, 1u << 20));
}


