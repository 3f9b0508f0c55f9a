// Isolated trials: the request and Outcome survive their JSON round trip,
// the worker process is supervised (a death named, a timeout killed, no
// SIGPIPE, no zombie), and end to end on the CPU backend through
// atomstress_outside_entry (beside this program), whose test entries never
// end (test.spin.forever.u32) or kill their process (test.fault.u32): each
// costs one verdict and the run goes on.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "harness/backend/cuda/util.cuh"
#include "harness/pipeline/counted_wait.hpp"
#include "harness/pipeline/execute_trial.hpp"
#include "harness/pipeline/isolated.hpp"
#include "harness/pipeline/spare_workers.hpp"
#include "harness/pipeline/trial_json.hpp"
#include "harness/pipeline/worker_process.hpp"
#include "run_program.hpp"
#include "scratch.hpp"

namespace fs = std::filesystem;
using namespace atomstress;
using nlohmann::json;

namespace {

using Clock = std::chrono::steady_clock;
using atomstress::testing::bin_dir;
using atomstress::testing::Result;
using atomstress::testing::run_shell;

// ----------------------------------------------------------------- JSON

Outcome every_field_set() {
  Outcome o;
  o.spec.impl = "cas.add.f32";
  o.spec.grid = 7;
  o.spec.block = 33;
  o.spec.ops_per_thread = 5;
  o.spec.space = Space::Shared;
  o.spec.pattern = Pattern::Zipf;
  o.spec.k = 1024;
  o.spec.zipf_s = 3;
  o.spec.dist = Dist::Full;
  o.spec.special_permille = 150;
  o.spec.init = Init::Zero;
  o.spec.seed = 0xfedcba9876543210ull;
  o.backend = BackendKind::Cuda;
  o.verdict = Verdict::Crash;
  o.finding.kind = FindingKind::Unexplained;
  o.finding.address = 12345678901ll;
  o.finding.ops = {4711, 0, -1, 9007199254740993ll};
  o.finding.value_kind = VK::F64;
  o.finding.expected = 0x7ff4000000000001ull;  // past 2^53: a double would lose it
  o.finding.observed = ~0ull;
  o.finding.explanation = "op #4711 returned \"5.0\"\nand then\tsomething ünicode";
  o.ops = 7 * 33 * 5;
  o.run_ms = 0.1 + 0.2;  // not a short decimal
  o.check_ms = 1e-300;
  o.device_check_ms = 0.125;
  o.device_check_end_s = 12345.678901234;
  o.total_retries = ~0ull - 1;
  o.max_retries = 0xffffffffu;
  o.hotspots = {{3, 40, 500, ~0ull}, {0, 1, 0, 0}};
  return o;
}

void expect_same(const Outcome& a, const Outcome& b) {
  EXPECT_EQ(a.spec, b.spec);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.finding.kind, b.finding.kind);
  EXPECT_EQ(a.finding.address, b.finding.address);
  EXPECT_EQ(a.finding.ops, b.finding.ops);
  EXPECT_EQ(a.finding.value_kind, b.finding.value_kind);
  EXPECT_EQ(a.finding.expected, b.finding.expected);
  EXPECT_EQ(a.finding.observed, b.finding.observed);
  EXPECT_EQ(a.finding.explanation, b.finding.explanation);
  EXPECT_EQ(a.ops, b.ops);
  EXPECT_EQ(a.run_ms, b.run_ms);  // bitwise: the JSON number round-trips
  EXPECT_EQ(a.check_ms, b.check_ms);
  EXPECT_EQ(a.total_retries, b.total_retries);
  EXPECT_EQ(a.max_retries, b.max_retries);
  ASSERT_EQ(a.hotspots.size(), b.hotspots.size());
  for (size_t i = 0; i < a.hotspots.size(); ++i) {
    EXPECT_EQ(a.hotspots[i].addr, b.hotspots[i].addr);
    EXPECT_EQ(a.hotspots[i].ops, b.hotspots[i].ops);
    EXPECT_EQ(a.hotspots[i].retries, b.hotspots[i].retries);
    EXPECT_EQ(a.hotspots[i].cycles, b.hotspots[i].cycles);
  }
}

// Through the text a worker writes, as its supervisor reads it.
Outcome round_trip(const Outcome& o) {
  Outcome back;
  std::string error;
  EXPECT_TRUE(from_json(json::parse(to_json(o).dump()), back, error)) << error;
  return back;
}

TEST(TrialJson, AnOutcomeComesBackWithEveryField) {
  const Outcome o = every_field_set();
  expect_same(round_trip(o), o);
  // The device's checking time (a packed pass leaves it to the pack's spans).
  EXPECT_EQ(round_trip(o).device_check_ms, o.device_check_ms);
  EXPECT_EQ(round_trip(o).device_check_end_s, o.device_check_end_s);
  // A pass: no finding, absent values stay absent, no hotspots.
  Outcome pass;
  pass.spec.impl = "native.add.i32";
  expect_same(round_trip(pass), pass);
  EXPECT_FALSE(round_trip(pass).finding.expected.has_value());
  // Every verdict and finding kind by name.
  for (Verdict v : {Verdict::Pass, Verdict::Fail, Verdict::Hang, Verdict::Crash, Verdict::Error}) {
    Outcome x = o;
    x.verdict = v;
    EXPECT_EQ(round_trip(x).verdict, v) << to_string(v);
  }
  for (int k = 0; k <= int(FindingKind::HostCodeTimeout); ++k) {
    Outcome x = o;
    x.finding.kind = FindingKind(k);
    EXPECT_EQ(round_trip(x).finding.kind, FindingKind(k)) << to_string(FindingKind(k));
  }
}

TEST(TrialJson, ARequestComesBackWithItsOptions) {
  TrialRequest r{every_field_set().spec, BackendKind::Cuda, {}, 17};
  r.run.knobs.retry_budget = 3;
  r.run.knobs.watchdog_ms = 3600000;
  r.run.knobs.cpu_threads = 256;
  r.run.knobs.yield_permille = 1000;
  r.run.timing.bench_reps = 9;
  r.run.policy.isolate = true;
  r.run.policy.checker = CheckerKind::Both;
  r.run.policy.gpu_share = 3;
  TrialRequest back;
  std::string error;
  ASSERT_TRUE(from_json(json::parse(to_json(r).dump()), back, error)) << error;
  EXPECT_EQ(back.spec, r.spec);
  EXPECT_EQ(back.backend, r.backend);
  EXPECT_EQ(back.hotspots, 17u);
  EXPECT_EQ(back.run.knobs.retry_budget, 3u);
  EXPECT_EQ(back.run.knobs.watchdog_ms, 3600000u);
  EXPECT_EQ(back.run.knobs.cpu_threads, 256u);
  EXPECT_EQ(back.run.knobs.yield_permille, 1000u);
  EXPECT_EQ(back.run.timing.bench_reps, 9u);
  EXPECT_TRUE(back.run.policy.isolate);
  EXPECT_EQ(back.run.policy.checker, CheckerKind::Both);
  EXPECT_EQ(back.run.policy.gpu_share, 3u) << "a fuzz lane's worker keeps its GPU share";
}

// Three specs with every field set, seeds 0, 1, 2.
std::vector<TrialSpec> three_specs() {
  std::vector<TrialSpec> v;
  for (uint32_t i = 0; i < 3; ++i) {
    v.push_back(every_field_set().spec);
    v.back().seed = i;
  }
  return v;
}

TEST(TrialJson, APackAndItsResultsComeBack) {
  PackRequest r;
  r.specs = three_specs();
  r.backend = BackendKind::Cuda;
  r.run.knobs.watchdog_ms = 777;
  r.seed = ~0ull;
  PackRequest back;
  std::string error;
  ASSERT_TRUE(from_json(json::parse(to_json(r).dump()), back, error)) << error;
  EXPECT_EQ(back.specs, r.specs);
  EXPECT_EQ(back.backend, r.backend);
  EXPECT_EQ(back.run.knobs.watchdog_ms, 777u);
  EXPECT_EQ(back.seed, ~0ull);
  // A packed outcome carries what its reader does not know already.
  const Outcome o = every_field_set();
  Outcome p;
  p.spec = o.spec;
  p.knobs = o.knobs;
  p.backend = o.backend;
  p.hotspots = o.hotspots;
  ASSERT_TRUE(from_packed_json(json::parse(to_packed_json(o).dump()), p, error)) << error;
  expect_same(o, p);
  json bad = to_packed_json(o);
  bad.erase("finding");
  EXPECT_FALSE(from_packed_json(bad, p, error));
  // A pass travels as five numbers, and reads back as the pass it was.
  Outcome pass = o;
  pass.verdict = Verdict::Pass;
  pass.finding = Finding{};
  const json compact = to_packed_json(pass);
  ASSERT_TRUE(compact.is_array()) << compact.dump();
  Outcome q = p;
  ASSERT_TRUE(from_packed_json(json::parse(compact.dump()), q, error)) << error;
  EXPECT_EQ(q.verdict, Verdict::Pass);
  EXPECT_EQ(q.ops, pass.ops);
  EXPECT_EQ(q.run_ms, pass.run_ms);
  EXPECT_EQ(q.check_ms, pass.check_ms);
  EXPECT_EQ(q.total_retries, pass.total_retries);
  EXPECT_EQ(q.max_retries, pass.max_retries);
  EXPECT_FALSE(from_packed_json(json::array({1, 2, 3}), q, error));
  EXPECT_FALSE(from_packed_json(json::array({1, 2.5, 3, "x", 5}), q, error));
  EXPECT_FALSE(from_packed_json(json::array({-1, 2.5, 3, 4, 5}), q, error));
  json broken = to_json(r);
  broken["pack"][1] = "as2.garbage";
  EXPECT_FALSE(from_json(broken, back, error));
}

TEST(TrialJson, ASequenceRequestComesBack) {
  SequenceRequest r;
  r.specs = three_specs();
  r.backend = BackendKind::Cuda;
  r.run.knobs.watchdog_ms = 555;
  r.hotspots = 4;
  r.until_failure = true;
  r.pipelined = false;
  SequenceRequest back;
  std::string error;
  ASSERT_TRUE(from_json(json::parse(to_json(r).dump()), back, error)) << error;
  EXPECT_EQ(back.specs, r.specs);
  EXPECT_EQ(back.backend, r.backend);
  EXPECT_EQ(back.run.knobs.watchdog_ms, 555u);
  EXPECT_EQ(back.hotspots, 4u);
  EXPECT_TRUE(back.until_failure);
  EXPECT_FALSE(back.pipelined);
  json broken = to_json(r);
  broken.erase("until_failure");
  EXPECT_FALSE(from_json(broken, back, error));
  EXPECT_NE(error.find("until_failure"), std::string::npos) << error;
}

TEST(TrialJson, WhatItDidNotWriteIsRefusedWithTheReason) {
  const json good = to_json(every_field_set());
  auto refused = [&](json j, const std::string& reason) {
    Outcome o;
    std::string error;
    EXPECT_FALSE(from_json(j, o, error)) << j.dump();
    EXPECT_NE(error.find(reason), std::string::npos) << error;
  };
  json j = good;
  j["verdict"] = "MAYBE";
  refused(j, "unknown verdict 'MAYBE'");
  j = good;
  j.erase("ops");
  refused(j, "'ops'");
  j = good;
  j["finding"]["kind"] = "gremlins";
  refused(j, "unknown kind");
  j = good;
  j["token"] = "as1.cas.add.f32.1.1.1.0.0.1.2.0.0.1.0.00000000";
  refused(j, "checksum");
  j = good;
  j["run_ms"] = "fast";
  refused(j, "'run_ms'");
}

// -------------------------------------------------------- the worker process

// `script` run by /bin/sh as the worker.
bool start_sh(WorkerProcess& w, const std::string& script) {
  std::string error;
  const bool ok = w.start("/bin/sh", {"sh", "-c", script}, error);
  EXPECT_TRUE(ok) << error;
  return ok;
}

bool reaped(pid_t pid) { return waitpid(pid, nullptr, WNOHANG) < 0 && errno == ECHILD; }

TEST(WorkerProcess, AnswersLineByLineAndItsExitIsNamed) {
  WorkerProcess w;
  ASSERT_TRUE(start_sh(w, "while read x; do echo \"got $x\"; done; exit 3"));
  const pid_t pid = w.pid();
  std::string line;
  for (const char* x : {"one", "two"}) {
    ASSERT_TRUE(w.send(x));
    ASSERT_EQ(w.receive(line, Clock::now() + std::chrono::seconds(10)), WorkerProcess::Read::Line);
    EXPECT_EQ(line, std::string("got ") + x);
  }
  w.stop(std::chrono::seconds(10));  // end of its input: it exits by itself
  EXPECT_FALSE(w.running());
  EXPECT_EQ(w.death(), "exited with status 3");
  EXPECT_TRUE(reaped(pid));
}

TEST(WorkerProcess, ADeathNamesTheSignalAndKeepsTheLastStderrLines) {
  WorkerProcess w;
  ASSERT_TRUE(start_sh(w, "i=0; while [ $i -lt 20 ]; do echo \"line $i\" >&2; i=$((i+1)); done; kill -SEGV $$"));
  const pid_t pid = w.pid();
  std::string line;
  ASSERT_EQ(w.receive(line, Clock::now() + std::chrono::seconds(10)), WorkerProcess::Read::Died);
  EXPECT_EQ(w.death(), "killed by signal 11 (SIGSEGV)");
  const std::string tail = w.stderr_tail();
  EXPECT_EQ(tail.rfind("line 12\n", 0), 0u) << tail;  // the last 8 of 20 lines
  EXPECT_EQ(tail.substr(tail.size() - 7), "line 19") << tail;
  EXPECT_TRUE(reaped(pid));
  // Writing to it now fails, without a SIGPIPE that would end this test.
  EXPECT_FALSE(w.send("anyone?"));
}

TEST(WorkerProcess, ATimeoutLeavesItRunningAndKillReapsIt) {
  WorkerProcess w;
  ASSERT_TRUE(start_sh(w, "exec sleep 60"));
  const pid_t pid = w.pid();
  std::string line;
  const auto t0 = Clock::now();
  ASSERT_EQ(w.receive(line, t0 + std::chrono::milliseconds(300)), WorkerProcess::Read::TimedOut);
  EXPECT_GE(Clock::now() - t0, std::chrono::milliseconds(300));
  EXPECT_TRUE(w.running());
  EXPECT_EQ(::kill(pid, 0), 0) << "still there";
  w.kill();
  EXPECT_EQ(w.death(), "killed by signal 9 (SIGKILL)");
  EXPECT_TRUE(reaped(pid)) << "no zombie";
}

TEST(WorkerProcess, TheShareOfAStretchThatCountsIsTheTimeOnACoreOverTheTimeWanted) {
  const TaskTimes from{{10, {100, 50}}, {11, {200, 0}}};
  // Thread 10 ran 100 and waited 300, thread 11 ran 100, thread 12 is new
  // (its whole times count), thread 13 ended (not counted): 400 of 800.
  const TaskTimes to{{10, {200, 350}}, {11, {300, 0}}, {12, {200, 100}}};
  EXPECT_DOUBLE_EQ(runnable_share(from, to), 0.5);
  EXPECT_DOUBLE_EQ(runnable_share(to, to), 1.0) << "neither ran nor waited (blocked): the stretch counts whole";
  EXPECT_DOUBLE_EQ(runnable_share({}, {{1, {0, 100}}}), 0.0);
  const auto self = read_task_times(getpid());
  ASSERT_TRUE(self.has_value());
  EXPECT_TRUE(self->count(pid_t(syscall(SYS_gettid)))) << "this thread is among them";
  EXPECT_FALSE(read_task_times(-1).has_value());
}

namespace {

// A shell loop of n iterations: CPU work, then a line.
std::string spin_then_answer(long n) {
  return "i=0; while [ $i -lt " + std::to_string(n) + " ]; do i=$((i+1)); done; echo done";
}

// Process `pid` on the one core `cpu` only.
bool pin(pid_t pid, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(pid, sizeof set, &set) == 0;
}

}  // namespace

TEST(WorkerProcess, TimeTheWorkerWaitedForACoreDoesNotCountTowardsItsDeadline) {
  // A loop that needs about T of CPU, alone on one core; then again with
  // six processes that spin on that core beside it (it gets about a seventh
  // of it), under a deadline of 2 T: it answers after the deadline's wall
  // time, and its answer is taken, not a timeout.
  cpu_set_t mine;
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  int cpu = 0;
  while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &mine)) ++cpu;
  ASSERT_LT(cpu, CPU_SETSIZE);
  std::string line;
  long n = 20000;
  Clock::duration alone{};
  for (;; n *= 2) {
    WorkerProcess w;
    ASSERT_TRUE(start_sh(w, spin_then_answer(n)));
    ASSERT_TRUE(pin(w.pid(), cpu));
    const auto t0 = Clock::now();
    ASSERT_EQ(w.receive(line, t0 + std::chrono::seconds(30)), WorkerProcess::Read::Line);
    alone = Clock::now() - t0;
    if (alone >= std::chrono::milliseconds(150) || n > (1l << 28)) break;
  }
  std::vector<pid_t> hogs;
  for (int h = 0; h < 6; ++h) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      alarm(60);  // never outlives a test that failed before killing it
      volatile unsigned spins = 0;
      for (;;) spins = spins + 1u;
    }
    ASSERT_TRUE(pin(pid, cpu));
    hogs.push_back(pid);
  }
  WorkerProcess w;
  ASSERT_TRUE(start_sh(w, spin_then_answer(n)));
  ASSERT_TRUE(pin(w.pid(), cpu));
  const auto t0 = Clock::now();
  const auto read = w.receive(line, t0 + 2 * alone);
  const auto took = Clock::now() - t0;
  for (const pid_t pid : hogs) {
    ::kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  const auto ms = [](Clock::duration d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); };
  EXPECT_EQ(read, WorkerProcess::Read::Line) << "alone " << ms(alone) << " ms, then " << ms(took) << " ms";
  EXPECT_GT(took, 2 * alone) << "it waited for its core beyond the deadline's wall time (alone " << ms(alone) << " ms)";
  // A worker that spins without end, with a core to itself, times out at
  // about its deadline: the extension is only for time it waited.
  WorkerProcess spinner;
  ASSERT_TRUE(start_sh(spinner, "while :; do :; done"));
  const auto s0 = Clock::now();
  EXPECT_EQ(spinner.receive(line, s0 + std::chrono::milliseconds(300)), WorkerProcess::Read::TimedOut);
  EXPECT_LT(Clock::now() - s0, std::chrono::seconds(5));
  spinner.kill();
}

TEST(WorkerProcess, DescriptorsOfTheSupervisorAreNotInherited) {
  // A descriptor opened without close-on-exec (as a report file may be)
  // does not reach the worker.
  const int leaked = 100;
  ASSERT_EQ(dup2(STDERR_FILENO, leaked), leaked);
  WorkerProcess w;
  ASSERT_TRUE(start_sh(w, "echo $(ls /proc/self/fd)"));
  std::string line;
  ASSERT_EQ(w.receive(line, Clock::now() + std::chrono::seconds(10)), WorkerProcess::Read::Line);
  ::close(leaked);
  std::istringstream in(line);
  std::vector<int> fds;
  for (int fd; in >> fd;) fds.push_back(fd);
  EXPECT_EQ(fds, (std::vector<int>{0, 1, 2, 3})) << "3: the directory ls reads; " << line;
}

// ------------------------------------------------------------ in process

TEST(InProcess, AfterALostCudaContextTheNextTrialStopsTheRunWithOneLine) {
  TrialSpec s;
  s.impl = "no.such.entry";  // this program registers none: Error, but it runs
  const RunOptions in_process;
  ASSERT_FALSE(in_process.policy.isolate);
  EXPECT_EQ(execute_trial(s, BackendKind::Cpu, in_process).verdict, Verdict::Error);
  // What a faulting kernel leaves behind (run_program.cuh): the next trial
  // in this process is not run.
  EXPECT_EXIT(
      {
        cuda::mark_context_lost("test.fault.u32 kernel: cudaErrorIllegalAddress: an illegal memory access");
        execute_trial(s, BackendKind::Cpu, in_process);
      },
      ::testing::ExitedWithCode(3),
      "^atomstress: error: this process's CUDA context is lost \\(test.fault.u32 kernel: cudaErrorIllegalAddress: "
      "an illegal memory access\\), so no further trial can run in it: run with --isolate on [^\n]*\n$");
}

// ----------------------------------------------------------- end to end

std::string program() { return bin_dir() + "atomstress_outside_entry"; }

Result run(const std::string& args) { return run_shell(program() + " " + args + " 2>&1"); }

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The seconds a deadline's text says its worker waited for a core, which
// the deadline does not count (counted_wait.hpp): on a loaded host a bound
// on wall time holds for the counted time only.
double uncounted_s(const std::string& text) {
  const std::string mark = "after ";
  double s = 0;
  for (size_t at = text.find(mark); at != std::string::npos; at = text.find(mark, at + 1)) {
    const size_t end = text.find(" ms more that it spent waiting for a core", at);
    if (end == std::string::npos) break;
    if (end > at + mark.size() && end - at - mark.size() < 12)
      s += std::stod(text.substr(at + mark.size(), end - at - mark.size())) / 1000;
  }
  return s;
}

// A fresh scratch folder per test (removed when the tests end).
atomstress::testing::Scratch* const scratch_env = atomstress::testing::add_scratch("atomstress_isolation");
fs::path scratch(const std::string& name) { return scratch_env->dir(name); }

std::vector<json> json_lines(const fs::path& p) {
  std::ifstream in(p);
  std::vector<json> v;
  for (std::string line; std::getline(in, line);) v.push_back(json::parse(line));
  return v;
}

// The terminal line whose second word is `impl` ("" when none).
std::string line_of(const std::string& out, const std::string& impl) {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string verdict, name;
    if (words >> verdict >> name && name == impl) return line;
  }
  return "";
}

// (No shrinking: these tests are about isolation; shrinking a hang costs a
// watchdog per smaller case.)
const std::string kSmall = " --backend cpu --trials 1 --grid 2 --block 32 --ops-per-thread 2 --no-shrink ";

TEST(Isolation, AHangCostsOneVerdictAndTheRunGoesOn) {
  const auto t0 = Clock::now();
  const auto r = run("check --impl 'test.spin.forever.u32,outside.add.u32'" + kSmall + "--watchdog-ms 500");
  // The bound is the supervisor's deadline (500 ms + 2 s of grace, a worker
  // start-up), not a speed: in one process the spinner never ends.  (Of the
  // counted time: beside two `yes`, the spinner's worker waited 157 s.)
  EXPECT_LT(seconds_since(t0) - uncounted_s(r.out), 20.0) << r.out;
  EXPECT_EQ(r.status, 1) << r.out;
  const std::string hang = line_of(r.out, "test.spin.forever.u32"), pass = line_of(r.out, "outside.add.u32");
  EXPECT_EQ(hang.rfind("HANG ", 0), 0u) << r.out;
  EXPECT_EQ(pass.rfind("PASS ", 0), 0u) << r.out;
  EXPECT_LT(r.out.find(hang), r.out.find(pass)) << r.out;
  EXPECT_NE(r.out.find("no result within the trial's watchdog (500 ms)"), std::string::npos) << r.out;
  // The repro line names the program that ran (it has the test entries).
  EXPECT_NE(r.out.find("repro: atomstress_outside_entry repro as2."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(".test.spin.forever.u32."), std::string::npos) << r.out;
}

// A kernel entry's property whose host code never ends after its launch
// (tests/kernel_host_code_entries.cpp): the kernel had finished, so the
// verdict is an ERROR of the property naming the entry and the phase, not
// the kernel's HANG (and, as every ERROR, check stops with it: exit 2).
TEST(Isolation, AKernelPropertysEndlessHostCodeIsAnErrorNotTheKernelsHang) {
  const auto t0 = Clock::now();
  const auto r = run("check --impl kernel_test.host_code_never_ends" + kSmall + "--watchdog-ms 300 --pattern single");
  // The deadline: 300 ms, 2 s of grace, 5 s of host code (plus 10 us per op).
  EXPECT_LT(seconds_since(t0) - uncounted_s(r.out), 30.0) << r.out;
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(r.out.find("HANG"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("class: hang"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the property of kernel entry 'kernel_test.host_code_never_ends' did not finish its host code "
                       "within the trial's deadline (7301 ms: the watchdog 300 ms, 2000 ms of grace, 5001 ms for "
                       "host code): it was in its host code after launch 1 (which had finished)"),
            std::string::npos)
      << r.out;
}

// A one-block trial of a kernel test entry (kernel_host_code_entries.cpp)
// with a 300 ms watchdog, as a repro token.
std::string kernel_test_token(const char* impl) {
  TrialSpec s;
  s.impl = impl;
  s.grid = 1;
  s.block = 32;
  s.ops_per_thread = 1;
  TrialKnobs knobs;
  knobs.watchdog_ms = 300;
  return encode_token(s, knobs);
}

// The same entry replayed alone (repro: one trial, not a sequence).
TEST(Isolation, AKernelPropertysEndlessHostCodeReplaysAsTheSameError) {
  const auto r = run("repro " + kernel_test_token("kernel_test.host_code_never_ends") + " --backend cpu --runs 1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("atomstress: error: the property of kernel entry 'kernel_test.host_code_never_ends' did not "
                       "finish its host code"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("HANG"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("it was in its host code after launch 1 (which had finished)"), std::string::npos) << r.out;
}

// A property's host code slower than the watchdog and the grace together,
// within the host-code allowance: it finishes, and passes.
TEST(Isolation, AKernelPropertysSlowHostCodeIsNotCutShort) {
  const auto r = run("check --impl kernel_test.host_code_slow" + kSmall + "--watchdog-ms 300 --pattern single");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(line_of(r.out, "kernel_test.host_code_slow").rfind("PASS ", 0), 0u) << r.out;
}

// A launch that never ends is bounded by the watchdog and the grace from
// its start, not by the host-code allowance as well: the HANG names the
// launch and the bound it had, through check (a sequence) and repro (one
// trial).
TEST(Isolation, AKernelCasesEndlessLaunchIsAHangAtTheLaunchsOwnBound) {
  const auto c = run("check --impl kernel_test.launch_never_ends" + kSmall + "--watchdog-ms 300 --pattern single");
  EXPECT_EQ(c.status, 1) << c.out;
  EXPECT_EQ(line_of(c.out, "kernel_test.launch_never_ends").rfind("HANG ", 0), 0u) << c.out;
  const std::string launch_bound = "no result within the trial's watchdog (300 ms) and 2000 ms of grace: its worker";
  EXPECT_NE(c.out.find(launch_bound), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("kernel entry 'kernel_test.launch_never_ends' was in launch 1"), std::string::npos) << c.out;
  EXPECT_EQ(c.out.find("for host code"), std::string::npos) << c.out;
  const auto r = run("repro " + kernel_test_token("kernel_test.launch_never_ends") + " --backend cpu --runs 1");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find(launch_bound), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("was in launch 1"), std::string::npos) << r.out;
}

TEST(Isolation, TheDeadlineSaysWhoseTimeRanOut) {
  Outcome blank;
  const TrialDeadline d{300, 2000, 5001};
  EXPECT_EQ(d.total_ms(), 7301u);
  // No phase (not a kernel entry): the hang of before.
  Outcome o = deadline_passed(blank, d, std::nullopt, 42, "");
  EXPECT_EQ(o.verdict, Verdict::Hang);
  EXPECT_EQ(o.why(), "no result within the trial's watchdog (300 ms) and 2000 ms of grace and 5001 ms for host code: "
                     "its worker (pid 42) was killed");
  // In a launch: the kernel's hang, and which launch.
  o = deadline_passed(blank, d, kernel::PhaseNote{"k.x", kernel::CasePhase::Launch, 2}, 42, "");
  EXPECT_EQ(o.verdict, Verdict::Hang);
  EXPECT_EQ(o.finding.kind, FindingKind::Hang);
  EXPECT_NE(o.why().find("; kernel entry 'k.x' was in launch 2"), std::string::npos) << o.why();
  // In the property's host code: an error of the property, before or after a launch.
  o = deadline_passed(blank, d, kernel::PhaseNote{"k.x", kernel::CasePhase::HostCode, 0}, 42, "");
  EXPECT_EQ(o.verdict, Verdict::Error);
  EXPECT_EQ(o.finding.kind, FindingKind::HostCodeTimeout);
  EXPECT_EQ(o.finding.cls, FailureClass::None);
  EXPECT_NE(o.why().find("the property of kernel entry 'k.x' did not finish its host code within the trial's deadline "
                         "(7301 ms: the watchdog 300 ms, 2000 ms of grace, 5001 ms for host code): it was in its host "
                         "code before its first launch; its worker (pid 42) was killed"),
            std::string::npos)
      << o.why();
  // The note crosses the worker's protocol whole.
  const kernel::PhaseNote note{"k.x", kernel::CasePhase::HostCode, 3};
  kernel::PhaseNote back;
  std::string error;
  ASSERT_TRUE(phase_from_json(json::parse(to_json(note).dump()), back, error)) << error;
  EXPECT_EQ(back, note);
  EXPECT_EQ(to_json(note).dump().rfind("{\"case_phase\"", 0), 0u);  // the supervisor's quick test of a line
  EXPECT_FALSE(phase_from_json(json{{"verdict", "PASS"}}, back, error));
}

TEST(Isolation, ACrashCostsOneVerdictAndTheRunGoesOn) {
  const auto r = run("check --impl 'test.fault.u32,outside.add.u32'" + kSmall);
  EXPECT_EQ(r.status, 1) << r.out;
  const std::string crash = line_of(r.out, "test.fault.u32"), pass = line_of(r.out, "outside.add.u32");
  EXPECT_EQ(crash.rfind("CRASH ", 0), 0u) << r.out;
  EXPECT_EQ(pass.rfind("PASS ", 0), 0u) << r.out;
  EXPECT_LT(r.out.find(crash), r.out.find(pass)) << r.out;
  EXPECT_NE(r.out.find("killed by signal 11 (SIGSEGV)"), std::string::npos) << r.out;
  // The worker said where it died, for addr2line.
  EXPECT_NE(r.out.find("atomstress worker: fatal signal 11; call stack (offsets into the executable, for "
                       "addr2line -f -C -e): 0x"),
            std::string::npos)
      << r.out;
}

// Each crash costs a worker (on the GPU, its CUDA context): a shrunk case
// whose first three reruns all crashed is not run seven times more.
TEST(Isolation, AShrunkCrashsRateStopsAtThreeRunsThatAllCrashed) {
  const auto r = run("check --impl test.fault.u32 --backend cpu --trials 1 --grid 2 --block 32 --ops-per-thread 2");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("(failed 3 of 3 reruns;"), std::string::npos) << r.out;
}

// And it shrinks in size only: one accepted candidate (one op) here, its
// values, initial memory and specials kept, where a wrong value would walk
// on towards plainer ones (each step another lost worker).
TEST(Isolation, ACrashShrinksInSizeOnly) {
  TrialSpec s;
  s.impl = "test.fault.u32";
  s.grid = 2;
  s.block = 32;
  s.ops_per_thread = 2;
  s.pattern = Pattern::Uniform;
  s.k = 64;
  s.init = Init::Random;
  s.special_permille = 300;
  s.seed = 12345;
  const auto r = run("repro " + encode_token(s, TrialKnobs{}) + " --backend cpu --shrink");
  EXPECT_EQ(r.status, 1) << r.out;
  const size_t at = r.out.find("shrunk: ");
  const std::string shrunk = at == std::string::npos ? "" : r.out.substr(at, r.out.find('\n', at) - at);
  EXPECT_NE(shrunk.find("(1 ops)"), std::string::npos) << r.out;
  EXPECT_NE(shrunk.find(" 1 accepted"), std::string::npos) << r.out;
  EXPECT_NE(shrunk.find("special=300/1000 init=random"), std::string::npos) << r.out;
  EXPECT_NE(shrunk.find("failed 3 of 3 reruns"), std::string::npos) << r.out;
}

TEST(Isolation, TheReproLineOfACrashCrashesAgain) {
  TrialSpec s;
  s.impl = "test.fault.u32";
  s.grid = 1;
  s.block = 4;
  const auto r = run("repro " + encode_token(s, TrialKnobs{}) + " --backend cpu --runs 3");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("failed 3 of 3 runs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("run 1: CRASH: "), std::string::npos) << r.out;
}

// The worker takes a pack and answers one result per spec, in order; on the
// cpu backend nothing packs, so every result is empty (run alone).  A pack
// it cannot read is refused, and it serves the next request.
// The children of the calling thread (a thread's supervisor starts its
// worker from that thread).
std::vector<pid_t> children_of_this_thread() {
  std::ifstream in("/proc/self/task/" + std::to_string(syscall(SYS_gettid)) + "/children");
  std::vector<pid_t> pids;
  for (pid_t p; in >> p;) pids.push_back(p);
  return pids;
}

// prepare_isolated_worker starts the thread's worker at once, and the first
// trial is answered by it; one prepared for another backend is replaced.
TEST(Isolation, APreparedWorkerStartsAtOnceAndAnswersTheFirstTrial) {
  set_worker_program(program());
  TrialSpec s;
  s.impl = "outside.add.u32";
  std::thread([&s] {
    EXPECT_TRUE(children_of_this_thread().empty());
    prepare_isolated_worker(BackendKind::Cpu);
    const std::vector<pid_t> prepared = children_of_this_thread();
    ASSERT_EQ(prepared.size(), 1u);
    prepare_isolated_worker(BackendKind::Cpu);  // already started: nothing
    EXPECT_EQ(children_of_this_thread(), prepared);
    const Outcome o = run_trial_isolated(s, BackendKind::Cpu, RunOptions{});
    EXPECT_EQ(o.verdict, Verdict::Pass) << o.why();
    EXPECT_EQ(children_of_this_thread(), prepared);
  }).join();
  std::thread([&s] {
    prepare_isolated_worker(BackendKind::Cuda);
    const std::vector<pid_t> prepared = children_of_this_thread();
    ASSERT_EQ(prepared.size(), 1u);
    const Outcome o = run_trial_isolated(s, BackendKind::Cpu, RunOptions{});
    EXPECT_EQ(o.verdict, Verdict::Pass) << o.why();
    const std::vector<pid_t> now = children_of_this_thread();
    ASSERT_EQ(now.size(), 1u);
    EXPECT_NE(now, prepared);
  }).join();
}

// A pack's launches travel beside its results as [end_s, ms] pairs, its
// judging on the device as [end_s, ms, 1], for the GPU's busy time (fuzz:
// the union of every kernel that ran).
TEST(TrialJson, APacksLaunchesComeBack) {
  const std::vector<LaunchSpan> spans = {
      {12345.678901234, 2.5}, {12345.7, 0}, {0.25, 1e-3}, {12345.75, 0.5, true}};
  std::vector<LaunchSpan> back;
  std::string error;
  ASSERT_TRUE(from_json(json::parse(to_json(spans).dump()), back, error)) << error;
  ASSERT_EQ(back.size(), spans.size());
  for (size_t i = 0; i < spans.size(); ++i) {
    EXPECT_EQ(back[i].end_s, spans[i].end_s);
    EXPECT_EQ(back[i].ms, spans[i].ms);
    EXPECT_EQ(back[i].own, spans[i].own);
  }
  ASSERT_TRUE(from_json(json::array(), back, error)) << error;
  EXPECT_TRUE(back.empty());
  for (const json& bad : {json(5), json::array({json::array({1.0})}), json::array({json::array({1.0, -2.0})}),
                          json::array({json::array({1.0, "2"})}), json::array({json::array({1.0, 2.0, 3.0})}),
                          json::array({json::array({1.0, 2.0, 1, 1})}),
                          json::parse(R"([{"end_s": 1, "ms": 2}])")}) {
    error.clear();
    EXPECT_FALSE(from_json(bad, back, error)) << bad.dump();
    EXPECT_NE(error, "") << bad.dump();
  }
}

TEST(Isolation, AWorkerAnswersAPackWithOneResultPerSpec) {
  WorkerProcess w;
  std::string error, line;
  ASSERT_TRUE(w.start(program(), {"atomstress_outside_entry", "worker", "--backend", "cpu"}, error)) << error;
  ASSERT_EQ(w.receive(line, Clock::now() + std::chrono::seconds(60)), WorkerProcess::Read::Line);
  EXPECT_NE(line.find("\"ready\":true"), std::string::npos) << line;
  PackRequest pack;
  pack.backend = BackendKind::Cpu;
  for (uint64_t i = 0; i < 3; ++i) {
    TrialSpec s;
    s.impl = "outside.add.u32";
    s.seed = i;
    pack.specs.push_back(s);
  }
  ASSERT_TRUE(w.send(to_json(pack).dump()));
  ASSERT_EQ(w.receive(line, Clock::now() + std::chrono::seconds(60)), WorkerProcess::Read::Line);
  const json j = json::parse(line);
  ASSERT_TRUE(j["results"].is_array()) << line;
  ASSERT_EQ(j["results"].size(), 3u) << line;
  for (const json& r : j["results"]) EXPECT_TRUE(r.is_null()) << line;
  EXPECT_EQ(j["launches"], json::array()) << "no launch ran on the cpu: " << line;
  json bad = to_json(pack);
  bad["pack"] = 5;
  ASSERT_TRUE(w.send(bad.dump()));
  ASSERT_EQ(w.receive(line, Clock::now() + std::chrono::seconds(60)), WorkerProcess::Read::Line);
  EXPECT_NE(line.find("malformed request"), std::string::npos) << line;
  ASSERT_TRUE(w.send(to_json(TrialRequest{pack.specs[0], BackendKind::Cpu, {}, 0}).dump()));
  ASSERT_EQ(w.receive(line, Clock::now() + std::chrono::seconds(60)), WorkerProcess::Read::Line);
  EXPECT_NE(line.find("\"verdict\":\"PASS\""), std::string::npos) << line;
  w.stop(std::chrono::seconds(10));
  EXPECT_EQ(w.death(), "exited with status 0");
}

// execute_packed gives every kernel that ran (fuzz's busy time): on the
// cpu nothing packs, and each trial runs alone in the worker, one span each
// with its run's end and time.
TEST(Isolation, ExecutePackedGivesEveryKernelThatRan) {
  set_worker_program(program());
  std::vector<TrialSpec> specs(3);
  for (size_t i = 0; i < specs.size(); ++i) {
    specs[i].impl = "outside.add.u32";
    specs[i].seed = i;
  }
  RunOptions opt;
  opt.policy.isolate = true;
  std::vector<LaunchSpan> spans;
  const auto results = execute_packed(specs, BackendKind::Cpu, opt, 1, false, &spans);
  ASSERT_EQ(results.size(), specs.size());
  ASSERT_EQ(spans.size(), specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    ASSERT_TRUE(results[i].has_value()) << i;
    EXPECT_EQ(results[i]->verdict, Verdict::Pass) << results[i]->why();
    EXPECT_GT(spans[i].end_s, 0) << i;
    EXPECT_EQ(spans[i].end_s, results[i]->run_end_s) << i;
    EXPECT_EQ(spans[i].ms, results[i]->run_ms) << i;
  }
}

// A sequence in a worker: a trial that hangs, and one that kills the
// worker, in its middle each cost one verdict (the one run_trial_isolated
// gives), the trials around them pass, in order, and the sequence goes on
// in a fresh worker; with until_failure it stops at the hang.
TEST(Isolation, ASequenceGoesOnPastAHangAndACrashInItsMiddle) {
  set_worker_program(program());
  std::vector<TrialSpec> specs;
  for (const char* impl : {"outside.add.u32", "outside.add.u32", "test.spin.forever.u32", "outside.add.u32",
                           "test.fault.u32", "outside.add.u32"}) {
    TrialSpec s;
    s.impl = impl;
    s.grid = 2;
    s.block = 32;
    s.ops_per_thread = 2;
    s.seed = specs.size();
    specs.push_back(s);
  }
  SequenceConfig cfg;
  cfg.backend = BackendKind::Cpu;
  cfg.run.policy.isolate = true;
  cfg.run.knobs.watchdog_ms = 300;
  std::vector<Outcome> got;
  const auto t0 = Clock::now();
  run_sequence_isolated(specs, cfg, [&](Outcome&& o) { got.push_back(std::move(o)); });
  double waited = 0;
  for (const auto& o : got) waited += uncounted_s(o.why());
  EXPECT_LT(seconds_since(t0) - waited, 30.0);  // the hang's deadline (300 ms + 2 s) and three worker start-ups
  ASSERT_EQ(got.size(), specs.size());
  const Verdict want[] = {Verdict::Pass, Verdict::Pass, Verdict::Hang, Verdict::Pass, Verdict::Crash, Verdict::Pass};
  for (size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(got[i].spec, specs[i]) << i;
    EXPECT_EQ(got[i].verdict, want[i]) << i << ": " << got[i].why();
  }
  EXPECT_NE(got[2].why().find("no result within the trial's watchdog (300 ms)"), std::string::npos) << got[2].why();
  EXPECT_NE(got[4].why().find("killed by signal 11 (SIGSEGV)"), std::string::npos) << got[4].why();
  got.clear();
  cfg.until_failure = true;
  run_sequence_isolated(specs, cfg, [&](Outcome&& o) { got.push_back(std::move(o)); });
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[2].verdict, Verdict::Hang) << got[2].why();
  set_worker_program("/proc/self/exe");
}

TEST(Isolation, JsonLinesWrittenBeforeACrashSurvive) {
  const fs::path d = scratch("json");
  // In one process (--isolate off) the fault ends the program, but the
  // lines of the trials before it are on disk.
  const fs::path alone = d / "in_process.jsonl";
  const auto r = run("check --impl 'outside.add.u32,test.fault.u32' --pattern single,uniform --space global" + kSmall +
                     "--isolate off --json " + alone.string());
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.status, 1) << "killed, not a finished run: " << r.out;
  auto lines = json_lines(alone);
  ASSERT_EQ(lines.size(), 2u);
  for (const auto& j : lines) {
    EXPECT_EQ(j["impl"], "outside.add.u32");
    EXPECT_EQ(j["verdict"], "PASS");
  }
  // Isolated, the crash is a record of its own, and the run goes on.
  const fs::path isolated = d / "isolated.jsonl";
  const auto i = run("check --impl 'test.fault.u32,outside.add.u32' --pattern single,uniform --space global" + kSmall +
                     "--json " + isolated.string());
  EXPECT_EQ(i.status, 1) << i.out;
  lines = json_lines(isolated);
  ASSERT_EQ(lines.size(), 3u);  // the fault stops at its first trial
  EXPECT_EQ(lines[0]["impl"], "test.fault.u32");
  EXPECT_EQ(lines[0]["verdict"], "CRASH");
  EXPECT_EQ(lines[0]["finding"]["kind"], "crash");
  EXPECT_NE(lines[0]["why"].get<std::string>().find("SIGSEGV"), std::string::npos) << lines[0].dump();
  for (size_t k : {1, 2}) {
    EXPECT_EQ(lines[k]["impl"], "outside.add.u32");
    EXPECT_EQ(lines[k]["verdict"], "PASS");
  }
}

TEST(Isolation, FuzzRecordsOneVerdictPerBadEntryAndFuzzesTheGoodOne) {
  const fs::path d = scratch("fuzz");
  const fs::path log = d / "fuzz.jsonl", junit = d / "fuzz.xml";
  const auto r = run("fuzz --backend cpu --impl 'test.*,outside.add.u32' --time 20s --json " + log.string() +
                     " --junit " + junit.string() + " --corpus " + (d / "corpus").string());
  EXPECT_EQ(r.status, 1) << r.out;
  std::map<std::string, json> entries;
  std::map<std::string, int> failing_slices;
  for (const auto& j : json_lines(log)) {
    if (j["record"] == "entry") entries[j["impl"]] = j;
    if (j["record"] == "slice" && j["verdict"] != "PASS") ++failing_slices[j["impl"]];
  }
  ASSERT_EQ(entries.size(), 3u) << r.out;
  EXPECT_EQ(entries["test.spin.forever.u32"]["verdict"], "HANG") << r.out;
  EXPECT_EQ(entries["test.fault.u32"]["verdict"], "CRASH") << r.out;
  EXPECT_EQ(failing_slices["test.spin.forever.u32"], 1);
  EXPECT_EQ(failing_slices["test.fault.u32"], 1);
  EXPECT_EQ(entries["outside.add.u32"]["verdict"], "PASS") << r.out;
  EXPECT_FALSE(entries["outside.add.u32"]["skipped"].get<bool>()) << r.out;
  EXPECT_GT(entries["outside.add.u32"]["trials"].get<uint64_t>(), 0u) << r.out;
  // Each failure is a JUnit failure of its type and a corpus case.
  std::ifstream in(junit);
  const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(xml.find("type=\"HANG\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("type=\"CRASH\""), std::string::npos) << xml;
  size_t cases = 0;
  for (const auto& f : fs::directory_iterator(d / "corpus")) cases += f.path().extension() == ".case";
  EXPECT_EQ(cases, 2u);
}

TEST(Isolation, OnlyOnOffOrAutoIsTaken) {
  const auto r = run("check --impl outside.add.u32 --backend cpu --isolate maybe");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("'maybe' is not on, off or auto"), std::string::npos) << r.out;
  EXPECT_EQ(run("check --impl outside.add.u32" + kSmall + "--isolate off").status, 0);
  EXPECT_EQ(run("check --impl outside.add.u32" + kSmall + "--isolate auto").status, 0);
}

}  // namespace

// Issue 28, defect 20: a worker killed from outside (SIGKILL the supervisor
// did not send: the OOM killer, an operator) is not the entry's CRASH: the
// trial runs again once; killed again, it is an infrastructure ERROR.
namespace {

// The one child (the trial worker) of `pid`, or 0.
pid_t worker_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  pid_t child = 0;
  in >> child;
  return child;
}

// CPU seconds `pid` has used (0 when it is gone).
double cpu_seconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  const auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string f;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> f; ++i) {
    if (i == 14) utime = std::stoull(f);
    if (i == 15) stime = std::stoull(f);
  }
  return double(utime + stime) / double(sysconf(_SC_CLK_TCK));
}

// Runs a check whose one trial takes seconds of CPU (outside.slow_add.u32 on
// one host thread: no yields, which a loaded host makes slow), sends its
// worker `sig` `kills` times (each a fresh worker, once it is busy with its
// trial), and returns the output and exit status.  (`trials`: other check
// arguments, a run of many quick trials instead.)
const std::vector<std::string> kOneLongTrial = {"--impl", "outside.slow_add.u32", "--cpu-threads", "1",
                                                "--grid", "4", "--block", "64", "--ops-per-thread", "512",
                                                "--trials", "1", "--yield", "0"};
Result check_killing_workers(int kills, int sig = SIGKILL, const std::vector<std::string>& trials = kOneLongTrial) {
  const fs::path out = scratch("kill-" + std::to_string(kills) + "-" + std::to_string(sig)) / "out";
  std::vector<std::string> args = {"atomstress_outside_entry", "check", "--backend", "cpu", "--pattern", "single",
                                   "--space", "global", "--no-shrink"};
  args.insert(args.end(), trials.begin(), trials.end());
  const pid_t pid = fork();
  if (pid == 0) {
    freopen(out.c_str(), "w", stdout);
    dup2(fileno(stdout), 2);
    const std::string p = program();
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(p.c_str(), argv.data());
    _exit(127);
  }
  pid_t last = 0;
  for (int k = 0; k < kills; ++k) {
    pid_t w = 0;
    for (int i = 0; i < 200 && ((w = worker_of(pid)) == 0 || w == last); ++i) usleep(50 * 1000);
    // Busy with its trial (a worker's start-up takes far less CPU than this).
    for (int i = 0; i < 200 && w != 0 && cpu_seconds(w) < 0.3; ++i) usleep(20 * 1000);
    if (w != 0) kill(w, sig);
    last = w;
  }
  int st = 0;
  waitpid(pid, &st, 0);
  std::ifstream in(out);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, std::string(std::istreambuf_iterator<char>(in), {})};
}

}  // namespace

TEST(Isolation, Defect20_AWorkerKilledFromOutsideIsNotTheEntrysCrash) {
  const auto once = check_killing_workers(1);
  EXPECT_EQ(once.status, 0) << once.out;
  EXPECT_EQ(line_of(once.out, "outside.slow_add.u32").rfind("PASS ", 0), 0u) << once.out;
  EXPECT_NE(once.out.find("killed by SIGKILL from outside"), std::string::npos) << once.out;
  // Killed again: an infrastructure error (check stops on an ERROR: one line, exit 2), not a CRASH.
  const auto twice = check_killing_workers(2);
  EXPECT_EQ(twice.status, 2) << twice.out;
  EXPECT_NE(twice.out.find("infrastructure error, not the code under test"), std::string::npos) << twice.out;
  EXPECT_EQ(twice.out.find("CRASH"), std::string::npos) << twice.out;
}

// ------------------------------------------------------------ spare workers

TEST(SpareWorkers, AReplacementTakesAStartedSpareAndKeepsTwoWaiting) {
  spare_workers::clear();
  const std::string sh = "/bin/sh";
  const std::vector<std::string> argv = {"sh", "-c", "while read x; do echo \"got $x\"; done"};
  WorkerProcess w;
  // A first start gets no spare, and starts none.
  EXPECT_FALSE(spare_workers::take(sh, argv, false, w));
  EXPECT_FALSE(w.running());
  EXPECT_EQ(spare_workers::waiting(), 0u);
  // A replacement does, and two more wait for the next.
  ASSERT_TRUE(spare_workers::take(sh, argv, true, w));
  ASSERT_TRUE(w.running());
  EXPECT_EQ(spare_workers::waiting(), spare_workers::kSpares);
  std::string line;
  ASSERT_TRUE(w.send("one"));
  ASSERT_EQ(w.receive(line, Clock::now() + std::chrono::seconds(10)), WorkerProcess::Read::Line);
  EXPECT_EQ(line, "got one");
  // Retired: let go at once (its input closed, so it exits), reaped later.
  const pid_t pid = w.pid();
  spare_workers::retire(w, false);
  EXPECT_FALSE(w.running());
  EXPECT_EQ(w.death(), "retired");
  // From now on this command line gets spares without being told again;
  // another command line does not.
  WorkerProcess next, other;
  ASSERT_TRUE(spare_workers::take(sh, argv, false, next));
  ASSERT_TRUE(next.send("two"));
  ASSERT_EQ(next.receive(line, Clock::now() + std::chrono::seconds(10)), WorkerProcess::Read::Line);
  EXPECT_EQ(line, "got two");
  EXPECT_FALSE(spare_workers::take(sh, {"sh", "-c", "cat"}, false, other));
  EXPECT_EQ(spare_workers::waiting(), spare_workers::kSpares);
  spare_workers::clear();  // the spares killed, every retired worker reaped
  EXPECT_EQ(spare_workers::waiting(), 0u);
  EXPECT_TRUE(reaped(pid)) << "no zombie";
  next.stop(std::chrono::seconds(10));
}

TEST(SpareWorkers, AKilledRetireeIsReapedAndTheSpareAfterItAnswers) {
  spare_workers::clear();
  const std::vector<std::string> argv = {"sh", "-c", "read x; echo \"got $x\"; exec sleep 60"};
  WorkerProcess w;
  ASSERT_TRUE(spare_workers::take("/bin/sh", argv, true, w));
  std::string line;
  ASSERT_TRUE(w.send("a"));
  ASSERT_EQ(w.receive(line, Clock::now() + std::chrono::seconds(10)), WorkerProcess::Read::Line);
  const pid_t pid = w.pid();
  spare_workers::retire(w, true);  // it would sleep on: SIGKILL
  EXPECT_FALSE(w.running());
  ASSERT_TRUE(spare_workers::take("/bin/sh", argv, false, w));
  ASSERT_TRUE(w.send("b"));
  ASSERT_EQ(w.receive(line, Clock::now() + std::chrono::seconds(10)), WorkerProcess::Read::Line);
  EXPECT_EQ(line, "got b");
  spare_workers::retire(w, true);
  spare_workers::clear();
  EXPECT_TRUE(reaped(pid)) << "no zombie";
}

// Issue 61 M6: any signal the code under test does not raise, sent from
// outside (a CI runner's SIGTERM, an operator's SIGINT, SIGHUP, SIGQUIT,
// SIGUSR1), is the infrastructure's like SIGKILL: the trial runs again,
// never a CRASH of the entry.  A worker stopped past its deadline (SIGSTOP)
// is not the entry's HANG.
TEST(Isolation, Defect61_M6_AnyOutsideSignalOrAStopIsNotTheEntrys) {
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1}) {
    const auto once = check_killing_workers(1, sig);
    EXPECT_EQ(once.status, 0) << strsignal(sig) << "\n" << once.out;
    EXPECT_EQ(line_of(once.out, "outside.slow_add.u32").rfind("PASS ", 0), 0u) << once.out;
    EXPECT_NE(once.out.find(std::string("killed by SIG") + sigabbrev_np(sig) + " from outside"), std::string::npos)
        << once.out;
    EXPECT_EQ(once.out.find("CRASH"), std::string::npos) << once.out;
  }
  const auto twice = check_killing_workers(2, SIGTERM);
  EXPECT_EQ(twice.status, 2) << twice.out;
  EXPECT_NE(twice.out.find("infrastructure error, not the code under test"), std::string::npos) << twice.out;
  EXPECT_EQ(twice.out.find("CRASH"), std::string::npos) << twice.out;
  // Stopped, with a short watchdog: killed at its deadline and run again (not stopped): PASS.
  const auto stopped = check_killing_workers(
      1, SIGSTOP,
      {"--impl", "outside.add.u32", "--cpu-threads", "1", "--grid", "2", "--block", "32", "--ops-per-thread", "64",
       "--trials", "3000", "--yield", "0", "--watchdog-ms", "200"});
  EXPECT_EQ(stopped.status, 0) << stopped.out;
  EXPECT_NE(stopped.out.find("stopped (SIGSTOP) past its deadline from outside"), std::string::npos) << stopped.out;
  EXPECT_EQ(stopped.out.find("HANG"), std::string::npos) << stopped.out;
}
