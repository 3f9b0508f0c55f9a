#include "harness/pipeline/isolated.hpp"

#include <fmt/format.h>

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "harness/pipeline/footprint.hpp"
#include "harness/pipeline/run_packed.hpp"
#include "harness/pipeline/sanitizer.hpp"
#include "harness/pipeline/spare_workers.hpp"
#include "harness/pipeline/trial_json.hpp"
#include "harness/pipeline/worker_process.hpp"
#include "harness/registry/registry.hpp"

namespace atomstress {

namespace {

using nlohmann::json;
using Clock = WorkerProcess::Clock;

// A worker's start-up (the process, the registry, a CUDA context) must end
// within this.
constexpr auto kStartLimit = std::chrono::seconds(120);
// Under a sanitizer, the worker's exit: the tool writes its summary then.
constexpr auto kSanitizedExitLimit = std::chrono::seconds(60);

// What is known of a trial before any answer: its spec, options and backend.
Outcome unanswered(const TrialSpec& spec, BackendKind backend, const RunOptions& opt) {
  Outcome out;
  out.spec = spec;
  out.knobs = opt.knobs;
  out.backend = backend;
  out.ops = spec.ops();
  return out;
}

Outcome with_finding(Outcome out, Verdict v, FindingKind kind, std::string why) {
  out.verdict = v;
  out.finding = make_finding(kind, std::move(why));
  return out;
}

// " Its last lines on stderr: ..." when it said anything.
std::string last_words(const WorkerProcess& w) {
  const std::string tail = w.stderr_tail();
  return tail.empty() ? "" : "; its last lines on stderr: " + tail;
}

// A deadline's wall time that did not count (counted_wait.hpp), and the last words.
std::string after_deadline(const WorkerProcess& w) {
  const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(w.waited_for_core()).count();
  return (waited > 0 ? fmt::format(" (after {} ms more that it spent waiting for a core, not counted)", waited)
                     : std::string()) +
         last_words(w);
}

// The worker's next line, past any line of compute-sanitizer's own (its
// "========= " lines belong in its log file; should a version print one on
// the application's output, it is no reply).
WorkerProcess::Read receive_reply(WorkerProcess& worker, std::string& line, Clock::time_point deadline) {
  for (;;) {
    const auto got = worker.receive(line, deadline);
    if (got != WorkerProcess::Read::Line || line.rfind("=========", 0) != 0) return got;
  }
}

// The worker's answer: its next line past compute-sanitizer's own and past
// a kernel case's phase notes, the last of which lands in `phase`.  The
// wait ends at `deadline`'s bound: the whole deadline from `started`, or,
// while a launch runs, its own bound from the note (never past the whole).
WorkerProcess::Read receive_answer(WorkerProcess& worker, std::string& line, Clock::time_point started,
                                   const TrialDeadline& deadline, std::optional<kernel::PhaseNote>& phase) {
  const Clock::time_point last = started + std::chrono::milliseconds(deadline.total_ms());
  Clock::time_point until = last;
  for (;;) {
    const auto got = receive_reply(worker, line, until);
    kernel::PhaseNote note;
    std::string error;
    // to_json's keys come sorted: a note's line starts with its "case_phase".
    if (got != WorkerProcess::Read::Line || line.rfind("{\"case_phase\"", 0) != 0 ||
        !phase_from_json(json::parse(line, nullptr, false), note, error))
      return got;
    phase = std::move(note);
    until = std::min(last, Clock::now() + std::chrono::milliseconds(deadline.bound_ms(phase)));
  }
}

std::string& worker_program_setting() {
  static std::string program = "/proc/self/exe";
  return program;
}

// Awaits a started worker's ready line; false with `error` (the worker
// killed) when it is not ready.
bool await_ready(WorkerProcess& worker, std::string& error) {
  std::string line;
  switch (receive_reply(worker, line, Clock::now() + kStartLimit)) {
    case WorkerProcess::Read::Line: {
      const json j = json::parse(line, nullptr, false);
      if (j.is_object() && j.value("ready", false)) return true;
      error = j.is_object() && j.contains("error") ? j["error"].dump() : "not an atomstress worker: '" + line + "'";
      break;
    }
    case WorkerProcess::Read::Died: error = "it " + worker.death() + last_words(worker); return false;
    case WorkerProcess::Read::Woken:  // never: no wake descriptor was given
    case WorkerProcess::Read::TimedOut:
      error = fmt::format("it was not ready within {} s", std::chrono::duration_cast<std::chrono::seconds>(kStartLimit).count());
      break;
  }
  worker.kill();
  return false;
}

// The worker's command line.  Under the sanitizer the worker's parent is
// the tool, not us: no --parent check (it still dies with the tool:
// PR_SET_PDEATHSIG).
std::vector<std::string> worker_command(BackendKind backend, size_t jobs, bool parent_check = true) {
  std::vector<std::string> argv = {"atomstress", "worker", "--backend", to_string(backend)};
  if (parent_check) argv.insert(argv.end(), {"--parent", std::to_string(getpid())});
  if (jobs > 1) argv.insert(argv.end(), {"--jobs", std::to_string(jobs)});
  return argv;
}

}  // namespace

bool start_worker(WorkerProcess& worker, BackendKind backend, size_t jobs, std::string& error,
                  const SanitizedStart* sanitized) {
  // A replacement for a worker that ended (spare_workers.hpp: CUDA only,
  // where a start is a context).
  const bool replacing = !worker.death().empty();
  std::vector<std::string> argv = worker_command(backend, jobs, sanitized == nullptr);
  std::string program = worker_program();
  if (sanitized) {
    std::error_code ec;
    // /proc/self/exe in the tool's process would be the tool itself.
    const auto real = std::filesystem::canonical(program, ec);
    if (!ec) program = real.string();
    argv[0] = program;
    argv = sanitizer::command_line(sanitized->tool_path, sanitized->tool, sanitized->log_file, argv);
    program = sanitized->tool_path;
  } else if (backend == BackendKind::Cuda && spare_workers::take(program, argv, replacing, worker)) {
    std::string spare_error;
    if (await_ready(worker, spare_error)) return true;
    // A spare that died while it waited: a fresh one says why, if it fails too.
  }
  if (!worker.start(program, argv, error)) return false;
  // It says it is ready once its start-up is done.
  return await_ready(worker, error);
}

namespace {

// Reports a sequence's outcomes in order, noting whether one failed.
struct SequenceReport {
  const std::function<void(Outcome&&)>& each;
  SequenceStats& stats;
  bool failed = false;
  void operator()(Outcome&& o) {
    failed = failed || o.verdict != Verdict::Pass;
    ++stats.reported;
    each(std::move(o));
  }
};

// Where one worker's sequence stands: what it has said so far.
struct WorkerProgress {
  size_t judged = 0, ran = 0;     // outcomes received; runs ended
  std::optional<size_t> running;  // the run it said it started last
  std::optional<kernel::PhaseNote> phase;  // where that run's kernel case is (none: not a kernel entry)
  bool in_run() const { return running && *running >= ran; }
};

// One worker at a time, started on first use and after each death.
class Supervisor {
 public:
  // A worker killed by a signal we did not send and the code under test
  // does not raise (SIGKILL, SIGTERM, SIGINT, SIGHUP, ...: the OOM killer,
  // an operator, not the code under test's doing), or one stopped past its
  // deadline (SIGSTOP), runs the trial again once
  // (`retries`); killed again, the verdict is Error (infrastructure), never
  // the entry's Crash.
  Outcome run(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, size_t hotspots,
              int retries = 1);
  std::vector<std::optional<Outcome>> run_pack(std::span<const TrialSpec> specs, BackendKind backend,
                                               const RunOptions& opt, uint64_t seed, std::vector<LaunchSpan>* spans);
  SequenceStats run_sequence(std::span<const TrialSpec> specs, const SequenceConfig& cfg,
                             const std::function<void(Outcome&&)>& each);
  // Starts the worker without waiting for its ready line (prepare_isolated_worker).
  void prepare(BackendKind backend);

 private:
  // The verdict of a trial whose worker died under it (Crash).
  Outcome died(Outcome out, pid_t pid) const;
  // The worker died of a signal the supervisor did not send (not a fault).
  bool killed_from_outside() const;
  void warn_killed(pid_t pid) const;
  std::string taken_how() const;
  Outcome infrastructure(Outcome out, pid_t pid) const;
  bool stopped_ = false;  // the last worker lost was stopped from outside, then killed
  // One request of a sequence: the outcomes of `specs` from its first, as
  // far as one worker takes them.  Returns how many specs it settled.
  size_t sequence_part(std::span<const TrialSpec> specs, const SequenceConfig& cfg,
                       const std::function<void(Outcome&&)>& each, SequenceStats& stats);
  // The worker gave no line in time (killed) or died during a sequence:
  // settles the trials from the first unjudged to the culprit.  Returns how
  // many specs the part settled.
  size_t settle_lost_worker(std::span<const TrialSpec> specs, const SequenceConfig& cfg, WorkerProcess::Read got,
                            const WorkerProgress& progress, pid_t pid, SequenceReport& report);
  // One line of the worker's during a sequence.  Returns how many specs the
  // part settled when the line ends it.
  std::optional<size_t> take_sequence_line(std::span<const TrialSpec> specs, const SequenceConfig& cfg,
                                           const std::string& line_in, WorkerProgress& progress,
                                           SequenceReport& report, std::string& error);
  // --sanitize: the trial alone in a fresh worker under compute-sanitizer,
  // stopped after it so that the tool's report is whole; the report folded
  // into the outcome (sanitizer.hpp).
  Outcome run_sanitized(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, size_t hotspots);
  bool ensure_started(BackendKind backend, std::string& error);
  // Sends a request line, starting (or, once, restarting) the worker.
  bool deliver(const std::string& line, BackendKind backend, std::string& error);

  WorkerProcess worker_;
  BackendKind backend_ = BackendKind::Cpu;
  bool unready_ = false;  // prepared: its ready line not read yet
};

void Supervisor::prepare(BackendKind backend) {
  if (worker_.running()) return;
  // start_worker's first half (a fresh process, unsanitized): its ready line
  // is read at the first trial.  A start that fails here is tried again,
  // and says why, then.
  std::string error;
  unready_ = worker_.start(worker_program(), worker_command(backend, 1), error);
  backend_ = backend;
}

bool Supervisor::ensure_started(BackendKind backend, std::string& error) {
  if (std::exchange(unready_, false)) {
    // Prepared: its start-up went on beside whatever ran since.
    if (worker_.running() && backend_ == backend && await_ready(worker_, error)) return true;
    worker_.kill();
  }
  if (worker_.running() && backend_ == backend) return true;
  if (!start_worker(worker_, backend, 1, error)) return false;
  backend_ = backend;
  return true;
}

Outcome Supervisor::run(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, size_t hotspots,
                        int retries) {
  if (opt.policy.sanitize != SanitizeTool::None) return run_sanitized(spec, backend, opt, hotspots);
  Outcome out = unanswered(spec, backend, opt);
  TrialRequest request{spec, backend, opt, hotspots};
  request.run.policy.isolate = false;  // the worker runs it in its own process
  const std::string line_out = to_json(request).dump();
  std::string error;
  if (!deliver(line_out, backend, error))
    return with_finding(std::move(out), Verdict::Error, FindingKind::BackendError, error);
  const TrialDeadline deadline = trial_deadline(spec, opt);
  const pid_t pid = worker_.pid();
  std::string line_in;
  std::optional<kernel::PhaseNote> phase;
  switch (receive_answer(worker_, line_in, Clock::now(), deadline, phase)) {
    case WorkerProcess::Read::Woken:  // never: no wake descriptor was given
    case WorkerProcess::Read::TimedOut:
      if (worker_.stopped()) {  // stopped from outside (SIGSTOP): not the trial's hang
        worker_.kill();
        stopped_ = true;
        if (retries > 0) {
          warn_killed(pid);
          return run(spec, backend, opt, hotspots, retries - 1);
        }
        return infrastructure(std::move(out), pid);
      }
      worker_.kill();
      return deadline_passed(std::move(out), deadline, phase, pid, after_deadline(worker_));
    case WorkerProcess::Read::Died:
      stopped_ = false;
      if (killed_from_outside()) {
        if (retries > 0) {
          warn_killed(pid);
          return run(spec, backend, opt, hotspots, retries - 1);
        }
        return infrastructure(std::move(out), pid);
      }
      return died(std::move(out), pid);
    case WorkerProcess::Read::Line: break;
  }
  const json j = json::parse(line_in, nullptr, false);
  Outcome answer;
  if (!j.is_object() || j.contains("error") || !from_json(j, answer, error)) {
    worker_.kill();
    const std::string why = j.is_object() && j.contains("error") ? j["error"].dump()
                            : error.empty()                      ? "not JSON"
                                                                 : error;
    return with_finding(std::move(out), Verdict::Error, FindingKind::BackendError,
                        "the trial worker's answer was refused (" + why + "): '" + line_in.substr(0, 200) + "'");
  }
  // It exits after a trial that lost its CUDA context: let it, reaped later.
  if (j.value("exits", false)) spare_workers::retire(worker_, false);
  return answer;
}

namespace {

// A log file of its own for each sanitized worker.
std::string sanitizer_log_path() {
  static uint64_t n = 0;
  std::error_code ec;
  auto dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  return (dir / fmt::format("atomstress-sanitize-{}-{}.log", int(getpid()), n++)).string();
}

bool read_whole(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  text = s.str();
  return true;
}

// The exit status in WorkerProcess::death()'s words, when it exited.
std::optional<int> exit_status_of(const std::string& death) {
  const std::string prefix = "exited with status ";
  if (death.rfind(prefix, 0) != 0) return std::nullopt;
  return std::atoi(death.c_str() + prefix.size());
}

}  // namespace

Outcome Supervisor::run_sanitized(const TrialSpec& spec, BackendKind backend, const RunOptions& opt,
                                  size_t hotspots) {
  Outcome out = unanswered(spec, backend, opt);
  std::string error;
  SanitizedStart start{sanitizer::locate(error), opt.policy.sanitize, sanitizer_log_path()};
  if (start.tool_path.empty()) return with_finding(std::move(out), Verdict::Error, FindingKind::BackendError, error);
  worker_.stop(std::chrono::seconds(10));  // a plain worker of earlier trials
  if (!start_worker(worker_, backend, 1, error, &start))
    return with_finding(std::move(out), Verdict::Error, FindingKind::BackendError,
                        "cannot start a trial worker under compute-sanitizer: " + error);
  TrialRequest request{spec, backend, opt, hotspots};
  request.run.policy.isolate = false;
  const TrialDeadline deadline = trial_deadline(spec, opt);
  const pid_t pid = worker_.pid();
  std::string line_in;
  std::optional<kernel::PhaseNote> phase;
  const auto got = worker_.send(to_json(request).dump())
                       ? receive_answer(worker_, line_in, Clock::now(), deadline, phase)
                       : WorkerProcess::Read::Died;
  const json j = got == WorkerProcess::Read::Line ? json::parse(line_in, nullptr, false) : json();
  if (got == WorkerProcess::Read::TimedOut) {
    worker_.kill();
    out = deadline_passed(std::move(out), deadline, phase, pid, after_deadline(worker_));
  } else if (got == WorkerProcess::Read::Died) {
    stopped_ = false;
    out = killed_from_outside() ? infrastructure(std::move(out), pid) : died(std::move(out), pid);
  } else if (!j.is_object() || j.contains("error") || !from_json(j, out, error)) {
    worker_.kill();
    return with_finding(std::move(out), Verdict::Error, FindingKind::BackendError,
                        "the sanitized trial worker's answer was refused: '" + line_in.substr(0, 200) + "'");
  }
  // End of its input: the worker exits, the tool writes its summary and exits.
  worker_.stop(std::chrono::duration_cast<std::chrono::milliseconds>(kSanitizedExitLimit));
  sanitizer::Run run;
  run.tool = opt.policy.sanitize;
  run.exit_status = exit_status_of(worker_.death());
  std::string text;
  run.log_read = read_whole(start.log_file, text);
  if (!run.log_read) run.log_error = "its log " + start.log_file + " was not written (" + worker_.death() + ")";
  std::error_code ec;
  std::filesystem::remove(start.log_file, ec);
  sanitizer::fold(out, run, sanitizer::parse_log(text));
  return out;
}

bool Supervisor::killed_from_outside() const { return worker_.died_of_outside_signal(); }

// How the worker was taken from the trial: "stopped (SIGSTOP)" or "killed by signal 15 (SIGTERM)".
std::string Supervisor::taken_how() const {
  if (stopped_) return "stopped (SIGSTOP) past its deadline";
  const char* abbrev = worker_.death_signal() ? sigabbrev_np(worker_.death_signal()) : nullptr;
  return abbrev ? std::string("killed by SIG") + abbrev : worker_.death();
}

void Supervisor::warn_killed(pid_t pid) const {
  std::fputs(fmt::format("atomstress: warning: the trial worker (pid {}) was {} from outside (the OOM "
                         "killer, an operator), not by the code under test: the trial runs again\n",
                         int(pid), taken_how())
                 .c_str(),
             stderr);
}

Outcome Supervisor::infrastructure(Outcome out, pid_t pid) const {
  return with_finding(std::move(out), Verdict::Error, FindingKind::BackendError,
                      "infrastructure error, not the code under test: the worker running the trial (pid " +
                          std::to_string(pid) + ") was " + taken_how() +
                          " from outside (the OOM killer, an operator), also when the trial ran again" +
                          last_words(worker_));
}

Outcome Supervisor::died(Outcome out, pid_t pid) const {
  return with_finding(std::move(out), Verdict::Crash, FindingKind::Crash,
                      "the worker running the trial (pid " + std::to_string(pid) + ") died: " + worker_.death() +
                          last_words(worker_));
}

// The worker runs the sequence and says where it is: {"running": i} and
// {"ran": i} around trial i's run, each outcome in order, then {"done"}.
// So a worker that hangs or dies is known to have done it in trial i's run
// (a run had started and not ended) or in the judging of the first trial
// still unjudged.  That trial gets the Hang or Crash; a trial before it
// whose judging was cut short runs again alone; the rest go to a fresh
// worker.
// How long to wait for the worker's next line: in a run, its watchdog and
// grace, and the judging it overlaps; otherwise the grace of the judging
// awaited.
uint64_t sequence_wait_ms(std::span<const TrialSpec> specs, const SequenceConfig& cfg, const WorkerProgress& p) {
  uint64_t wait_ms = p.judged < specs.size() ? isolation_grace_ms(specs[p.judged].ops()) : 2000;
  if (p.in_run()) {
    const TrialDeadline d = trial_deadline(specs[*p.running], cfg.run);
    // (bound_ms: a launch's own bound from its note, the line waited after.)
    wait_ms += d.bound_ms(p.phase) - d.grace_ms + (*p.running != p.judged ? d.grace_ms : 0);
  }
  return wait_ms;
}

size_t Supervisor::sequence_part(std::span<const TrialSpec> specs, const SequenceConfig& cfg,
                                 const std::function<void(Outcome&&)>& each, SequenceStats& stats) {
  SequenceReport report{each, stats};
  SequenceRequest request{{specs.begin(), specs.end()}, cfg.backend, cfg.run, cfg.hotspots, cfg.until_failure,
                          cfg.pipelined};
  request.run.policy.isolate = false;  // the worker runs them in its own process
  std::string error, line_in;
  if (!deliver(to_json(request).dump(), cfg.backend, error)) {
    report(with_finding(unanswered(specs[0], cfg.backend, cfg.run), Verdict::Error, FindingKind::BackendError, error));
    return 1;
  }
  const pid_t pid = worker_.pid();
  WorkerProgress progress;
  for (;;) {
    const uint64_t wait_ms = sequence_wait_ms(specs, cfg, progress);
    const auto got = worker_.receive(line_in, Clock::now() + std::chrono::milliseconds(wait_ms));
    if (got != WorkerProcess::Read::Line) return settle_lost_worker(specs, cfg, got, progress, pid, report);
    if (const auto settled = take_sequence_line(specs, cfg, line_in, progress, report, error)) return *settled;
  }
}

size_t Supervisor::settle_lost_worker(std::span<const TrialSpec> specs, const SequenceConfig& cfg,
                                      WorkerProcess::Read got, const WorkerProgress& progress, pid_t pid,
                                      SequenceReport& report) {
  const bool stopped = got == WorkerProcess::Read::TimedOut && worker_.stopped();
  if (got == WorkerProcess::Read::TimedOut) worker_.kill();
  stopped_ = stopped;
  const size_t judged = progress.judged;
  const size_t culprit = progress.in_run() ? *progress.running : judged;
  if (culprit >= specs.size()) return culprit;  // it died after its last outcome
  // Killed from outside (a signal we did not send), or stopped: not the trial's
  // doing.  The trials not yet judged run again alone, the culprit once
  // more at most.
  if ((got == WorkerProcess::Read::Died && killed_from_outside()) || stopped) {
    warn_killed(pid);
    for (size_t i = judged; i <= culprit; ++i) {
      report(run(specs[i], cfg.backend, cfg.run, cfg.hotspots, i == culprit ? 0 : 1));
      if (cfg.until_failure && report.failed) return i + 1;
    }
    return culprit + 1;
  }
  // Its verdict now, while the worker's death and last words are known.
  const Outcome blank = unanswered(specs[culprit], cfg.backend, cfg.run);
  const std::optional<kernel::PhaseNote> phase = progress.in_run() ? progress.phase : std::nullopt;
  Outcome verdict = got == WorkerProcess::Read::TimedOut
                        ? deadline_passed(blank, trial_deadline(specs[culprit], cfg.run), phase, pid, after_deadline(worker_))
                        : died(blank, pid);
  for (size_t i = judged; i < culprit; ++i) {
    report(run(specs[i], cfg.backend, cfg.run, cfg.hotspots));
    if (cfg.until_failure && report.failed) return i + 1;
  }
  report(std::move(verdict));
  return culprit + 1;
}

std::optional<size_t> Supervisor::take_sequence_line(std::span<const TrialSpec> specs, const SequenceConfig& cfg,
                                                     const std::string& line_in, WorkerProgress& progress,
                                                     SequenceReport& report, std::string& error) {
  const json j = json::parse(line_in, nullptr, false);
  Outcome o;
  auto index = [&](const char* key) -> std::optional<size_t> {
    if (!j.is_object() || !j.contains(key) || !j[key].is_number_unsigned()) return std::nullopt;
    const size_t i = j[key].get<size_t>();
    return i < specs.size() ? std::optional<size_t>(i) : std::nullopt;
  };
  kernel::PhaseNote note;
  if (const auto i = index("running")) {
    progress.running = *i;
    progress.phase.reset();
  } else if (j.is_object() && j.contains("case_phase") && phase_from_json(j, note, error)) {
    progress.phase = std::move(note);
  } else if (const auto i = index("ran")) {
    progress.ran = *i + 1;
  } else if (j.is_object() && j.contains("outcome") && progress.judged < specs.size() &&
             from_json(j["outcome"], o, error)) {
    ++progress.judged;
    report(std::move(o));
  } else if (j.is_object() && j.contains("done") && !j.contains("error")) {
    report.stats.overlapped_ms += j.value("overlapped_ms", 0.0);
    if (j.value("exits", false)) spare_workers::retire(worker_, false);
    if (progress.judged == 0 && !(cfg.until_failure && report.failed)) {  // it ran nothing: no worker will
      report(with_finding(unanswered(specs[0], cfg.backend, cfg.run), Verdict::Error, FindingKind::BackendError,
                          "the trial worker ran no trial of the sequence"));
      return 1;
    }
    return progress.judged;
  } else {
    worker_.kill();
    const std::string why = j.is_object() && j.contains("error") ? j["error"].dump()
                            : error.empty()                      ? "not JSON"
                                                                 : error;
    const size_t last = std::min(progress.judged, specs.size() - 1);
    report(with_finding(unanswered(specs[last], cfg.backend, cfg.run), Verdict::Error, FindingKind::BackendError,
                        "the trial worker's answer was refused (" + why + "): '" + line_in.substr(0, 200) + "'"));
    return last + 1;
  }
  return std::nullopt;
}

SequenceStats Supervisor::run_sequence(std::span<const TrialSpec> specs, const SequenceConfig& cfg,
                                       const std::function<void(Outcome&&)>& each) {
  SequenceStats stats;
  bool failed = false;
  const auto note = [&](Outcome&& o) {
    failed = failed || o.verdict != Verdict::Pass;
    each(std::move(o));
  };
  if (cfg.run.policy.sanitize != SanitizeTool::None) {  // one sanitized worker per trial
    for (size_t i = 0; i < specs.size() && !(cfg.until_failure && failed); ++i) {
      ++stats.reported;
      note(run(specs[i], cfg.backend, cfg.run, cfg.hotspots));
    }
    return stats;
  }
  for (size_t next = 0; next < specs.size() && !(cfg.until_failure && failed);)
    next += sequence_part(specs.subspan(next), cfg, note, stats);
  return stats;
}

bool Supervisor::deliver(const std::string& line, BackendKind backend, std::string& error) {
  // A worker that exited since the last trial (it does after losing its
  // CUDA context) is found out here and replaced, once.
  for (int attempt = 0;; ++attempt) {
    if (!ensure_started(backend, error)) {
      error = "cannot start a trial worker: " + error;
      return false;
    }
    if (worker_.send(line)) return true;
    worker_.kill();
    if (attempt == 1) {
      error = "the trial worker took no request: it " + worker_.death();
      return false;
    }
  }
}

// A pack whose worker hangs, dies or answers nonsense judges nothing: its
// trials run alone (isolated), where the culprit costs one verdict.
std::vector<std::optional<Outcome>> Supervisor::run_pack(std::span<const TrialSpec> specs, BackendKind backend,
                                                         const RunOptions& opt, uint64_t seed,
                                                         std::vector<LaunchSpan>* spans) {
  std::vector<std::optional<Outcome>> results(specs.size());
  // Under a sanitizer each trial runs alone (execute_packed then runs them).
  if (opt.policy.sanitize != SanitizeTool::None) return results;
  PackRequest request{{specs.begin(), specs.end()}, backend, opt, seed};
  request.run.policy.isolate = false;
  std::string error, line_in;
  if (!deliver(to_json(request).dump(), backend, error)) return results;
  // Each launch gets its watchdog and the grace of its share; the worker
  // says when each is done (a line {"launched": n}).
  const uint64_t wait_ms = packed_launch_deadline_ms(opt) + isolation_grace_ms(kPackLaunchOps) + specs.size() / 100;
  json j;
  for (;;) {
    const auto got = worker_.receive(line_in, Clock::now() + std::chrono::milliseconds(wait_ms));
    if (got == WorkerProcess::Read::TimedOut) worker_.kill();
    if (got != WorkerProcess::Read::Line) return results;
    j = json::parse(line_in, nullptr, false);
    if (!(j.is_object() && j.contains("launched"))) break;
  }
  std::vector<LaunchSpan> launches;
  std::string malformed;
  if (!j.is_object() || !j.contains("results") || !j["results"].is_array() || j["results"].size() != specs.size() ||
      !j.contains("launches") || !from_json(j["launches"], launches, malformed)) {
    worker_.kill();
    return results;
  }
  if (spans) spans->insert(spans->end(), launches.begin(), launches.end());
  for (size_t i = 0; i < specs.size(); ++i) {
    const json& r = j["results"][i];
    if (r.is_null()) continue;
    Outcome o = unanswered(specs[i], backend, opt);
    if (std::string why; from_packed_json(r, o, why)) results[i] = std::move(o);
  }
  if (j.value("exits", false)) spare_workers::retire(worker_, false);
  return results;
}

// One per thread: a thread that runs trials of its own beside the main
// one's (check's failures concluded in the background) gets its own worker
// process, so that neither waits for the other's trial or loses it to the
// other's crash.  Its worker is stopped when the thread (or the program) ends.
Supervisor& supervisor() {
  thread_local Supervisor s;
  return s;
}

}  // namespace

std::vector<std::optional<Outcome>> run_packed_isolated(std::span<const TrialSpec> specs, BackendKind backend,
                                                        const RunOptions& opt, uint64_t seed,
                                                        std::vector<LaunchSpan>* spans) {
  return supervisor().run_pack(specs, backend, opt, seed, spans);
}

void set_worker_program(const std::string& path) { worker_program_setting() = path; }

const std::string& worker_program() { return worker_program_setting(); }

uint64_t isolation_grace_ms(uint64_t ops) { return 2000 + ops / 5000; }

uint64_t memory_allowance_ms(uint64_t elems) { return elems < (1u << 20) ? 0 : elems / 2000; }

TrialDeadline trial_deadline(const TrialSpec& spec, const RunOptions& opt) {
  TrialDeadline d;
  d.watchdog_ms = effective_watchdog_ms(opt, spec.ops());
  d.grace_ms = isolation_grace_ms(spec.ops());
  if (const auto f = estimate_footprint(spec, BackendKind::Cpu)) d.memory_ms = memory_allowance_ms(f->mem_elems);
  // The entry as this program knows it (a supervisor that is not the
  // worker's program may not: then no allowance).
  if (const Entry* e = find_impl(spec.impl); e != nullptr && e->family != nullptr) {
    d.host_code_ms = e->family->host_code_ms(spec.ops());
    d.queue_ms = e->family->queue_wait_ms(*e, d.watchdog_ms);
  }
  return d;
}

Outcome deadline_passed(Outcome out, const TrialDeadline& d, const std::optional<kernel::PhaseNote>& phase, pid_t pid,
                        const std::string& last_words) {
  const std::string killed = fmt::format("its worker (pid {}) was killed", int(pid));
  if (phase && phase->phase == kernel::CasePhase::HostCode)
    return with_finding(
        std::move(out), Verdict::Error, FindingKind::HostCodeTimeout,
        fmt::format("the property of kernel entry '{}' did not finish its host code within the trial's deadline ({} "
                    "ms: the watchdog {} ms, {} ms of grace, {} ms for host code): it was {}; {}.  No watchdog bounds "
                    "a property's host code: an oracle too slow for the case's size, or a loop that never ends{}",
                    phase->entry, d.total_ms(), d.watchdog_ms, d.grace_ms, d.host_code_ms, kernel::describe(*phase),
                    killed, last_words));
  // In a launch, the launch's own bound (TrialDeadline::bound_ms): no host-code allowance.
  const bool in_launch = phase && phase->phase == kernel::CasePhase::Launch;
  const std::string host =
      (d.queue_ms ? fmt::format(", {} ms for loops that kept moving", d.queue_ms) : std::string()) +
      (d.memory_ms ? fmt::format(", {} ms for its memory", d.memory_ms) : std::string()) +
      (d.host_code_ms && !in_launch ? fmt::format(" and {} ms for host code", d.host_code_ms) : "");
  const std::string where = phase ? fmt::format("; kernel entry '{}' was {}", phase->entry, kernel::describe(*phase)) : "";
  return with_finding(std::move(out), Verdict::Hang, FindingKind::Hang,
                      fmt::format("no result within the trial's watchdog ({} ms) and {} ms of grace{}: {}{}{}",
                                  d.watchdog_ms, d.grace_ms, host, killed, where, last_words));
}

void prepare_isolated_worker(BackendKind backend) { supervisor().prepare(backend); }

Outcome run_trial_isolated(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, size_t hotspots) {
  return supervisor().run(spec, backend, opt, hotspots);
}

SequenceStats run_sequence_isolated(std::span<const TrialSpec> specs, const SequenceConfig& cfg,
                                    const std::function<void(Outcome&&)>& each) {
  return supervisor().run_sequence(specs, cfg, each);
}

}  // namespace atomstress
