// atomstress fuzz: the options of a nightly campaign, its corpus, state,
// shard and reports; the campaign itself is fuzz/nightly.cpp's run_nightly.

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>

#include "fuzz/campaign.hpp"
#include "fuzz/corpus.hpp"
#include "fuzz/duration.hpp"
#include "fuzz/nightly.hpp"
#include "fuzz/record_log.hpp"
#include "fuzz/shard.hpp"
#include "fuzz/state.hpp"
#include "harness/cli/check_plan.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/fuzz_lanes.hpp"
#include "harness/cli/options.hpp"
#include "harness/support/atomic_file.hpp"
#include "harness/support/timestamp.hpp"
#include "reports/html_printer.hpp"
#include "reports/junit_printer.hpp"
#include "reports/markdown_printer.hpp"

#ifndef ATOMSTRESS_VERSION
#define ATOMSTRESS_VERSION "unknown"
#endif
#ifndef ATOMSTRESS_GIT_REVISION
#define ATOMSTRESS_GIT_REVISION ""
#endif

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace atomstress::cli {

namespace {

// --time: refused like every other bad value (one line naming the option).
class DurationValue : public po::typed_value<double> {
 public:
  explicit DurationValue(double* store) : po::typed_value<double>(store) {}
  void xparse(boost::any& out, const std::vector<std::string>& tokens) const override {
    po::validators::check_first_occurrence(out);
    const std::string& token = po::validators::get_single_string(tokens);
    std::string why;
    const auto v = fuzz::parse_duration(token, why);
    if (!v) throw bad_number(token, why);
    out = *v;
  }
};

// --shard i/N
class ShardValue : public po::typed_value<std::string> {
 public:
  explicit ShardValue(std::string* store) : po::typed_value<std::string>(store) {}
  void xparse(boost::any& out, const std::vector<std::string>& tokens) const override {
    po::validators::check_first_occurrence(out);
    const std::string& token = po::validators::get_single_string(tokens);
    std::string why;
    if (!fuzz::parse_shard(token, why)) throw bad_number(token, why);
    out = token;
  }
};

struct FuzzOptions {
  std::string impl = "all", backend = "auto", time_text = "90s", corpus, state, junit, report, json, shard;
  std::string devices, lane;  // --devices 0,1; --lane i/N (a lane of a --devices run)
  uint32_t lane_device = 0;
  double time_s = 90, progress_s = 10;
  uint64_t seed = 1;
  uint32_t reruns = 2, rate_runs = 10;
  bool resume = false, skip_without_gpu = false;
  RunOptions run;
};

void describe_options(po::options_description& desc, FuzzOptions& o) {
  desc.add_options()("help,h", "this help")(
      "impl", non_empty(&o.impl)->default_value("all"),
      "entries: names or globs, comma-separated; 'all' (correct ones), 'buggy', 'atomics', 'algorithms'")(
      "time", new DurationValue(&o.time_s), "the whole campaign's budget: 90s, 45m, 8h (default 90s)")(
      "backend", po::value<std::string>(&o.backend)->default_value("auto"), "cuda, cpu or auto")(
      "seed", bounded<uint64_t>(&o.seed)->default_value(1), "campaign seed")(
      "reruns", bounded<uint32_t>(&o.reruns, 1, 1000)->default_value(2), "runs per spec evaluation (1 to 1000)")(
      "rate-runs", bounded<uint32_t>(&o.rate_runs, 1, kMaxRuns)->default_value(10),
      "reruns of a shrunk failure (and of a corpus case) to measure its failure rate")(
      "budget", bounded<uint32_t>(&o.run.retry_budget)->default_value(1u << 20), "retries per op before a hang")(
      "watchdog-ms", bounded<uint64_t>(&o.run.watchdog_ms, 0, kMaxWatchdogMs)->default_value(0),
      "per-trial watchdog, at most 3600000 (0: automatic)")(
      "cpu-threads", bounded<uint32_t>(&o.run.cpu_threads, 1, kMaxCpuThreads)->default_value(4),
      "host threads of the cpu backend (1 to 256)")(
      "yield", bounded<uint32_t>(&o.run.yield_permille, 0, 1000)->default_value(20),
      "cpu backend: per mille chance of yielding at an interleaving point (0 to 1000)")(
      "isolate", isolation(&o.run.isolate), kIsolationHelp)(
      "checker", checker_kind(&o.run.checker), kCheckerHelp)(
      "corpus", non_empty(&o.corpus), "directory of failure cases: replayed first, new failures added")(
      "state", non_empty(&o.state), "state file for --resume (default: CORPUS/fuzz-state[-i-of-N].json)")(
      "resume", po::bool_switch(&o.resume), "continue a killed run from its state file")(
      "junit", non_empty(&o.junit), "write a JUnit XML file (one testcase per entry)")(
      "report", non_empty(&o.report), "write DIR/summary.md and DIR/index.html")(
      "json", non_empty(&o.json), "append one JSON line per record to FILE")(
      "shard", new ShardValue(&o.shard),
      "i/N: entry j of the name-sorted selection runs when j % N == i (default: from SLURM_ARRAY_TASK_ID/"
      "SLURM_ARRAY_TASK_COUNT or JOB_COMPLETION_INDEX/ATOMSTRESS_SHARD_COUNT)")(
      "devices", non_empty(&o.devices),
      "GPUs of this host to use, e.g. 0,1: one lane (a process and its trial worker) per GPU, each on its "
      "share of the entries; --junit/--report/--json combine them (default: the current device)")(
      "lane", new ShardValue(&o.lane), "internal: lane i of N of a --devices run")(
      "lane-device", bounded<uint32_t>(&o.lane_device, 0, 1023)->default_value(0), "internal: that lane's device")(
      "progress-s", seconds(&o.progress_s, kMaxBudgetSeconds),
      "seconds between progress lines when stdout is not a terminal (default 10)")(
      "skip-without-gpu", po::bool_switch(&o.skip_without_gpu),
      "exit 77 when no GPU is usable (with --backend cuda or auto)");
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> v;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = std::min(s.find(',', start), s.size());
    if (end > start) v.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return v;
}

// The selected entries, no repeats, or an error.
bool select_entries(const std::string& impl, std::vector<const Entry*>& out, std::string& error) {
  const auto names = split_commas(impl);
  if (names.empty()) {
    error = "--impl '" + impl + "' names no implementation";
    return false;
  }
  for (const auto& n : names) {
    const auto m = match_impls(n);
    if (m.empty()) {
      error = "unknown implementation '" + n + "' (see atomstress list)";
      return false;
    }
    for (const Entry* e : m)
      if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
  }
  return true;
}


// SIGINT, SIGTERM, SIGHUP: the campaign ends at its next spec, writes its
// reports from what it has, and the program then dies of the same signal.
volatile std::sig_atomic_t g_stop_signal = 0;
extern "C" void on_stop_signal(int sig) {
  if (g_stop_signal == 0) g_stop_signal = sig;
}
void catch_stop_signals() {
  struct sigaction sa{};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}
[[noreturn]] void die_of(int sig) {
  std::fflush(nullptr);
  struct sigaction sa{};
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
  _exit(128 + sig);
}

// Who holds a run's lock: the line a second run prints.
std::string lock_holder(const std::string& command_line) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  return "pid " + std::to_string(getpid()) + " on " + host + " since " + utc_timestamp() + ": " +
         command_line.substr(0, 300);
}

}  // namespace

int cmd_fuzz(const std::vector<std::string>& args, const std::string& command_line) {
  FuzzOptions o;
  po::options_description desc("atomstress fuzz");
  describe_options(desc, o);
  auto vm = parse_command(args, desc);
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  std::string error, why;
  fuzz::Shard shard = fuzz::shard_from_env(why);
  if (!why.empty()) return usage_error(why);
  if (!o.shard.empty()) shard = *fuzz::parse_shard(o.shard, why);
  auto state_path = [&](const FuzzOptions& f) {
    if (!f.state.empty()) return f.state;
    if (f.corpus.empty()) return std::string();
    const std::string suffix = shard.count > 1
        ? "-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count) : "";
    return (fs::path(f.corpus) / ("fuzz-state" + suffix + ".json")).string();
  };

  fuzz::FuzzState state;
  fuzz::RunLock lock;  // held until the run ends: one run at a time per state file
  const bool resumed = o.resume;
  if (resumed) {
    // The resumed run's options are the first run's: only where to find them may be given.
    for (const auto& [name, value] : vm)
      if (!value.defaulted() && name != "resume" && name != "state" && name != "corpus")
        return usage_error("--resume takes its options from the state file: drop --" + name);
    const std::string path = state_path(o);
    if (path.empty()) return usage_error("--resume needs --corpus DIR or --state FILE");
    if (fs::exists(path) && !lock.acquire(path, lock_holder(command_line), error)) return usage_error(error);
    auto loaded = fuzz::load_state(path, error);
    if (!loaded) return usage_error(error);
    state = std::move(*loaded);
    const std::string where_state = o.state;
    o = FuzzOptions{};
    po::options_description again("atomstress fuzz");
    describe_options(again, o);
    try {
      vm = parse_command(state.args, again);
    } catch (const std::exception& e) {
      return usage_error("malformed state file '" + path + "': its args: " + e.what());
    }
    if (o.resume) return usage_error("malformed state file '" + path + "': its args hold --resume");
    // The budget and seed are the args' (a hand-edited value is refused, not run).
    if (std::abs(state.budget_s - o.time_s) > 1e-6 * o.time_s)
      return usage_error("malformed state file '" + path + "': budget_s " + std::to_string(state.budget_s) +
                         " is not its args' --time (" + std::to_string(o.time_s) + " s)");
    if (state.seed != o.seed)
      return usage_error("malformed state file '" + path + "': seed " + std::to_string(state.seed) +
                         " is not its args' --seed (" + std::to_string(o.seed) + ")");
    if (o.state.empty()) o.state = where_state.empty() ? path : where_state;
    if (!o.shard.empty()) shard = *fuzz::parse_shard(o.shard, why);
  } else {
    state.args = args;
    state.seed = o.seed;
    state.budget_s = o.time_s;
  }

  // --devices: parsed before anything touches CUDA.  One device: this
  // process (and its worker) sees only it; several: lanes (fuzz_lanes.hpp).
  std::vector<unsigned> devices;
  if (!o.devices.empty() && !parse_devices(o.devices, devices, why))
    return usage_error("--devices '" + o.devices + "' " + why);
  if (!o.lane.empty() && !o.devices.empty()) return usage_error("--lane is internal to --devices");
  const bool coordinator = devices.size() > 1;
  if (devices.size() == 1) setenv("CUDA_VISIBLE_DEVICES", visible_device(devices[0]).c_str(), 1);
  if (!o.lane.empty()) setvbuf(stdout, nullptr, _IOLBF, 0);  // lanes share the terminal: whole lines

  std::string note;
  if (o.skip_without_gpu && (o.backend == "cuda" || o.backend == "auto") && !cuda_available(why)) {
    std::printf("no usable GPU (%s): skipped\n", why.c_str());
    return 77;
  }
  const BackendKind backend = resolve_backend(o.backend, note, error);
  if (!error.empty()) return usage_error(error);
  std::vector<const Entry*> selected;
  if (!select_entries(o.impl, selected, error)) return usage_error(error);

  fuzz::NightlyConfig cfg;
  cfg.entries = fuzz::shard_entries(selected, shard);
  if (!o.lane.empty()) {
    const fuzz::Shard lane = *fuzz::parse_shard(o.lane, why);
    cfg.entries = fuzz::shard_entries(cfg.entries, lane);
    cfg.label = "[" + std::string(backend == BackendKind::Cuda ? "gpu " : "lane ") + std::to_string(o.lane_device) + "] ";
  }
  cfg.backend = backend;
  cfg.run = o.run;
  cfg.reruns = o.reruns;
  cfg.rate_runs = o.rate_runs;
  cfg.progress_s = o.progress_s;
  cfg.corpus_dir = o.corpus;
  cfg.state_path = state_path(o);

  if (resumed && state.next > cfg.entries.size())
    return usage_error("malformed state file '" + cfg.state_path + "': next " + std::to_string(state.next) +
                       " is past its " + std::to_string(cfg.entries.size()) + " entries");

  // Everything that can be refused is refused before anything runs: every
  // output path (two naming one file would overwrite each other), the
  // corpus, the lock.
  const std::string summary = o.report.empty() ? "" : (fs::path(o.report) / "summary.md").string();
  const std::string index = o.report.empty() ? "" : (fs::path(o.report) / "index.html").string();
  const std::vector<std::pair<std::string, std::string>> outputs = {
      {"--json", o.json}, {"--junit", o.junit}, {"the state file", cfg.state_path},
      {"--report", summary}, {"--report", index}};
  if (!check_distinct(outputs, {}, error)) return usage_error(error);
  std::vector<fuzz::CorpusCase> corpus;
  if (!o.corpus.empty() && !fuzz::load_corpus(o.corpus, corpus, error)) return usage_error(error);
  if (!o.corpus.empty() && !fuzz::ensure_dir(o.corpus, error)) return usage_error(error);
  if (!o.corpus.empty() && access(o.corpus.c_str(), W_OK | X_OK) != 0)
    return usage_error("--corpus '" + o.corpus + "': cannot write in it: " + std::strerror(errno));
  if (!cfg.state_path.empty() && !fs::path(cfg.state_path).parent_path().empty() &&
      !fuzz::ensure_dir(fs::path(cfg.state_path).parent_path().string(), error))
    return usage_error(error);
  if (!o.report.empty() && !fuzz::ensure_dir(o.report, error)) return usage_error(error);
  for (const auto& [option, path] : outputs)
    if (!path.empty() && !check_output(option, path, error)) return usage_error(error);
  if (!resumed && !cfg.state_path.empty() && !lock.acquire(cfg.state_path, lock_holder(command_line), error))
    return usage_error(error);

  auto& h = cfg.header;
  h.timestamp = utc_timestamp();
  h.version = ATOMSTRESS_VERSION;
  h.git_revision = ATOMSTRESS_GIT_REVISION;
  h.backend = backend;
  h.device = backend == BackendKind::Cuda ? cuda_device_name() : "host";
  h.driver = backend == BackendKind::Cuda ? cuda_driver_version() : "";
  h.command_line = command_line;
  h.options = {{"impl", o.impl}, {"time_s", std::to_string(state.budget_s)}, {"backend", o.backend},
               {"seed", std::to_string(o.seed)}, {"reruns", std::to_string(o.reruns)},
               {"rate_runs", std::to_string(o.rate_runs)}, {"cpu_threads", std::to_string(o.run.cpu_threads)},
               {"watchdog_ms", std::to_string(o.run.watchdog_ms)}, {"budget", std::to_string(o.run.retry_budget)},
               {"shard", std::to_string(shard.index) + "/" + std::to_string(shard.count)},
               {"corpus", o.corpus}, {"resumed", resumed ? "true" : "false"},
               {"isolate", o.run.isolate ? "on" : "off"},
               {"checker", to_string(o.run.checker)}};
  if (!o.devices.empty()) h.options.emplace_back("devices", o.devices);
  if (!o.lane.empty()) h.options.emplace_back("lane", o.lane + " (device " + std::to_string(o.lane_device) + ")");
  // RapidCheck's "Using configuration" line: in the log, not on stderr
  // (unless RC_PARAMS asked RapidCheck for something).
  const std::string rc_config = fuzz::load_rapidcheck_configuration();
  if (std::getenv("RC_PARAMS") != nullptr) std::fprintf(stderr, "Using configuration: %s\n", rc_config.c_str());
  h.options.emplace_back("rapidcheck", rc_config);
  for (const Entry* e : cfg.entries) h.entries.emplace_back(e->name);

  if (coordinator) {
    LanePlan plan;
    plan.devices = devices;
    plan.args = state.args;
    plan.resume = resumed;
    plan.junit = o.junit;
    plan.report = o.report;
    plan.json = o.json;
    plan.header = h;
    const std::string coordinator_state = state_path(o);
    if (!coordinator_state.empty()) {
      plan.lanes_dir = (fs::path(coordinator_state).parent_path() /
                        (fs::path(coordinator_state).stem().string() + "-lanes")).string();
      // What --resume needs to start the lanes again: the run's arguments.
      if (!resumed && !fuzz::save_state(coordinator_state, state, error)) return usage_error(error);
    } else {
      char tmpl[] = "/tmp/atomstress-lanes-XXXXXX";
      if (mkdtemp(tmpl) == nullptr) return usage_error("cannot make a folder for the lanes in /tmp");
      plan.lanes_dir = tmpl;
    }
    std::printf("fuzz on %s: %zu entries over %zu %s%s, %.0f s budget%s; lanes' state and logs in %s\n",
                to_string(backend), cfg.entries.size(), devices.size(),
                backend == BackendKind::Cuda ? "GPUs" : "lanes", backend == BackendKind::Cuda ? "" : " (cpu backend)",
                state.budget_s, resumed ? ", resumed" : "", plan.lanes_dir.c_str());
    std::fflush(stdout);
    const int status = run_lanes(plan, error);
    if (status == 2) return usage_error(error);
    return status;
  }

  reports::Multiplex printers;
  if (!o.json.empty()) {
    auto log = std::make_unique<fuzz::RecordLog>(o.json);
    if (!log->opened()) return usage_error("cannot open '" + o.json + "' for appending");
    printers.add(std::move(log));
  }
  if (!o.junit.empty()) printers.add(std::make_unique<reports::JunitPrinter>(o.junit));
  if (!o.report.empty()) {
    printers.add(std::make_unique<reports::MarkdownPrinter>((fs::path(o.report) / "summary.md").string()));
    printers.add(std::make_unique<reports::HtmlPrinter>((fs::path(o.report) / "index.html").string()));
  }
  if (!note.empty()) std::printf("%s\n", note.c_str());
  std::printf("fuzz on %s: %zu entries%s, %.0f s budget%s\n", to_string(backend), cfg.entries.size(),
              shard.count > 1 ? (" (shard " + std::to_string(shard.index) + "/" + std::to_string(shard.count) + ")").c_str() : "",
              state.budget_s, resumed ? (", resumed at " + std::to_string(int(state.elapsed_s)) + " s").c_str() : "");
  std::fflush(stdout);
  printers.fuzz_started(h);
  if (error = printers.error(); !error.empty()) return usage_error(error);  // not even the run record
  catch_stop_signals();
  cfg.stop_signal = &g_stop_signal;
  const int status = fuzz::run_nightly(cfg, state, corpus, printers, error);
  if (status == 2) {
    printers.finish();  // keep what was recorded
    return usage_error(error);
  }
  const bool written = printers.finish();
  if (status == fuzz::kInterrupted) {
    if (!written) usage_error(printers.error());
    die_of(g_stop_signal);  // the signal's status, as if it had not been caught
  }
  if (!written) return usage_error(printers.error());
  return status;
}

}  // namespace atomstress::cli
