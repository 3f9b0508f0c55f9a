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
#include <optional>

#include "harness/support/atomic_file.hpp"
#include "harness/support/safe_path.hpp"
#include "harness/support/timestamp.hpp"
#include "fuzz/at_once_ramp.hpp"
#include "fuzz/campaign.hpp"
#include "fuzz/corpus.hpp"
#include "fuzz/duration.hpp"
#include "fuzz/nightly.hpp"
#include "fuzz/shard.hpp"
#include "fuzz/state.hpp"
#include "harness/cli/check_plan.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/fuzz_lanes.hpp"
#include "harness/cli/options.hpp"
#include "harness/pipeline/concurrent_worker.hpp"
#include "harness/pipeline/shared_trials.hpp"
#include "harness/pipeline/trial_threads.hpp"
#include "reports/fuzz_text_printer.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "reports/terminal.hpp"

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
  std::string impl = "all", backend = "auto", time_text = "90s", corpus, state, shard;
  std::string devices, lane;  // --devices 0,1; --lane i/N (a lane of a --devices run)
  uint32_t lane_device = 0, lane_jobs = 1;
  uint32_t jobs = 1;  // --jobs: lanes per device
  uint32_t trials_at_once = 0;  // --trials-at-once (0: fuzz_trials_at_once decides)
  uint32_t slices_at_once = 0;  // --slices-at-once (0: fuzz_slices_at_once decides)
  uint32_t pair_busy_percent = 50;  // --pair-busy-at-most
  double time_s = 90, progress_s = 10;
  uint64_t seed = 1;
  uint32_t reruns = 2, rate_runs = 10;
  bool resume = false, skip_without_gpu = false;
  RunOptions run;
  ReportOptions reports{reports::kReportFuzz};
};

void describe_options(po::options_description& desc, FuzzOptions& o) {
  desc.add_options()("help,h", "this help")(
      "impl", non_empty(&o.impl)->default_value("all"),
      "entries: names or globs, comma-separated; 'all' (correct ones), 'buggy', 'atomics', 'algorithms'")(
      "time", new DurationValue(&o.time_s), "the whole campaign's budget: 90s, 45m, 8h (default 90s)");
  add_backend_options(desc, o.backend, o.skip_without_gpu);
  desc.add_options()(
      "seed", bounded<uint64_t>(&o.seed)->default_value(1), "campaign seed")(
      "reruns", bounded<uint32_t>(&o.reruns, 1, 1000)->default_value(2), "runs per spec evaluation (1 to 1000)")(
      "rate-runs", bounded<uint32_t>(&o.rate_runs, 1, kMaxRuns)->default_value(10),
      "reruns of a shrunk failure (and of a corpus case) to measure its failure rate");
  add_run_settings(desc, kCommandFuzz, o.run);
  desc.add_options()(
      "corpus", non_empty(&o.corpus), "directory of failure cases: replayed first, new failures added")(
      "state", non_empty(&o.state), "state file for --resume (default: CORPUS/fuzz-state[-i-of-N].json)")(
      "resume", po::bool_switch(&o.resume), "continue a killed run from its state file")(
      "shard", new ShardValue(&o.shard),
      "i/N: entry j of the name-sorted selection runs when j % N == i (default: from SLURM_ARRAY_TASK_ID/"
      "SLURM_ARRAY_TASK_COUNT or JOB_COMPLETION_INDEX/ATOMSTRESS_SHARD_COUNT)")(
      "devices", non_empty(&o.devices),
      "GPUs of this host to use, e.g. 0,1: one lane (a process and its trial worker) per GPU, each on its "
      "share of the entries; --junit/--report/--json combine them (default: the current device)")(
      "jobs", bounded<uint32_t>(&o.jobs, 1, kMaxLanesPerDevice)->default_value(1),
      "campaigns at once on each device, 1 to 16: that many lanes per device, each on its share of the entries, "
      "so one lane's host work (generation, expansion, judging, shrinking) overlaps another's kernels; the GPU "
      "time-slices them, so each lane's watchdogs are that many times longer")(
      "trials-at-once", bounded<uint32_t>(&o.trials_at_once, 0, fuzz::kMostTrialsAtOnce)->default_value(0),
      "trials at once in each lane's worker, 0 to 64, each on its own CUDA stream, so that one trial's host work "
      "(expansion, judging, the round trip) overlaps another's kernels; a trial that fails beside others runs "
      "again alone and that run is its verdict (0: automatic: on cuda 4, up to 12 after a round that left the GPU "
      "idle half its time or more; 1 on cpu, with --jobs lanes and with --isolate off)")(
      "slices-at-once", bounded<uint32_t>(&o.slices_at_once, 0, fuzz::kMostSlicesAtOnce)->default_value(0),
      "entries' slices at once in each lane, 1 to 3: with 2 or 3, the first round measures each entry alone in "
      "slices a quarter as long; from the second round on, up to that many entries whose slices left the GPU idle "
      "(see --pair-busy-at-most) run their slices at once, their trials on the one worker; a run alone (a "
      "failure's, its shrinking) holds the GPU alone (0: automatic: 3 on cuda where trials run at once, else 1)")(
      "pair-busy-at-most", bounded<uint32_t>(&o.pair_busy_percent, 0, 100)->default_value(50),
      "with --slices-at-once 2 or 3: the entries whose slices so far kept the GPU busy at most this percentage of "
      "their time run their slices at once, 0 to 100")(
      "lane", new ShardValue(&o.lane), "internal: lane i of N of a --devices or --jobs run")(
      "lane-device", bounded<uint32_t>(&o.lane_device, 0, 1023)->default_value(0), "internal: that lane's device")(
      "lane-jobs", bounded<uint32_t>(&o.lane_jobs, 1, kMaxLanesPerDevice)->default_value(1), "internal: lanes on that device")(
      "progress-s", seconds(&o.progress_s, kMaxBudgetSeconds, kShortestProgressSeconds),
      "seconds between progress lines when stdout is not a terminal, at least 0.05 (default 10)");
  add_report_options(desc, o.reports);
}

// SIGINT, SIGTERM, SIGHUP, SIGPIPE: the campaign ends at its next spec, writes its
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
  // SIGPIPE too: a closed pipe on stdout (`| head`, a dead `tee`) stops the
  // run like a signal, its reports and state written, instead of killing it.
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaction(sig, &sa, nullptr);
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

// Where a run keeps its state: --state, else in the corpus (one file per shard).
std::string state_path_of(const FuzzOptions& f, const fuzz::Shard& shard) {
  if (!f.state.empty()) return f.state;
  if (f.corpus.empty()) return std::string();
  const std::string suffix = shard.count > 1 ? fmt::format("-{}-of-{}", shard.index, shard.count) : "";
  return (fs::path(f.corpus) / ("fuzz-state" + suffix + ".json")).string();
}

// --resume: the options, shard and state of the run being resumed, from its
// state file (only where to find it may be given).  False with `error`.
// Whether two names are one folder (or, where one is gone, the same path).
bool same_folder(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec)) return true;
  const fs::path ca = fs::weakly_canonical(fs::absolute(a, ec), ec), cb = fs::weakly_canonical(fs::absolute(b, ec), ec);
  return ca == cb;
}

bool resume_run(FuzzOptions& o, po::variables_map& vm, fuzz::Shard& shard, fuzz::FuzzState& state,
                fuzz::RunLock& lock, const std::string& command_line, std::string& error) {
  for (const auto& [name, value] : vm)
    if (!value.defaulted() && name != "resume" && name != "state" && name != "corpus") {
      error = "--resume takes its options from the state file: drop --" + name;
      return false;
    }
  const std::string path = state_path_of(o, shard);
  if (path.empty()) {
    error = "--resume needs --corpus DIR or --state FILE";
    return false;
  }
  if (fs::exists(path) && !lock.acquire(path, lock_holder(command_line), error)) return false;
  auto loaded = fuzz::load_state(path, error);
  if (!loaded) return false;
  state = std::move(*loaded);
  const std::string where_state = o.state, given_corpus = o.corpus;
  o = FuzzOptions{};
  po::options_description again("atomstress fuzz");
  describe_options(again, o);
  try {
    vm = parse_command(state.args, again);
  } catch (const std::exception& e) {
    error = "malformed state file '" + path + "': its args: " + e.what();
    return false;
  }
  const std::string malformed = "malformed state file '" + path + "': ";
  if (o.resume) error = malformed + "its args hold --resume";
  // The budget and seed are the args' (a hand-edited value is refused, not run).
  else if (std::abs(state.budget_s - o.time_s) > 1e-6 * o.time_s)
    error = malformed + fmt::format("budget_s {:f} is not its args' --time ({:f} s)", state.budget_s, o.time_s);
  else if (state.seed != o.seed)
    error = malformed + fmt::format("seed {} is not its args' --seed ({})", state.seed, o.seed);
  // A corpus moved since (a restored backup): its state's args name the
  // old folder, and the run would write its cases and reports there.
  else if (!given_corpus.empty() && !o.corpus.empty() && !same_folder(given_corpus, o.corpus))
    error = fmt::format("the state in '{}' is of a run on corpus '{}', not '{}' (moved?): resume it where it ran, "
                        "or start a new run on this corpus", given_corpus, o.corpus, given_corpus);
  if (!error.empty()) return false;
  if (o.state.empty()) o.state = where_state.empty() ? path : where_state;
  std::string why;
  if (!o.shard.empty()) shard = *fuzz::parse_shard(o.shard, why);
  return true;
}

// Everything that can be refused is refused before anything runs: every
// output path (two naming one file would overwrite each other), the
// corpus (loaded into `corpus`), the lock.
bool prepare_outputs(const FuzzOptions& o, const fuzz::NightlyConfig& cfg, bool resumed,
                     const std::string& command_line, std::vector<fuzz::CorpusCase>& corpus, fuzz::RunLock& lock,
                     std::string& error) {
  const reports::ReportRequest asked = o.reports.request();
  std::vector<std::pair<std::string, std::string>> outputs = reports::report_files(asked);
  outputs.emplace_back("the state file", cfg.state_path);
  if (!check_distinct(outputs, {}, error) || !fuzz::check_no_output_is_a_case(outputs, o.corpus, error))
    return false;
  // The state file is atomstress's own: a link or a FIFO there is refused, never followed.
  if (const std::string kind = why_not_own_file(cfg.state_path); !cfg.state_path.empty() && !kind.empty()) {
    error = "the state file '" + cfg.state_path + "' is " + kind + ", not followed: remove it or name another";
    return false;
  }
  if (!o.corpus.empty()) {
    if (!fuzz::load_corpus(o.corpus, corpus, error) || !fuzz::ensure_dir(o.corpus, error)) return false;
    if (access(o.corpus.c_str(), W_OK | X_OK) != 0) {
      error = "--corpus '" + o.corpus + "': cannot write in it: " + std::strerror(errno);
      return false;
    }
  }
  if (!cfg.state_path.empty() && !fs::path(cfg.state_path).parent_path().empty() &&
      !fuzz::ensure_dir(fs::path(cfg.state_path).parent_path().string(), error))
    return false;
  for (const auto& [format, value] : asked)
    if (format->files(value).size() > 1 && !fuzz::ensure_dir(value, error)) return false;  // a report folder
  for (const auto& [option, path] : outputs)
    if (!path.empty() && !check_output(option, path, error)) return false;
  return resumed || cfg.state_path.empty() || lock.acquire(cfg.state_path, lock_holder(command_line), error);
}

// What the run's reports say of where it came from.
reports::RunHeader fuzz_header(const FuzzOptions& o, const fuzz::NightlyConfig& cfg, const std::string& rc_config,
                               const fuzz::FuzzState& state, const fuzz::Shard& shard, bool resumed,
                               const std::string& command_line) {
  reports::RunHeader h = run_header(command_line, cfg.backend);
  h.timestamp = utc_timestamp();
  h.version = ATOMSTRESS_VERSION;
  h.git_revision = ATOMSTRESS_GIT_REVISION;
  h.driver = cfg.backend == BackendKind::Cuda ? cuda_driver_version() : "";
  h.options = {{"impl", o.impl}, {"time_s", std::to_string(state.budget_s)}, {"backend", o.backend},
               {"seed", std::to_string(o.seed)}, {"reruns", std::to_string(o.reruns)},
               {"rate_runs", std::to_string(o.rate_runs)}, {"shard", fmt::format("{}/{}", shard.index, shard.count)},
               {"corpus", o.corpus}, {"resumed", resumed ? "true" : "false"}};
  for (const RunSetting& s : run_settings())
    if (s.commands & kCommandFuzz) h.options.emplace_back(s.key, setting_text(s, s.get(o.run)));
  if (!o.devices.empty()) h.options.emplace_back("devices", o.devices);
  if (o.jobs > 1) h.options.emplace_back("jobs", std::to_string(o.jobs));
  if (cfg.trials_at_once > 1) h.options.emplace_back("trials_at_once", std::to_string(cfg.trials_at_once));
  if (cfg.at_once_from != 0) h.options.emplace_back("trials_at_once_from", std::to_string(cfg.at_once_from));
  if (cfg.slices_at_once > 1) {
    h.options.emplace_back("slices_at_once", std::to_string(cfg.slices_at_once));
    h.options.emplace_back("pair_busy_at_most", std::to_string(o.pair_busy_percent));
  }
  if (!o.lane.empty()) h.options.emplace_back("lane", fmt::format("{} (device {})", o.lane, o.lane_device));
  h.options.emplace_back("rapidcheck", rc_config);
  for (const Entry* e : cfg.entries) h.entries.emplace_back(e->name);
  return h;
}

// fuzz --devices with several, or --jobs: `jobs` lanes per device, combined
// at the end.
int coordinate_lanes(const FuzzOptions& o, const fuzz::NightlyConfig& cfg, const fuzz::FuzzState& state,
                     const std::vector<unsigned>& devices, unsigned jobs, bool resumed,
                     const std::string& coordinator_state) {
  LanePlan plan;
  plan.devices = devices;
  plan.jobs = jobs;
  plan.args = state.args;
  plan.resume = resumed;
  plan.finished_before = resumed && state.finished;
  plan.reports = o.reports.request();
  plan.header = cfg.header;
  std::string error;
  bool temporary_lanes = false;
  if (!coordinator_state.empty()) {
    plan.lanes_dir = (fs::path(coordinator_state).parent_path() /
                      (fs::path(coordinator_state).stem().string() + "-lanes")).string();
    // What --resume needs to start the lanes again: the run's arguments.
    if (!resumed && !fuzz::save_state(coordinator_state, state, error)) return usage_error(error);
  } else {
    // No state to resume from: the lanes' files live in TMPDIR for this run
    // only, and go when it ends.
    std::error_code ec;
    const fs::path tmp = fs::temp_directory_path(ec);
    std::string tmpl = ((ec ? fs::path("/tmp") : tmp) / "atomstress-lanes-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr)
      return usage_error(fmt::format("cannot make a folder for the lanes in {}: {}", fs::path(tmpl).parent_path().string(),
                                     std::strerror(errno)));
    plan.lanes_dir = tmpl;
    temporary_lanes = true;
  }
  if (!prepare_lanes_folder(plan, error)) return usage_error(error);  // before a word is printed
  const bool cuda = cfg.backend == BackendKind::Cuda;
  const std::string where =
      jobs > 1 ? fmt::format("{} lanes, {} on each of {} {}", devices.size() * jobs, jobs, devices.size(),
                             cuda ? "GPUs" : "devices (cpu backend)")
               : fmt::format("{} {}", devices.size(), cuda ? "GPUs" : "lanes (cpu backend)");
  reports::print("fuzz on {}: {} entries over {}, {:.0f} s budget{}; lanes' state and logs in {}\n",
                 to_string(cfg.backend), cfg.entries.size(), where, state.budget_s, resumed ? ", resumed" : "",
                 plan.lanes_dir + (temporary_lanes ? " (removed when the run ends: no --corpus or --state)" : ""));
  std::fflush(stdout);
  const int status = run_lanes(plan, error);
  if (status != 2 && !coordinator_state.empty() && !state.finished) {  // (a signal never returns here)
    fuzz::FuzzState done = state;
    done.finished = true;
    if (!fuzz::save_state(coordinator_state, done, error)) return usage_error(error);
  }
  if (temporary_lanes) {
    std::error_code ec;
    fs::remove_all(plan.lanes_dir, ec);
  }
  return status == 2 ? usage_error(error) : status;
}

// --jobs: never more lanes than entries (a lane with nothing to fuzz would
// only cost a worker).
unsigned lanes_per_device(unsigned asked, size_t entries, size_t devices) {
  const unsigned jobs = unsigned(std::clamp<size_t>(entries / std::max<size_t>(devices, 1), 1, asked));
  if (jobs < asked)
    reports::print("fuzz: --jobs {} is more lanes than the {} entries fill on each device: {} lanes on each\n", asked,
                   entries, jobs);
  return jobs;
}

// --trials-at-once's automatic width on cuda: a round starts this many trials
// at once, and up to kAutoAtOnceMost after rounds that left the GPU idle
// (fuzz/at_once_ramp.hpp).  On the H200, slices of algorithms over fast
// atomics ran 1.22 times the trials at 12 as at 8 (16: 1.08 times more); a
// slice of contended CAS loops gains nothing and runs past its budget, so
// it stays at 4.
inline constexpr uint32_t kAutoAtOnceFrom = 4, kAutoAtOnceMost = 12;

// --slices-at-once's automatic count on cuda (docs/speed.md, "Three
// host-bound slices at once").
inline constexpr uint32_t kAutoSlicesAtOnce = 3;

// --trials-at-once: as asked (fixed), else on cuda for a lane alone on its
// GPU kAutoAtOnceFrom widening to kAutoAtOnceMost (a round's trials leave
// the GPU idle while the host expands and judges them; more at once overlap
// that with the others' kernels), else 1: on cpu each trial already runs
// --cpu-threads host threads, and lanes sharing a GPU (--jobs) already fill
// it.  `n` is the worker's width, `from` a round's first (0: n, fixed).
// Trials at once run in a worker: none with --isolate off.  False with
// `error` when asked for what cannot be.
bool fuzz_trials_at_once(const FuzzOptions& o, BackendKind backend, uint32_t& n, uint32_t& from, std::string& error) {
  from = 0;
  if (!o.run.policy.isolate) {
    if (o.trials_at_once > 1) error = "--trials-at-once runs trials in the trial worker: it needs --isolate on";
    n = 1;
    return error.empty();
  }
  const bool alone_on_gpu = backend == BackendKind::Cuda && o.jobs <= 1 && o.lane_jobs <= 1;
  if (o.trials_at_once != 0) {
    n = o.trials_at_once;
  } else if (alone_on_gpu) {
    n = kAutoAtOnceMost;
    from = kAutoAtOnceFrom;
  } else {
    n = 1;
  }
  return true;
}

// --slices-at-once: as asked, else kAutoSlicesAtOnce on cuda where a lane
// alone on its GPU runs trials at once (the slices' trials share its
// worker), else 1.  False with `error` for 2 or 3 without trials at once.
bool fuzz_slices_at_once(const FuzzOptions& o, BackendKind backend, uint32_t trials_at_once, uint32_t& n,
                         std::string& error) {
  if (o.slices_at_once > 1 && trials_at_once <= 1) {
    error = fmt::format("--slices-at-once {} runs the slices' trials at once in the trial worker: it needs "
                        "--trials-at-once 2 or more (and --isolate on)",
                        o.slices_at_once);
    return false;
  }
  const bool alone_on_gpu = backend == BackendKind::Cuda && o.jobs <= 1 && o.lane_jobs <= 1;
  n = o.slices_at_once != 0 ? o.slices_at_once : alone_on_gpu && trials_at_once > 1 ? kAutoSlicesAtOnce : 1;
  return true;
}

// What slices at once share (fuzz::SlicesAtOnce), kept for the run: one
// worker seen by each slice through a client of its own, the GPU's turns,
// and the other slices' threads.  Members end in reverse: those threads
// (and the worker's clients) first, the turns last.
struct SliceSharing {
  GpuTurns turns;
  SharedTrials shared;
  std::unique_ptr<ConcurrentTrials> runners[fuzz::kMostSlicesAtOnce];
  TrialThreads lane;
  fuzz::SlicesAtOnce view;
  SliceSharing(ConcurrentTrials& worker, size_t each, uint32_t slices)
      : shared(worker, turns), lane(slices - 1), view{.count = slices, .turns = &turns, .lane = &lane} {
    for (uint32_t i = 0; i < slices; ++i) {
      runners[i] = shared.client(each);
      view.runners[i] = runners[i].get();
    }
  }
};

// A resumed state's position (FuzzState::next) and round plan fit this
// run's entries and slices at once; else `error` (one line).
bool resumed_state_fits(const fuzz::NightlyConfig& cfg, const fuzz::FuzzState& state, std::string& error) {
  if (state.next > cfg.entries.size()) {
    error = fmt::format("malformed state file '{}': next {} is past its {} entries", cfg.state_path, state.next,
                        cfg.entries.size());
    return false;
  }
  return fuzz::plan_fits(state.plan, cfg.entries.size(), cfg.slices_at_once, cfg.state_path, error);
}

// The campaign itself, reported through the terminal and the report files.
int run_campaign_here(const FuzzOptions& o, fuzz::NightlyConfig& cfg, fuzz::FuzzState& state,
                      const std::vector<fuzz::CorpusCase>& corpus, const fuzz::Shard& shard, bool resumed,
                      const std::string& note) {
  std::string error;
  reports::Multiplex printers;
  printers.add(std::make_unique<reports::FuzzTextPrinter>());
  if (!reports::add_report_printers(o.reports.request(), printers, error)) return usage_error(error);
  if (!note.empty()) printers.note(note);
  printers.note(fmt::format("fuzz on {}: {} entries{}, {:.0f} s budget{}", to_string(cfg.backend), cfg.entries.size(),
                            shard.count > 1 ? fmt::format(" (shard {}/{})", shard.index, shard.count) : "",
                            state.budget_s, resumed ? fmt::format(", resumed at {} s", int(state.elapsed_s)) : ""));
  printers.begin(cfg.header);
  if (error = printers.error(); !error.empty()) return usage_error(error);  // not even the run record
  catch_stop_signals();
  cfg.stop_signal = &g_stop_signal;
  // Kept for the whole run: its worker (a CUDA context) starts once.
  std::optional<WorkerTrials> at_once;
  std::optional<SliceSharing> sharing;  // declared after the worker: ended before it
  if (cfg.trials_at_once > 1)
    cfg.at_once = &at_once.emplace(cfg.backend, cfg.run, 0, size_t(cfg.trials_at_once) * cfg.slices_at_once);
  if (cfg.slices_at_once > 1)
    cfg.slices = &sharing.emplace(*at_once, cfg.trials_at_once, cfg.slices_at_once).view;
  const int status = fuzz::run_nightly(cfg, state, corpus, printers, error);
  if (status == 2) {
    printers.finish();  // keep what was recorded
    return usage_error(error);
  }
  const bool written = printers.finish();
  if (g_stop_signal == SIGPIPE) {  // (the terminal's summary is lost with the pipe: not an error of the reports)
    reports::print_to(stderr, "atomstress: error: standard output was closed (a broken pipe): the run stopped; "
                              "its report files and state are written\n");
    die_of(SIGPIPE);
  }
  if (status == fuzz::kInterrupted) {
    if (!written) usage_error(printers.error());
    die_of(g_stop_signal);  // the signal's status, as if it had not been caught
  }
  return written ? status : usage_error(printers.error());
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

  fuzz::FuzzState state;
  fuzz::RunLock lock;  // held until the run ends: one run at a time per state file
  const bool resumed = o.resume;
  if (resumed && !resume_run(o, vm, shard, state, lock, command_line, error)) return usage_error(error);
  if (!resumed) {
    state.args = args;
    state.seed = o.seed;
    state.budget_s = o.time_s;
  }

  // --devices: parsed before anything touches CUDA.  One device: this
  // process (and its worker) sees only it; several: lanes (fuzz_lanes.hpp).
  std::vector<unsigned> devices;
  if (!o.devices.empty() && !parse_devices(o.devices, devices, why))
    return usage_error("--devices '" + o.devices + "' " + why);
  if (!o.lane.empty() && (!o.devices.empty() || o.jobs > 1))
    return usage_error("--lane is internal to --devices and --jobs");
  if (devices.size() == 1) setenv("CUDA_VISIBLE_DEVICES", visible_device(devices[0]).c_str(), 1);
  if (!o.lane.empty()) setvbuf(stdout, nullptr, _IOLBF, 0);  // lanes share the terminal: whole lines

  std::string note;
  if (skip_for_missing_gpu(o.backend, o.skip_without_gpu, note)) {
    reports::print("{}\n", note);
    return 77;
  }
  const BackendKind backend = resolve_backend(o.backend, note, error);
  if (!error.empty()) return usage_error(error);
  std::vector<const Entry*> selected;
  if (!select_entries(o.impl, "impl", selected, error)) return usage_error(error);
  std::string rc_config;  // RapidCheck's configuration, for the log (a bad RC_PARAMS: refused here)
  if (!fuzz::load_rapidcheck_configuration(rc_config, error)) return usage_error(error);

  fuzz::NightlyConfig cfg;
  cfg.entries = fuzz::shard_entries(selected, shard);
  if (!o.lane.empty()) {
    cfg.entries = fuzz::shard_entries(cfg.entries, *fuzz::parse_shard(o.lane, why));
    const auto lane = *fuzz::parse_shard(o.lane, why);
    // One lane per device: "[gpu 1] "; several (--jobs): "[gpu 1, lane 3] ".
    cfg.label = o.lane_jobs > 1 ? fmt::format("[{}{}, lane {}] ", backend == BackendKind::Cuda ? "gpu " : "device ",
                                              o.lane_device, lane.index)
                                : fmt::format("[{}{}] ", backend == BackendKind::Cuda ? "gpu " : "lane ", o.lane_device);
  }
  cfg.backend = backend;
  cfg.run = o.run;
  // A lane among several on its GPU: its watchdogs are that many times longer.
  if (backend == BackendKind::Cuda) cfg.run.policy.gpu_share = o.lane_jobs;
  cfg.reruns = o.reruns;
  cfg.rate_runs = o.rate_runs;
  if (!fuzz_trials_at_once(o, backend, cfg.trials_at_once, cfg.at_once_from, error) ||
      !fuzz_slices_at_once(o, backend, cfg.trials_at_once, cfg.slices_at_once, error))
    return usage_error(error);
  cfg.pair_busy_at_most = o.pair_busy_percent / 100.0;
  cfg.progress_s = o.progress_s;
  cfg.corpus_dir = o.corpus;
  cfg.state_path = state_path_of(o, shard);
  if (resumed && !resumed_state_fits(cfg, state, error)) return usage_error(error);
  std::vector<fuzz::CorpusCase> corpus;
  if (!prepare_outputs(o, cfg, resumed, command_line, corpus, lock, error)) return usage_error(error);
  cfg.header = fuzz_header(o, cfg, rc_config, state, shard, resumed, command_line);
  const unsigned jobs = lanes_per_device(o.jobs, cfg.entries.size(), devices.size());
  if (devices.size() > 1 || jobs > 1) {
    if (devices.empty()) devices = {0};  // the current device, as one lane would use
    return coordinate_lanes(o, cfg, state, devices, jobs, resumed, state_path_of(o, shard));
  }
  return run_campaign_here(o, cfg, state, corpus, shard, resumed, note);
}

}  // namespace atomstress::cli
