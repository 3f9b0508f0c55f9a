// The sequential replay's judge (check/sequential.hpp) and the semantics
// inference (check/inference.hpp) on histories written by hand, the
// diagnosis of real failing trials on the CPU backend (pipeline/diagnose.hpp),
// and void updates' judging (check/void_updates.hpp).
#include <algorithm>
#include <gtest/gtest.h>

#include "harness/backend/backend.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/sequential.hpp"
#include "harness/pipeline/diagnose.hpp"
#include "harness/registry/bits.hpp"
#include "harness/registry/family.hpp"
#include "harness/registry/registry.hpp"
#include "harness/workload/setup.hpp"
#include "harness/workload/workload.hpp"

namespace atomstress {
namespace {

// One thread's ops on one address, in order: (a, what the op returned).
struct Replay {
  Workload w;
  Setup s;
  History h;
};
Replay one_thread(const char* entry, std::vector<uint64_t> init, std::vector<uint32_t> addr, std::vector<uint64_t> a,
                  std::vector<uint64_t> returned, std::vector<uint64_t> final_mem) {
  Replay r;
  r.w.impl = find_impl(entry);
  EXPECT_NE(r.w.impl, nullptr) << entry;
  r.w.spec.impl = entry;
  r.w.spec.grid = 1;
  r.w.spec.block = 1;
  r.w.spec.ops_per_thread = uint32_t(addr.size());
  r.w.region_elems = uint32_t(init.size());
  r.w.addr = addr;
  r.w.a = a;
  r.w.b.assign(a.size(), 0);
  r.w.init = init;
  r.s.mem_init = init;
  r.h.old = returned;
  r.h.final_mem = final_mem;
  return r;
}

uint64_t f32(float f) { return to_bits<float>(f); }

TEST(Sequential, AStdMaxStyleTieIsASemanticsBugNamedInOperationTerms) {
  // max(+0, -0) storing -0 (ties keep the operand), then max(-0, 3) = 3.
  auto r = one_thread("cas.max.f32", {f32(0.0f)}, {0, 0}, {f32(-0.0f), f32(3.0f)}, {f32(0.0f), f32(-0.0f)},
                      {f32(3.0f)});
  const SequentialReplay rep = judge_sequential(r.w, r.s, r.h);
  ASSERT_FALSE(rep.finding.ok());
  EXPECT_EQ(rep.finding.cls, FailureClass::Semantics);
  ASSERT_EQ(rep.finding.trace.size(), 1u);
  const std::string& t = rep.finding.trace[0];
  EXPECT_NE(t.find("max(old=0 (0x00000000), a=-0 (0x80000000))"), std::string::npos) << t;
  EXPECT_NE(t.find("the spec stores 0 (0x00000000)"), std::string::npos) << t;
  EXPECT_NE(t.find("stored -0 (0x80000000)"), std::string::npos) << t;
  EXPECT_NE(rep.finding.inference.find("ties keep the operand"), std::string::npos) << rep.finding.inference;
  EXPECT_NE(rep.finding.inference.find("differs from cas.max.f32 on signed zero only"), std::string::npos)
      << rep.finding.inference;
}

TEST(Sequential, ANaNThatWinsIsTold) {
  // fmaxf ignores a NaN operand; this code stores it.
  const uint64_t nan = f32(std::numeric_limits<float>::quiet_NaN());
  auto r = one_thread("cas.max.f32", {f32(1.0f)}, {0}, {nan}, {f32(1.0f)}, {nan});
  const SequentialReplay rep = judge_sequential(r.w, r.s, r.h);
  EXPECT_EQ(rep.finding.cls, FailureClass::Semantics);
  EXPECT_NE(rep.finding.inference.find("a NaN wins"), std::string::npos) << rep.finding.inference;
  EXPECT_NE(rep.finding.inference.find("on NaN only"), std::string::npos) << rep.finding.inference;
}

TEST(Sequential, AFloatMaxOnTheIntViewIsTold) {
  // atomicMax((int*)p, __float_as_int(v)) for every v: max(-5, -4) keeps -5
  // (the bits of -5 are the larger int), max(-5, 3) stores 3.
  auto r = one_thread("cas.max.f32", {f32(-5.0f)}, {0, 0}, {f32(-4.0f), f32(3.0f)}, {f32(-5.0f), f32(-5.0f)},
                      {f32(3.0f)});
  const SequentialReplay rep = judge_sequential(r.w, r.s, r.h);
  EXPECT_EQ(rep.finding.cls, FailureClass::Semantics);
  EXPECT_NE(rep.finding.inference.find("matches: signed integer order of the bits;"), std::string::npos)
      << rep.finding.inference;
}

TEST(Sequential, AKeptSubnormalFloatIsToldAsSubnormals) {
  // native.add.f32 flushes in global memory: 0 + (a subnormal) stores 0;
  // this code keeps it.
  auto r = one_thread("native.add.f32", {f32(0.0f)}, {0}, {0x807fffffu}, {f32(0.0f)}, {0x807fffffu});
  const SequentialReplay rep = judge_sequential(r.w, r.s, r.h);
  EXPECT_EQ(rep.finding.cls, FailureClass::Semantics);
  EXPECT_NE(rep.finding.inference.find("differs from native.add.f32 on subnormals only"), std::string::npos)
      << rep.finding.inference;
}

TEST(Sequential, ReturningTheNewValueIsAReturnValueBug) {
  // add returns old + a instead of old: memory right, returned values wrong.
  auto r = one_thread("native.add.i32", {5}, {0, 0}, {3, 4}, {8, 12}, {12});
  const SequentialReplay rep = judge_sequential(r.w, r.s, r.h);
  EXPECT_EQ(rep.finding.cls, FailureClass::ReturnValue);
  ASSERT_FALSE(rep.finding.trace.empty());
  EXPECT_NE(rep.finding.trace[0].find("add(old=5, a=3): the spec stores 8 and returns 5; returned 8"),
            std::string::npos)
      << rep.finding.trace[0];
  EXPECT_NE(rep.finding.inference.find("returns the new value"), std::string::npos) << rep.finding.inference;
}

TEST(Sequential, AWriteOutsideTheTargetIsANeighbourBug) {
  // Element 1 is no op's target, yet it changed.
  auto r = one_thread("native.add.u32", {0, 7}, {0}, {1}, {0}, {1, 9});
  const SequentialReplay rep = judge_sequential(r.w, r.s, r.h);
  EXPECT_EQ(rep.finding.cls, FailureClass::Neighbour);
  EXPECT_NE(rep.finding.explanation.find("address 1, which no op targets"), std::string::npos);
}

TEST(Sequential, ACorrectReplayPassesAndItsTableHasARowPerOp) {
  auto r = one_thread("native.add.i32", {5}, {0, 0}, {3, 4}, {5, 8}, {12});
  const SequentialReplay rep = judge_sequential(r.w, r.s, r.h);
  EXPECT_TRUE(rep.finding.ok());
  const auto table = sequential_table(r.w, rep, 10);
  ASSERT_EQ(table.size(), 3u);  // header + 2 ops
  EXPECT_EQ(table[1].find("<- differs"), std::string::npos);
  auto bad = one_thread("native.add.i32", {5}, {0, 0}, {3, 4}, {8, 12}, {12});
  const auto bad_table = sequential_table(bad.w, judge_sequential(bad.w, bad.s, bad.h), 1);
  ASSERT_EQ(bad_table.size(), 3u);  // header, 1 row, "(1 more ops)"
  EXPECT_NE(bad_table[1].find("<- differs"), std::string::npos) << bad_table[1];
}

// A small trial of a built-in bug, rich in special values.
TrialSpec bug_trial(const char* entry, uint64_t seed) {
  TrialSpec s;
  s.impl = entry;
  s.grid = 2;
  s.block = 32;
  s.ops_per_thread = 4;
  s.special_permille = 200;
  s.seed = seed;
  return s;
}

// The diagnosis of real failing trials: the classes of built-in bugs.
Diagnosis diagnose_first_failure(const char* entry, Verdict expected) {
  RunOptions opt;
  for (uint64_t seed = 1; seed < 400; ++seed) {
    const TrialSpec s = bug_trial(entry, seed);
    const Outcome o = run_trial(s, BackendKind::Cpu, opt);
    if (o.verdict == Verdict::Error) ADD_FAILURE() << entry << ": " << o.why();
    if (o.verdict == Verdict::Pass) continue;
    EXPECT_EQ(o.verdict, expected) << entry << ": " << o.why();
    return diagnose(s, o.verdict, o.finding, BackendKind::Cpu, opt);
  }
  ADD_FAILURE() << entry << " did not fail in 400 seeds";
  return {};
}

TEST(Diagnose, BuiltInBugsGetTheirClass) {
  EXPECT_EQ(diagnose_first_failure("buggy.returns_new.add.f32", Verdict::Fail).cls, FailureClass::ReturnValue);
  const Diagnosis nan = diagnose_first_failure("buggy.drops_nan.max.f32", Verdict::Fail);
  EXPECT_EQ(nan.cls, FailureClass::Semantics);
  ASSERT_FALSE(nan.trace.empty());
  EXPECT_NE(nan.trace[0].find("max(old="), std::string::npos) << nan.trace[0];
  EXPECT_EQ(diagnose_first_failure("buggy.inc_gt.u32", Verdict::Fail).cls, FailureClass::Semantics);
  EXPECT_EQ(diagnose_first_failure("buggy.plain_rmw.add.i32", Verdict::Fail).cls, FailureClass::Atomicity);
}

// A history the oracle explains by no order says what it saw, then guesses a
// concurrent cause ("a later update was lost").  Once the replay alone shows
// the op itself wrong, that guess is replaced: a semantic bug is never told
// as a lost update.
TEST(Diagnose, ASemanticBugIsNotToldAsALostUpdate) {
  // One add, alone: old 5, a 3, returned 5, but memory still holds 5.
  auto r = one_thread("native.add.i32", {5}, {0}, {3}, {5}, {5});
  CheckInput in;
  in.impl = r.w.impl;
  in.addr = r.w.addr;
  in.a = r.w.a;
  in.b = r.w.b;
  in.old = r.h.old;
  in.init = r.w.init;
  in.final_mem = r.h.final_mem;
  in.threads = 1;
  const CheckResult c = check_history(in);
  ASSERT_FALSE(c.ok);
  EXPECT_TRUE(c.explanation.ends_with(": " + std::string(kLostUpdateCause))) << c.explanation;
  EXPECT_NE(c.explanation.find("returned 5 and so, by its spec, wrote 8"), std::string::npos) << c.explanation;
  for (const FailureClass cls : {FailureClass::Semantics, FailureClass::ReturnValue, FailureClass::Atomicity}) {
    Finding f = make_finding(FindingKind::Unexplained, c.explanation);
    Diagnosis d;
    d.cls = cls;
    apply(d, f);
    const bool alone_wrong = cls != FailureClass::Atomicity;
    EXPECT_EQ(f.explanation.find("lost") == std::string::npos, alone_wrong) << to_string(cls) << ": " << f.explanation;
    EXPECT_EQ(f.explanation.find("alone, in program order, an op already") != std::string::npos, alone_wrong)
        << to_string(cls) << ": " << f.explanation;
  }
}

// A history no order explains under fmax's rules (+0 > -0) but one does
// under "ties keep the operand" (std::max(val, old)): the oracle calls it
// semantics with that rule, never a lost update (PyTorch's gpuAtomicMax on
// double).  A real lost update is explained by no other spec.
TEST(Diagnose, AHistoryAnotherSpecExplainsIsSemanticsNotALostUpdate) {
  const uint64_t pz = 0, nz = 0x8000000000000000ull;
  // Two maxes from +0: -0 (returned +0, stored -0), then +0 (returned -0).
  auto r = one_thread("cas.max.f64", {pz}, {0, 0}, {nz, pz}, {pz, nz}, {pz});
  r.h.gave_up.assign(2, 0);  // as a run records them: no op gave up, none block-scope
  const Finding f = r.w.impl->family->check(r.w, r.s, r.h);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.cls, FailureClass::Semantics);
  EXPECT_TRUE(f.inference.starts_with("matches: ties keep the operand")) << f.inference;
  ASSERT_FALSE(f.trace.empty());
  EXPECT_NE(f.trace[0].find("not a lost update"), std::string::npos) << f.trace[0];
  // Two adds that both read 0: one update lost, under every add spec.
  auto lost = one_thread("native.add.i32", {0}, {0, 0}, {1, 2}, {0, 0}, {2});
  lost.h.gave_up.assign(2, 0);
  const Finding g = lost.w.impl->family->check(lost.w, lost.s, lost.h);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.cls, FailureClass::None);  // left to the replay alone
  EXPECT_TRUE(g.inference.empty()) << g.inference;
}

// One interleaving's history can fit another spec by chance: a max that
// returns stale values (examples/byo's two_bugs_max) once fitted "signed
// integer order of the bits" and was called semantics, its race unreported.
// The diagnosis believes another spec only where the ops alone follow it
// too.  buggy.drops_nan.max.f32 is fmaxf under a NaN-propagating spec: with
// no NaN its case passes alone, and a longer replay alone follows cas.max.f32.
TEST(Diagnose, AnotherSpecStandsOnlyWhereTheOpsAloneFollowIt) {
  RunOptions opt;
  TrialSpec s = bug_trial("buggy.drops_nan.max.f32", 7);
  s.special_permille = 0;
  s.init = Init::Zero;
  const Outcome o = run_trial(s, BackendKind::Cpu, opt);
  ASSERT_EQ(o.verdict, Verdict::Pass) << o.why();  // alone or not, no NaN: right
  Finding fits;
  fits.kind = FindingKind::Unexplained;
  fits.cls = FailureClass::Semantics;
  fits.explanation = "address 0: no order explains the history";
  fits.inference = "matches: signed integer order of the bits (every returned value and the final memory)";
  fits.explaining_specs = {"signed integer order of the bits"};
  const Diagnosis chance = diagnose(s, Verdict::Fail, fits, BackendKind::Cpu, opt);
  EXPECT_EQ(chance.cls, FailureClass::Atomicity);
  EXPECT_TRUE(std::any_of(chance.trace.begin(), chance.trace.end(),
                          [](const std::string& t) { return t.find("the fit is one interleaving's") != std::string::npos; }));
  ASSERT_TRUE(chance.distinct.has_value());  // the NaN bug alone, reported apart
  EXPECT_EQ(chance.distinct->cls, FailureClass::Semantics);
  fits.explaining_specs.push_back("cas.max.f32");
  const Diagnosis rule = diagnose(s, Verdict::Fail, fits, BackendKind::Cpu, opt);
  EXPECT_EQ(rule.cls, FailureClass::Semantics);
  EXPECT_FALSE(rule.distinct.has_value());
  EXPECT_NE(rule.inference.find("cas.max.f32"), std::string::npos) << rule.inference;
}

// The same, end to end: the built-in bugs that are wrong alone are told
// without a lost update; a race keeps it.
TEST(Diagnose, BuiltInBugsAreToldInTheirClassesTerms) {
  RunOptions opt;
  for (const char* entry : {"buggy.returns_new.add.f32", "buggy.drops_nan.max.f32", "buggy.inc_gt.u32",
                            "buggy.ge_zero.intorder.max.f32", "buggy.plain_rmw.add.i32"}) {
    bool told = false;
    for (uint64_t seed = 1; seed < 400 && !told; ++seed) {
      const TrialSpec s = bug_trial(entry, seed);
      Outcome o = run_trial(s, BackendKind::Cpu, opt);
      // A failure whose explanation guesses a lost update (some are told otherwise).
      if (o.verdict != Verdict::Fail || o.finding.explanation.find("lost") == std::string::npos) continue;
      told = true;
      const Diagnosis d = diagnose(s, o.verdict, o.finding, BackendKind::Cpu, opt);
      apply(d, o.finding);
      const bool race = d.cls == FailureClass::Atomicity;
      EXPECT_EQ(race, std::string(entry) == "buggy.plain_rmw.add.i32") << entry << ": " << to_string(d.cls);
      EXPECT_EQ(o.finding.explanation.find("lost") != std::string::npos, race) << entry << ": " << o.finding.explanation;
    }
    EXPECT_TRUE(told) << entry << ": no failure in 400 seeds guessed a concurrent cause";
  }
}

// ------------------------------------------------------------ void updates
// A catalogue entry as a user's void update of its spec (Entry::
// returns_nothing): the history's "returned" values are the harness's reads
// before each call, racy under contention, so only the memory is judged.
struct VoidTrial {
  Entry entry;
  Replay r;
};
VoidTrial void_trial(const char* spec, uint32_t threads, std::vector<uint64_t> init, std::vector<uint32_t> addr,
                     std::vector<uint64_t> a, std::vector<uint64_t> read_before, std::vector<uint64_t> final_mem) {
  VoidTrial t;
  t.r = one_thread(spec, init, addr, a, read_before, final_mem);
  t.entry = *t.r.w.impl;
  t.entry.returns_nothing = true;
  t.r.h.gave_up.assign(addr.size(), 0);  // (the scope rule reads it)
  t.r.w.spec.block = threads;
  t.r.w.spec.ops_per_thread = uint32_t(addr.size() / threads);
  return t;
}
Finding judged(VoidTrial& t) {
  t.r.w.impl = &t.entry;
  return t.entry.family->check(t.r.w, t.r.s, t.r.h);
}

TEST(VoidUpdates, AnIntegerAddIsJudgedByItsFinalMemoryNotByItsReads) {
  // Two threads add 3 and 4 at once; each read 0 before its call.
  VoidTrial t = void_trial("native.add.i32", 2, {0}, {0, 0}, {3, 4}, {0, 0}, {7});
  const Finding f = judged(t);
  EXPECT_TRUE(f.ok()) << f.explanation;
  // Those reads as returned values: no order explains them (both found 0).
  Workload as_returns = t.r.w;
  as_returns.impl = find_impl("native.add.i32");
  EXPECT_FALSE(as_returns.impl->family->check(as_returns, t.r.s, t.r.h).ok());
  // A lost update: the word holds 4.
  t.r.h.final_mem = {4};
  const Finding lost = judged(t);
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.address, 0);
  EXPECT_NE(lost.explanation.find("address 0 holds 4, but its 2 void add updates from 0 leave 7 in any order"),
            std::string::npos)
      << lost.explanation;
  ASSERT_TRUE(lost.expected.has_value());
  EXPECT_EQ(*lost.expected, 7u);
}

TEST(VoidUpdates, AFloatAddIsJudgedByTheFloatSumRule) {
  // native.add.f32 flushes a subnormal operand in global memory: 1 + the
  // smallest subnormal may be 1 exactly, in any order.
  VoidTrial t = void_trial("native.add.f32", 2, {f32(0.0f)}, {0, 0}, {1, f32(1.0f)}, {0, 0}, {f32(1.0f)});
  EXPECT_TRUE(judged(t).ok()) << judged(t).explanation;
  t.r.h.final_mem = {f32(2.0f)};
  const Finding wrong = judged(t);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.explanation.find("address 0 holds 2"), std::string::npos) << wrong.explanation;
}

TEST(VoidUpdates, AnExchLeavesOneOfItsOperandsAndAnUntouchedWordKeepsItsValue) {
  VoidTrial t = void_trial("native.exch.u32", 2, {9, 5}, {0, 0}, {3, 4}, {9, 9}, {4, 5});
  EXPECT_TRUE(judged(t).ok()) << judged(t).explanation;
  t.r.h.final_mem = {9, 5};  // the initial value: no exch stored it
  const Finding kept = judged(t);
  ASSERT_FALSE(kept.ok());
  EXPECT_NE(kept.explanation.find("which none of its 2 void exch updates stored"), std::string::npos)
      << kept.explanation;
  t.r.h.final_mem = {3, 6};  // word 1, which no op targets, changed
  const Finding outside = judged(t);
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(outside.cls, FailureClass::Neighbour);
  EXPECT_EQ(outside.address, 1);
}

TEST(VoidUpdates, AloneEveryStateIsCheckedAndNoReturnedValueIsSpokenOf) {
  // A sub that forgot to negate, alone: it read 0, stored 5, then read 5 and stored 7.
  VoidTrial t = void_trial("native.sub.i32", 1, {0}, {0, 0}, {5, 2}, {0, 5}, {7});
  t.r.w.impl = &t.entry;
  const SequentialReplay rep = judge_sequential(t.r.w, t.r.s, t.r.h);
  ASSERT_FALSE(rep.finding.ok());
  EXPECT_EQ(rep.finding.cls, FailureClass::Semantics);
  ASSERT_EQ(rep.finding.trace.size(), 1u);
  const std::string& line = rep.finding.trace[0];
  EXPECT_NE(line.find("op #0"), std::string::npos) << line;
  EXPECT_NE(line.find("the spec stores -5; stored 5"), std::string::npos) << line;
  EXPECT_EQ(line.find("returns"), std::string::npos) << line;
  const std::vector<std::string> table = sequential_table(t.r.w, rep, 4);
  ASSERT_GE(table.size(), 2u);
  EXPECT_NE(table[1].find("none"), std::string::npos) << table[1];
  // A right one alone passes, its reads being the states it left.
  VoidTrial right = void_trial("native.sub.i32", 1, {0}, {0, 0}, {5, 2}, {0, uint64_t(uint32_t(-5))},
                               {uint64_t(uint32_t(-7))});
  right.r.w.impl = &right.entry;
  EXPECT_TRUE(judge_sequential(right.r.w, right.r.s, right.r.h).finding.ok());
}

}  // namespace
}  // namespace atomstress
