#include "harness/cli/fuzz_lanes.hpp"

#include <fmt/format.h>

#include "reports/terminal.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "fuzz/corpus.hpp"
#include "fuzz/merge_logs.hpp"
#include "harness/cli/merge_reports.hpp"
#include "harness/cli/options.hpp"
#include "harness/support/parse_number.hpp"
#include "harness/support/safe_path.hpp"
#include "reports/repro_command.hpp"

namespace fs = std::filesystem;

namespace atomstress::cli {

namespace {

constexpr unsigned kMaxDevices = 64;

std::string lane_file(const std::string& dir, size_t i, const char* ext) {
  return (fs::path(dir) / ("lane-" + std::to_string(i) + ext)).string();
}

// Starts one lane; it dies with the coordinator (and its worker with it).
pid_t start_lane(const std::vector<std::string>& args, const std::string& visible, std::string& error) {
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    error = "cannot start a lane process";
    return -1;
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(2);
    setenv("CUDA_VISIBLE_DEVICES", visible.c_str(), 1);
    std::vector<char*> argv;
    static char self[] = "/proc/self/exe";
    // argv[0] as ours: the lane's repro lines name this program.
    std::string name = reports::program_name();
    argv.push_back(name.data());
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(self, argv.data());
    _exit(127);
  }
  return pid;
}

// A lane's log goes into the run's --json once: from the byte where the
// last combine stopped (kept beside the lane's log, so that a --resume, or
// a --resume of a finished run, appends only what the lanes logged since).
bool append_new_records(const std::string& from, const std::string& offset_file, const std::string& to,
                        std::string& error) {
  uint64_t done = 0;
  if (something_at(offset_file)) {
    std::string text, why;
    if (!read_own_file(offset_file, 64, text, error)) return false;
    while (!text.empty() && text.back() == '\n') text.pop_back();
    const auto n = parse_unsigned(text, 0, UINT64_MAX, why);
    if (!n) {
      error = "malformed lane file '" + offset_file + "': '" + text + "' " + why;
      return false;
    }
    done = *n;
  }
  std::ifstream in(from, std::ios::binary | std::ios::ate);
  if (!in) return true;  // a lane that never logged
  const uint64_t size = uint64_t(in.tellg());
  if (done > size) {
    error = fmt::format("lane log '{}' holds {} bytes, fewer than the {} already in '{}': it was cut", from, size,
                        done, to);
    return false;
  }
  in.seekg(std::streamoff(done));
  std::ofstream out(to, std::ios::binary | std::ios::app);
  if (size > done) out << in.rdbuf();
  out.flush();
  if (!out) {
    error = "cannot write '" + to + "'";
    return false;
  }
  return write_own_file(offset_file, std::to_string(size) + "\n", error);
}

// SIGINT, SIGTERM, SIGHUP at the coordinator: passed on to every lane (each
// saves its state and ends), then the lanes' records are combined into the
// reports (their unfinished entries as INCOMPLETE errors) and the
// coordinator dies of the signal.
volatile std::sig_atomic_t g_lane_signal = 0;
volatile std::sig_atomic_t g_lanes = 0;
pid_t g_lane_pids[kMaxDevices * kMaxLanesPerDevice];
extern "C" void pass_on_to_lanes(int sig) {
  if (g_lane_signal == 0) g_lane_signal = sig;
  for (std::sig_atomic_t i = 0; i < g_lanes; ++i)
    if (g_lane_pids[i] > 0) ::kill(g_lane_pids[i], sig);
}

}  // namespace

bool parse_devices(const std::string& text, std::vector<unsigned>& out, std::string& why) {
  out.clear();
  std::set<unsigned> seen;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    const auto n = parse_unsigned(std::string_view(text).substr(start, end - start), 0, 1023, why);
    if (!n) return false;
    if (!seen.insert(unsigned(*n)).second) {
      why = "names device " + std::to_string(*n) + " twice";
      return false;
    }
    out.push_back(unsigned(*n));
    start = end + 1;
  }
  if (out.size() > kMaxDevices) {
    why = "names more than " + std::to_string(kMaxDevices) + " devices";
    return false;
  }
  return true;
}

std::string visible_device(unsigned index) {
  // Indexes count the devices this process sees: through an existing
  // CUDA_VISIBLE_DEVICES list when there is one.
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES"); v != nullptr && *v != '\0') {
    std::vector<std::string> ids;
    std::string cur;
    for (const char* c = v;; ++c) {
      if (*c == ',' || *c == '\0') {
        ids.push_back(cur);
        cur.clear();
        if (*c == '\0') break;
      } else {
        cur += *c;
      }
    }
    if (index < ids.size()) return ids[index];
  }
  return std::to_string(index);
}

std::vector<std::string> lane_args(const std::vector<std::string>& args) {
  // Options with a value that the coordinator handles (its report files among
  // them); and its switches.
  static const std::set<std::string> with_value = [] {
    std::set<std::string> s = {"--devices", "--jobs", "--state"};
    for (const auto& f : reports::report_formats())
      if (f.commands & reports::kReportFuzz) s.insert(std::string("--") + f.option);
    return s;
  }();
  static const std::set<std::string> switches = {"--resume"};
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const std::string name = a.substr(0, a.find('='));
    if (switches.count(a)) continue;
    if (with_value.count(name)) {
      if (a.find('=') == std::string::npos) ++i;  // "--junit F": skip F too
      continue;
    }
    out.push_back(a);
  }
  return out;
}

namespace {

unsigned lane_device(const LanePlan& plan, size_t lane) { return plan.devices[lane / plan.jobs]; }
size_t lane_count(const LanePlan& plan) { return plan.devices.size() * plan.jobs; }

// Starts a process per lane (a lane resumes from its state file when there
// is one); -1 for a lane that could not start, with `error`.
std::vector<pid_t> start_lanes(const LanePlan& plan, std::string& error) {
  const size_t n = lane_count(plan);
  const std::vector<std::string> common = lane_args(plan.args);
  std::vector<pid_t> pids(n, -1);
  struct sigaction sa{};
  sa.sa_handler = pass_on_to_lanes;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  for (size_t i = 0; i < n; ++i) {
    const std::string state = lane_file(plan.lanes_dir, i, ".json"), log = lane_file(plan.lanes_dir, i, ".jsonl");
    std::vector<std::string> args;
    if (plan.resume && fs::exists(state)) {
      args = {"fuzz", "--resume", "--state", state};
    } else {
      args = common;
      args.insert(args.begin(), "fuzz");
      for (const std::string& a : {std::string("--lane"), std::to_string(i) + "/" + std::to_string(n),
                                   std::string("--lane-device"), std::to_string(lane_device(plan, i)),
                                   std::string("--lane-jobs"), std::to_string(plan.jobs),
                                   std::string("--state"), state, std::string("--json"), log})
        args.push_back(a);
    }
    pids[i] = start_lane(args, visible_device(lane_device(plan, i)), error);
    if (pids[i] < 0) break;
    g_lane_pids[i] = pids[i];
    g_lanes = std::sig_atomic_t(i + 1);
    if (g_lane_signal != 0) ::kill(pids[i], g_lane_signal);  // it came while this lane started
  }
  return pids;
}

// Waits for every lane: the worst status (0, 1, or 2 with `error`).
int wait_lanes(const LanePlan& plan, const std::vector<pid_t>& pids, std::string& error) {
  int worst = 0;
  for (size_t i = 0; i < pids.size(); ++i) {
    if (pids[i] < 0) {
      worst = 2;
      continue;
    }
    int st = 0;
    while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR) {
    }
    const int code = WIFEXITED(st) ? WEXITSTATUS(st) : 2;
    if (g_lane_signal != 0 && WIFSIGNALED(st) && WTERMSIG(st) == g_lane_signal) {
      worst = std::max(worst, 1);  // interrupted as asked: its entries show as unfinished
    } else if (code != 0 && code != 1) {
      if (error.empty())
        error = fmt::format("lane {} (device {}) {}", i, lane_device(plan, i),
                            WIFEXITED(st) ? fmt::format("exited with status {}", code)
                                          : fmt::format("was killed by signal {}", WTERMSIG(st)));
      worst = 2;
    } else {
      worst = std::max(worst, code);
    }
  }
  return worst;
}

// What every lane recorded, whatever happened to the others, into the run's
// report files; each device's share printed.  False with `error`.
bool combine_lanes(const LanePlan& plan, double wall_s, int& worst, std::string& error) {
  fuzz::MergedLogs all;
  reports::print("\n");
  for (size_t i = 0; i < lane_count(plan); ++i) {
    const std::string log = lane_file(plan.lanes_dir, i, ".jsonl");
    // Lanes share no entry: what this log adds to `all` is the lane's.
    const size_t entries = all.entries.size();
    const uint64_t trials = all.trials, ops = all.ops;
    if (fs::exists(log) && !fuzz::read_fuzz_log(log, all, error)) return false;
    reports::print("device {}{}: {} entries, {} trials, {} ops\n", lane_device(plan, i),
                   plan.jobs > 1 ? fmt::format(" (lane {})", i) : "", all.entries.size() - entries,
                   all.trials - trials, all.ops - ops);
    for (const auto& [format, value] : plan.reports)
      if (format->appended_log && !append_new_records(log, lane_file(plan.lanes_dir, i, ".appended"), value, error))
        return false;
  }
  // The whole run's throughput: what --jobs is measured by (lanes on one
  // GPU time-slice it, so their kernel times overlap and do not add up).
  if (!plan.finished_before)
    reports::print("{} lanes: {} trials, {} ops in {:.1f} s ({:.0f} trials/s)\n", lane_count(plan), all.trials,
                   all.ops, wall_s, wall_s > 0 ? double(all.trials) / wall_s : 0.0);
  for (const auto& [name, e] : all.entries)
    if (e.failed()) worst = std::max(worst, 1);  // (a finished run's lanes did not run now to say it)
  // A lane that died left entries without a result: errors, never passes.
  for (const auto& line : fuzz::add_unfinished(all)) {
    reports::print("{}\n", line);
    worst = std::max(worst, 1);
  }
  size_t failed = 0;
  reports::ReportRequest documents;
  for (const auto& asked : plan.reports)
    if (!asked.first->appended_log) documents.push_back(asked);
  return documents.empty() || write_merged_reports(all, plan.header, documents, "", failed, error);
}

}  // namespace

bool prepare_lanes_folder(const LanePlan& plan, std::string& error) {
  if (!fuzz::ensure_dir(plan.lanes_dir, error)) return false;
  for (size_t i = 0; i < lane_count(plan); ++i)
    for (const char* ext : {".json", ".jsonl", ".json.lock", ".appended"}) {
      const std::string path = lane_file(plan.lanes_dir, i, ext);
      if (const std::string why = why_not_own_file(path); !why.empty()) {
        error = "lanes folder '" + plan.lanes_dir + "': '" + path + "' is " + why + ": not used";
        return false;
      }
    }
  return true;
}

int run_lanes(const LanePlan& plan, std::string& error) {
  if (!prepare_lanes_folder(plan, error)) return 2;
  const auto started = std::chrono::steady_clock::now();
  int worst = 0;
  if (plan.finished_before) {
    reports::print("the run finished before this --resume: its lanes' results, nothing run again\n");
  } else {
    const std::vector<pid_t> pids = start_lanes(plan, error);
    worst = wait_lanes(plan, pids, error);
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::string werr;
  if (!combine_lanes(plan, wall_s, worst, werr)) {
    error = werr;
    return 2;
  }
  std::fflush(stdout);
  if (g_lane_signal != 0) {
    // Reports written: die of the signal, as a lone run does.
    const int sig = g_lane_signal;
    std::fflush(nullptr);
    struct sigaction dfl{};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, nullptr);
    ::raise(sig);
    _exit(128 + sig);
  }
  return worst;
}

}  // namespace atomstress::cli
