// Concurrent trials (check --jobs): the ordering and attribution logic of
// run_ordered against a fake runner that ends trials in a random order and
// loses some (the reported outcomes must be those of running every trial
// alone, one after another, in plan order), and end to end on the CPU
// backend through a worker running several trials at once, where a trial
// that never ends and one that kills the worker each cost their own verdict
// only.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <set>
#include <thread>
#include <sstream>

#include "harness/pipeline/concurrent_worker.hpp"
#include "harness/pipeline/in_order_reports.hpp"
#include "harness/pipeline/isolated.hpp"
#include "harness/pipeline/ordered_trials.hpp"
#include "random_endings.hpp"
#include "run_program.hpp"

using namespace atomstress;

namespace {

// What a fake trial does, by its seed's low bits: concurrently, and alone.
enum Code : uint64_t {
  kPass,          // passes
  kFail,          // fails, alone or not
  kHangBeside,    // passes its deadline beside others, passes alone
  kLost,          // loses its worker; alone, crashes
  kLostPassAlone, // is lost with a worker another trial killed; alone, passes
  kHang,          // hangs, alone or not
  kFailBeside,    // fails beside others (a neighbour's stray write), passes alone
  kCodes
};

Code code_of(const TrialSpec& s) { return Code(s.seed % 8); }

Outcome outcome(const TrialSpec& s, Verdict v) {
  Outcome o;
  o.spec = s;
  o.verdict = v;
  return o;
}

Verdict alone_verdict(Code c) {
  switch (c) {
    case kFail: return Verdict::Fail;
    case kLost: return Verdict::Crash;
    case kHang: return Verdict::Hang;
    default: return Verdict::Pass;
  }
}

std::optional<Outcome> concurrent_outcome(const TrialSpec& s) {
  switch (code_of(s)) {
    case kLost:
    case kLostPassAlone: return std::nullopt;
    case kHangBeside: return outcome(s, Verdict::Hang);
    case kFailBeside: return outcome(s, Verdict::Fail);
    default: return outcome(s, alone_verdict(code_of(s)));
  }
}

// Ends a random number of the trials in flight, in a random order.
class FakeTrials : public ConcurrentTrials {
 public:
  FakeTrials(size_t capacity, uint32_t seed) : capacity_(capacity), rng_(seed) {}
  size_t capacity() const override { return capacity_; }
  void start(size_t ticket, const TrialSpec& spec) override {
    EXPECT_LT(flight_.size(), capacity_);
    flight_.push_back({ticket, spec});
    most = std::max(most, flight_.size());
    ++started;
  }
  std::vector<Ended> collect() override {
    EXPECT_FALSE(flight_.empty());
    return atomstress::testing::end_some(flight_, rng_, concurrent_outcome);
  }
  bool idle() const { return flight_.empty(); }
  size_t most = 0;  // the most trials in flight at once
  size_t started = 0;

 private:
  size_t capacity_;
  std::mt19937 rng_;
  atomstress::testing::InFlight flight_;
};

struct Report {
  std::vector<std::string> lines;  // "trial g seed verdict" and "closed g failed", in order
  std::string text() const {
    std::string t;
    for (const auto& l : lines) t += l + "\n";
    return t;
  }
};

// Every trial alone, one after another, each group up to its first failure.
Report reference(const std::vector<std::vector<TrialSpec>>& groups) {
  Report r;
  for (size_t g = 0; g < groups.size(); ++g) {
    bool failed = false;
    for (const auto& s : groups[g]) {
      const Verdict v = alone_verdict(code_of(s));
      r.lines.push_back("trial " + std::to_string(g) + " " + std::to_string(s.seed) + " " + to_string(v));
      if ((failed = v != Verdict::Pass)) break;
    }
    r.lines.push_back("closed " + std::to_string(g) + " " + std::to_string(failed));
  }
  return r;
}

Report ordered(const std::vector<std::vector<TrialSpec>>& groups, FakeTrials& runner, size_t* alone_runs = nullptr) {
  Report r;
  const RunAlone alone = [&](const TrialSpec& s) {
    EXPECT_TRUE(runner.idle()) << "a trial run alone had others in flight";
    if (alone_runs) ++*alone_runs;
    return outcome(s, alone_verdict(code_of(s)));
  };
  const OrderedSink sink{[&](size_t g, Outcome&& o) {
                           r.lines.push_back("trial " + std::to_string(g) + " " + std::to_string(o.spec.seed) + " " +
                                             to_string(o.verdict));
                         },
                         [&](size_t g, bool failed) {
                           if (failed) {
                             EXPECT_TRUE(runner.idle()) << "a failed group closed with trials in flight";
                           }
                           r.lines.push_back("closed " + std::to_string(g) + " " + std::to_string(failed));
                           return true;
                         }};
  run_ordered(groups, runner, alone, sink);
  return r;
}

std::vector<std::vector<TrialSpec>> groups_of(const std::vector<std::vector<Code>>& codes) {
  std::vector<std::vector<TrialSpec>> groups;
  uint64_t id = 0;
  for (const auto& g : codes) {
    groups.emplace_back();
    for (Code c : g) {
      TrialSpec s;
      s.impl = "fake";
      s.seed = ++id * 8 + c;
      groups.back().push_back(s);
    }
  }
  return groups;
}

TEST(OrderedTrials, PassesComeInPlanOrderWithTheRunnerFull) {
  const auto groups = groups_of({{kPass, kPass, kPass}, {kPass}, {}, {kPass, kPass, kPass, kPass}});
  FakeTrials runner(3, 1);
  size_t alone = 0;
  EXPECT_EQ(ordered(groups, runner, &alone).text(), reference(groups).text());
  EXPECT_EQ(runner.most, 3u);
  EXPECT_EQ(alone, 0u);
}

TEST(OrderedTrials, AGroupStopsAtItsFirstFailureAndTheNextGoesOn) {
  const auto groups = groups_of({{kPass, kFail, kPass, kFail}, {kPass, kPass}});
  FakeTrials runner(4, 2);
  const Report got = ordered(groups, runner);
  EXPECT_EQ(got.text(), reference(groups).text());
  EXPECT_EQ(got.lines.size(), 2u + 1 + 2 + 1) << got.text();
}

// A hang, a failure or a loss beside other trials is no verdict: the trial
// runs again alone, and that run's outcome is reported.
TEST(OrderedTrials, LostHungAndFailedTrialsRunAgainAloneForTheirVerdict) {
  const auto groups =
      groups_of({{kHangBeside, kLostPassAlone, kFailBeside, kPass}, {kPass, kLost, kPass}, {kHang}, {kFail}, {kPass}});
  FakeTrials runner(4, 3);
  size_t alone = 0;
  const Report got = ordered(groups, runner, &alone);
  EXPECT_EQ(got.text(), reference(groups).text());
  EXPECT_EQ(alone, 6u);  // kHangBeside, kLostPassAlone, kFailBeside, kLost, kHang, kFail
  EXPECT_NE(got.text().find(" CRASH\n"), std::string::npos) << got.text();
  EXPECT_NE(got.text().find(" HANG\n"), std::string::npos) << got.text();
  EXPECT_NE(got.text().find(" FAIL\n"), std::string::npos) << got.text();
}

TEST(OrderedTrials, AGroupThatStopsTheRunEndsTheReports) {
  const auto groups = groups_of({{kPass}, {kFail}, {kPass}});
  FakeTrials runner(3, 4);
  std::vector<size_t> reported;
  const RunAlone alone = [](const TrialSpec& s) { return outcome(s, alone_verdict(code_of(s))); };
  const OrderedSink sink{[&](size_t g, Outcome&&) { reported.push_back(g); },
                         [&](size_t, bool failed) { return !failed; }};
  run_ordered(groups, runner, alone, sink);
  EXPECT_EQ(reported, (std::vector<size_t>{0, 1}));
  EXPECT_TRUE(runner.idle());
}

// A stop that finishes what was started (a fuzz round's time budget): the
// groups already started run to their end, in order, and no other starts.
TEST(OrderedTrials, AStopThatFinishesWhatWasStartedReportsThoseGroupsWhole) {
  size_t cut = 0;  // runs where the stop left groups unstarted
  for (uint32_t seed = 0; seed < 50; ++seed) {
    const auto groups = groups_of({{kPass, kPass}, {kPass, kPass}, {kPass}, {kPass, kPass}, {kPass}, {kPass}});
    FakeTrials runner(3, seed);
    std::vector<size_t> trials, closed;
    const RunAlone alone = [](const TrialSpec& s) { return outcome(s, alone_verdict(code_of(s))); };
    OrderedSink sink{[&](size_t g, Outcome&&) { trials.push_back(g); },
                     [&](size_t g, bool) {
                       closed.push_back(g);
                       return false;  // the budget ended with the first group
                     }};
    sink.finish_started = true;
    run_ordered(groups, runner, alone, sink);
    // Closed in order from the first; every trial started was reported
    // (the groups started before the stop ran whole), none after them.
    ASSERT_GE(closed.size(), 1u) << seed;
    for (size_t i = 0; i < closed.size(); ++i) EXPECT_EQ(closed[i], i) << seed;
    size_t want = 0;
    for (size_t g : closed) want += groups[g].size();
    EXPECT_EQ(trials.size(), want) << "every started group is reported whole; seed " << seed;
    EXPECT_EQ(runner.started, trials.size()) << "no trial started and dropped; seed " << seed;
    cut += closed.size() < groups.size();
    EXPECT_TRUE(runner.idle());
  }
  EXPECT_GT(cut, 25u) << "the stop kept most runs from starting every group";
}

// Ends the oldest trial in flight at each collect.
// A sink that writes each report and each closed group into `r`.
OrderedSink recording_sink(Report& r) {
  return {[&r](size_t g, Outcome&& o) {
            r.lines.push_back("trial " + std::to_string(g) + " " + std::to_string(o.spec.seed) + " " +
                              to_string(o.verdict));
          },
          [&r](size_t g, bool failed) {
            r.lines.push_back("closed " + std::to_string(g) + " " + std::to_string(failed));
            return true;
          }};
}

class OldestFirstTrials : public ConcurrentTrials {
 public:
  explicit OldestFirstTrials(size_t capacity) : capacity_(capacity) {}
  size_t capacity() const override { return capacity_; }
  void start(size_t ticket, const TrialSpec& spec) override {
    flight_.push_back({ticket, spec});
    ++started;
  }
  std::vector<Ended> collect() override {
    const auto [ticket, spec] = flight_.front();
    flight_.erase(flight_.begin());
    return {{ticket, concurrent_outcome(spec)}};
  }
  bool idle() const { return flight_.empty(); }
  size_t started = 0;

 private:
  size_t capacity_;
  std::vector<std::pair<size_t, TrialSpec>> flight_;
};

// A trial that must run alone waits for the trials in flight when its
// outcome came, not also for trials started after it in the slot it freed;
// a pass's slot is refilled before it is reported.
TEST(OrderedTrials, ATrialRunAloneWaitsOnlyForTheTrialsAlreadyInFlight) {
  const auto groups = groups_of({{kFailBeside, kPass}, {kPass, kPass, kPass}});
  OldestFirstTrials runner(2);
  std::vector<size_t> started_at_alone;
  const RunAlone alone = [&](const TrialSpec& s) {
    EXPECT_TRUE(runner.idle());
    started_at_alone.push_back(runner.started);
    return outcome(s, alone_verdict(code_of(s)));
  };
  Report got;
  run_ordered(groups, runner, alone, recording_sink(got));
  EXPECT_EQ(got.text(), reference(groups).text());
  // Started first: group 0's two trials; its first came back failed beside
  // the second, which ended next, and nothing else had started.
  EXPECT_EQ(started_at_alone, (std::vector<size_t>{2}));
  EXPECT_EQ(runner.started, 5u);
  // Passes only: each collect's freed slot is filled before its report.
  const auto passes = groups_of({{kPass, kPass}, {kPass, kPass, kPass}});
  OldestFirstTrials full(2);
  std::vector<size_t> started_at_report;
  const OrderedSink count{[&](size_t, Outcome&&) { started_at_report.push_back(full.started); },
                          [](size_t, bool) { return true; }};
  run_ordered(passes, full, alone, count);
  EXPECT_EQ(started_at_report, (std::vector<size_t>{3, 4, 5, 5, 5}));
}

// Ends the oldest trial first; a cancelled trial ends as stopped (a Hang),
// whatever it would have been.
class CancellableTrials : public OldestFirstTrials {
 public:
  using OldestFirstTrials::OldestFirstTrials;
  void start(size_t ticket, const TrialSpec& spec) override {
    in_flight.insert(ticket);
    OldestFirstTrials::start(ticket, spec);
  }
  std::vector<Ended> collect() override {
    auto ended = OldestFirstTrials::collect();
    for (auto& e : ended) {
      in_flight.erase(e.ticket);
      if (std::count(cancelled.begin(), cancelled.end(), e.ticket) && e.outcome) e.outcome->verdict = Verdict::Hang;
    }
    return ended;
  }
  void cancel(size_t ticket) override {
    EXPECT_TRUE(in_flight.count(ticket)) << "only a trial in flight is cancelled";
    cancelled.push_back(ticket);
  }
  std::vector<size_t> cancelled;
  std::set<size_t> in_flight;
};

// A trial that runs again alone first cancels its group's later trials in
// flight (it would wait for them; when it fails they are of no use), and
// nothing else; when it passes alone, each cancelled trial that came back
// stopped runs alone in its turn: the reports are still the reference.
TEST(OrderedTrials, ATrialThatRunsAloneCancelsItsGroupsLaterTrialsInFlight) {
  for (const Code first : {kFail, kFailBeside}) {
    const auto groups = groups_of({{first, kPass, kPass}, {kPass, kPass}});
    CancellableTrials runner(4);  // tickets 0-2: group 0's trials, 3: group 1's first
    size_t alone_runs = 0;
    const RunAlone alone = [&](const TrialSpec& s) {
      EXPECT_TRUE(runner.idle());
      ++alone_runs;
      return outcome(s, alone_verdict(code_of(s)));
    };
    Report got;
    run_ordered(groups, runner, alone, recording_sink(got));
    EXPECT_EQ(got.text(), reference(groups).text()) << int(first);
    EXPECT_EQ(runner.cancelled, (std::vector<size_t>{1, 2})) << int(first);
    // Failed alone: that run only.  Passed alone: the two cancelled trials too.
    EXPECT_EQ(alone_runs, first == kFail ? 1u : 3u) << int(first);
  }
}

// Random plans, capacities and orders of ending: always the reference.
TEST(OrderedTrials, AnyOrderOfEndingReportsWhatTrialsAloneWouldReport) {
  std::mt19937 rng(31);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::vector<Code>> codes(rng() % 6);
    for (auto& g : codes) {
      g.resize(rng() % 7);
      // Mostly passes, as in a check.
      for (auto& c : g) c = rng() % 3 ? kPass : Code(rng() % kCodes);
    }
    const auto groups = groups_of(codes);
    FakeTrials runner(1 + rng() % 5, rng());
    ASSERT_EQ(ordered(groups, runner).text(), reference(groups).text()) << "round " << round;
  }
}

// ------------------------------------------------------- end to end (cpu)

using Clock = std::chrono::steady_clock;

TrialSpec small(const char* impl, uint64_t seed) {
  TrialSpec s;
  s.impl = impl;
  s.grid = 2;
  s.block = 32;
  s.ops_per_thread = 2;
  s.seed = seed;
  return s;
}

// One worker runs three trials at once; the one that never ends is killed
// with the trials beside it, the one that kills its worker takes the trials
// beside it along: each of those runs again alone, and only the culprits
// get a HANG and a CRASH.
TEST(ConcurrentWorker, AHangAndACrashBesideOthersCostOnlyTheirOwnVerdicts) {
  set_worker_program(atomstress::testing::bin_dir() + "atomstress_outside_entry");
  const std::vector<std::vector<TrialSpec>> groups = {
      {small("outside.add.u32", 1), small("outside.add.u32", 2)},
      {small("test.spin.forever.u32", 3)},
      {small("outside.add.u32", 4), small("test.fault.u32", 5), small("outside.add.u32", 6)},
      {small("outside.add.u32", 7), small("outside.add.u32", 8), small("outside.add.u32", 9)}};
  RunOptions opt;
  opt.policy.isolate = true;
  opt.knobs.watchdog_ms = 300;
  WorkerTrials runner(BackendKind::Cpu, opt, 0, 3);
  std::vector<std::pair<size_t, Outcome>> got;
  std::vector<std::pair<size_t, bool>> closed;
  const RunAlone alone = [&](const TrialSpec& s) { return run_trial_isolated(s, BackendKind::Cpu, opt); };
  const auto t0 = Clock::now();
  run_ordered(groups, runner, alone,
              {[&](size_t g, Outcome&& o) { got.emplace_back(g, std::move(o)); },
               [&](size_t g, bool failed) {
                 closed.emplace_back(g, failed);
                 return true;
               }});
  // Deadlines (300 ms + 2 s of grace), twice for the hang, and worker start-ups.
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 40.0);
  const std::vector<std::pair<uint64_t, Verdict>> want = {{1, Verdict::Pass},  {2, Verdict::Pass},
                                                          {3, Verdict::Hang},  {4, Verdict::Pass},
                                                          {5, Verdict::Crash}, {7, Verdict::Pass},
                                                          {8, Verdict::Pass},  {9, Verdict::Pass}};
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].second.spec.seed, want[i].first) << i;
    EXPECT_EQ(got[i].second.verdict, want[i].second) << i << ": " << got[i].second.why();
  }
  EXPECT_NE(got[2].second.why().find("no result within the trial's watchdog (300 ms)"), std::string::npos);
  EXPECT_NE(got[4].second.why().find("killed by signal 11 (SIGSEGV)"), std::string::npos) << got[4].second.why();
  EXPECT_EQ(closed, (std::vector<std::pair<size_t, bool>>{{0, false}, {1, true}, {2, true}, {3, false}}));
  set_worker_program("/proc/self/exe");
}

// A cancel reaches the worker's thread that runs the trial and stops its
// loop: a float-compare loop that never ends (its retry budget and watchdog
// set out of reach, 60 s of CPU time) comes back at once, not a Pass.
TEST(ConcurrentWorker, ACancelledTrialStopsItsLoopsAndComesBackAtOnce) {
  TrialSpec s;
  s.impl = "buggy.float_compare.add.f32";
  s.grid = s.ops_per_thread = s.k = 1;
  s.block = 2;  // two threads: a lone thread's retry budget is capped
  s.special_permille = 381;
  s.init = Init::Random;
  s.seed = 3;
  set_worker_program(atomstress::testing::bin_dir() + "atomstress_outside_entry");
  RunOptions opt;
  opt.policy.isolate = true;
  const Outcome plain = run_trial_isolated(s, BackendKind::Cpu, opt);
  ASSERT_EQ(plain.verdict, Verdict::Hang) << "the loop never ends: " << plain.why();
  opt.knobs.watchdog_ms = 60000;
  opt.knobs.retry_budget = UINT32_MAX;
  WorkerTrials runner(BackendKind::Cpu, opt, 0, 2);
  runner.start(7, s);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the trial is running its loop
  const auto t0 = Clock::now();
  runner.cancel(7);
  const auto ended = runner.collect();
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(20)) << "not its 60 s watchdog";
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0].ticket, 7u);
  ASSERT_TRUE(ended[0].outcome.has_value());
  // Whatever it says (its loop stopped mid-op), it is no Pass: run_ordered
  // never reports it as it came.
  EXPECT_NE(ended[0].outcome->verdict, Verdict::Pass) << ended[0].outcome->why();
  runner.cancel(7);  // no longer in flight: nothing is sent
  runner.cancel(8);  // never started
  set_worker_program("/proc/self/exe");
}

// A worker that answers nonsense, or for a trial it was not given, loses
// the trials in flight (they run again alone): no verdict is taken from it.
TEST(ConcurrentWorker, ANonsenseAnswerLosesTheTrialsInFlight) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("atomstress_concurrent_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::pair<const char*, const char*> answers[] = {{"nonsense", "not json"},
                                                         {"stranger", R"({"id":99,"outcome":{}})"}};
  for (const auto& [name, answer] : answers) {
    const fs::path script = dir / name;
    std::ofstream(script) << "#!/bin/sh\necho '{\"ready\":true}'\nread request\necho '" << answer
                          << "'\nsleep 60\n";
    fs::permissions(script, fs::perms::owner_all);
    set_worker_program(script.string());
    RunOptions opt;
    opt.policy.isolate = true;
    WorkerTrials runner(BackendKind::Cpu, opt, 0, 2);
    runner.start(7, small("outside.add.u32", 1));
    const auto ended = runner.collect();
    ASSERT_EQ(ended.size(), 1u) << name;
    EXPECT_EQ(ended[0].ticket, 7u) << name;
    EXPECT_FALSE(ended[0].outcome) << name;
  }
  set_worker_program("/proc/self/exe");
  fs::remove_all(dir);
}

std::string verdict_lines(const std::string& out) {
  std::istringstream in(out);
  std::string lines;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string verdict, name;
    if (words >> verdict >> name && (verdict == "PASS" || verdict == "FAIL" || verdict == "HANG" ||
                                     verdict == "CRASH" || verdict == "ERROR"))
      lines += verdict + " " + name + "\n";
  }
  return lines;
}

// A check command line (ending in "--jobs ") run with --jobs 1 and --jobs 3.
struct OneAndThree {
  atomstress::testing::Result one, three;
};
OneAndThree run_with_jobs_1_and_3(const std::string& cmd) {
  return {atomstress::testing::run_shell(cmd + "1"), atomstress::testing::run_shell(cmd + "3")};
}

// check --jobs 3 prints the verdicts of --jobs 1, in the same order.
TEST(ConcurrentWorker, CheckWithJobsPrintsTheVerdictsOfOneAtATime) {
  const std::string cmd = atomstress::testing::bin_dir() +
                          "atomstress_outside_entry check --impl 'outside.add.u32,test.fault.u32,test.spin.forever.u32,"
                          "outside.add.u32' --backend cpu --trials 2 --pattern single,uniform --space global --grid 2 "
                          "--block 32 --ops-per-thread 2 --no-shrink --watchdog-ms 300 2>&1 --jobs ";
  const auto [one, three] = run_with_jobs_1_and_3(cmd);
  EXPECT_EQ(one.status, 1) << one.out;
  EXPECT_EQ(three.status, one.status) << three.out;
  EXPECT_EQ(verdict_lines(three.out), verdict_lines(one.out)) << three.out;
  EXPECT_NE(verdict_lines(one.out).find("CRASH test.fault.u32\n"), std::string::npos) << one.out;
  EXPECT_NE(verdict_lines(one.out).find("HANG test.spin.forever.u32\n"), std::string::npos) << one.out;
  EXPECT_NE(three.out.find("up to 3 trials at once"), std::string::npos) << three.out;
}

// ---------------------------------------------- failures concluded beside

// True once `ready` holds, false after ten seconds (a test must not hang).
template <class Ready>
bool eventually(Ready ready) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!ready()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Two conclusions work at once beside the caller, and every report waits
// for those given before it: the reports come out in the order given.
TEST(InOrderReports, ReportsKeepTheirOrderWhileTwoConclusionsWorkAtOnce) {
  std::vector<std::string> made;
  std::promise<void> release_a;
  const std::shared_future<void> a_released = release_a.get_future().share();
  std::atomic<int> started{0};
  {
    InOrderReports reports(2);
    reports.report([&] { made.push_back("t1"); });
    EXPECT_EQ(made, std::vector<std::string>{"t1"}) << "nothing waits before it: made at once";
    reports.conclude(
        [&] {
          ++started;
          a_released.wait();
        },
        [&] { made.push_back("A"); });
    reports.report([&] { made.push_back("t2"); });
    // B's work ends only once A's has started and is still at work: both at once.
    reports.conclude([&] { ASSERT_TRUE(eventually([&] { return started.load() == 1; })); },
                     [&] { made.push_back("B"); });
    reports.report([&] { made.push_back("t3"); });
    ASSERT_TRUE(eventually([&] { return reports.working() == 1; })) << "B did not end while A worked";
    reports.flush();
    EXPECT_EQ(made, std::vector<std::string>{"t1"}) << "B is done, but A is not: nothing after A is made";
    release_a.set_value();
    reports.finish();
    EXPECT_EQ(reports.working(), 0u);
  }
  EXPECT_EQ(made, (std::vector<std::string>{"t1", "A", "t2", "B", "t3"}));
}

// With no background (one trial at a time) a conclusion works on the
// caller's thread, before conclude returns, and is reported at once.
TEST(InOrderReports, WithoutBackgroundAConclusionWorksOnTheCallersThread) {
  InOrderReports reports(0);
  std::vector<std::string> made;
  std::thread::id worked_on;
  reports.conclude([&] { worked_on = std::this_thread::get_id(); }, [&] { made.push_back("A"); });
  EXPECT_EQ(worked_on, std::this_thread::get_id());
  EXPECT_EQ(made, std::vector<std::string>{"A"});
  EXPECT_EQ(reports.working(), 0u);
}

// The lines a failure's conclusion adds: its shrunk case (without the time
// its shrink took) and the repro line.
std::string shrunk_lines(const std::string& out) {
  std::istringstream in(out);
  std::string lines;
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find_first_not_of(' ');
    if (at == std::string::npos) continue;
    if (line.compare(at, 7, "shrunk:") == 0) lines += line.substr(at, line.find(" tried in ") - at) + "\n";
    if (line.compare(at, 6, "repro:") == 0) lines += line.substr(at) + "\n";
  }
  return lines;
}

// check --jobs 3 shrinks its failures in the background, beside the later
// entries' trials (each in a worker of its own), and prints what --jobs 1
// prints: the same verdicts, shrunk cases and repro lines, in the same order
// (a crash's shrink among them).
TEST(ConcurrentWorker, CheckWithJobsShrinksBesideTheLaterTrialsAndPrintsWhatOneAtATimeDoes) {
  const std::string cmd = atomstress::testing::bin_dir() +
                          "atomstress_outside_entry check --impl 'outside.add.u32,buggy.returns_new.add.f32,"
                          "test.fault.u32,buggy.inc_gt.u32,outside.add.u32' --backend cpu --trials 2 --pattern "
                          "single,uniform --space global --grid 2 --block 32 --ops-per-thread 2 --watchdog-ms 300 "
                          "2>/dev/null --jobs ";
  const auto [one, three] = run_with_jobs_1_and_3(cmd);
  EXPECT_EQ(one.status, 1) << one.out;
  EXPECT_EQ(three.status, one.status) << three.out;
  EXPECT_EQ(verdict_lines(three.out), verdict_lines(one.out)) << three.out;
  EXPECT_EQ(shrunk_lines(three.out), shrunk_lines(one.out)) << three.out;
  // Three failures shrunk, each to one op, in plan order.
  const std::string shrunk = shrunk_lines(one.out);
  EXPECT_EQ(std::count(shrunk.begin(), shrunk.end(), '\n'), 6) << one.out;
  const auto first = shrunk.find("buggy.returns_new"), crash = shrunk.find("test.fault"), last = shrunk.find("buggy.inc_gt");
  EXPECT_TRUE(first < crash && crash < last) << shrunk;
  EXPECT_NE(three.out.find("up to 3 trials at once"), std::string::npos) << three.out;
}

}  // namespace
