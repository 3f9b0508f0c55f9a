#include "harness/pipeline/isolated.hpp"

#include <unistd.h>

#include "harness/pipeline/run_packed.hpp"
#include "harness/pipeline/trial_json.hpp"
#include "harness/pipeline/worker_process.hpp"

namespace atomstress {

namespace {

using nlohmann::json;
using Clock = WorkerProcess::Clock;

// A worker's start-up (the process, the registry, a CUDA context) must end
// within this.
constexpr auto kStartLimit = std::chrono::seconds(120);

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

// One worker at a time, started on first use and after each death.
class Supervisor {
 public:
  Outcome run(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, size_t hotspots);
  std::vector<std::optional<Outcome>> run_pack(std::span<const TrialSpec> specs, BackendKind backend,
                                               const RunOptions& opt, uint64_t seed);

 private:
  bool ensure_started(BackendKind backend, std::string& error);
  // Sends a request line, starting (or, once, restarting) the worker.
  bool deliver(const std::string& line, BackendKind backend, std::string& error);

  WorkerProcess worker_;
  BackendKind backend_ = BackendKind::Cpu;
};

bool Supervisor::ensure_started(BackendKind backend, std::string& error) {
  if (worker_.running() && backend_ == backend) return true;
  const std::vector<std::string> argv = {"atomstress", "worker", "--backend", to_string(backend), "--parent",
                                         std::to_string(getpid())};
  if (!worker_.start("/proc/self/exe", argv, error)) return false;
  backend_ = backend;
  // It says it is ready once its start-up is done.
  std::string line;
  switch (worker_.receive(line, Clock::now() + kStartLimit)) {
    case WorkerProcess::Read::Line: {
      const json j = json::parse(line, nullptr, false);
      if (j.is_object() && j.value("ready", false)) return true;
      error = j.is_object() && j.contains("error") ? j["error"].dump() : "not an atomstress worker: '" + line + "'";
      break;
    }
    case WorkerProcess::Read::Died: error = "it " + worker_.death() + last_words(worker_); return false;
    case WorkerProcess::Read::TimedOut: error = "it was not ready within 120 s"; break;
  }
  worker_.kill();
  return false;
}

Outcome Supervisor::run(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, size_t hotspots) {
  Outcome out;
  out.spec = spec;
  out.knobs = knobs_of(opt);
  out.backend = backend;
  out.ops = spec.ops();
  TrialRequest request{spec, backend, opt, hotspots};
  request.run.isolate = false;  // the worker runs it in its own process
  const std::string line_out = to_json(request).dump();
  std::string error;
  if (!deliver(line_out, backend, error))
    return with_finding(std::move(out), Verdict::Error, FindingKind::BackendError, error);
  const uint64_t watchdog = effective_watchdog_ms(opt, spec.ops()), grace = isolation_grace_ms(spec.ops());
  const pid_t pid = worker_.pid();
  std::string line_in;
  switch (worker_.receive(line_in, Clock::now() + std::chrono::milliseconds(watchdog + grace))) {
    case WorkerProcess::Read::TimedOut:
      worker_.kill();
      return with_finding(std::move(out), Verdict::Hang, FindingKind::Hang,
                          "no result within the trial's watchdog (" + std::to_string(watchdog) + " ms) and " +
                              std::to_string(grace) + " ms of grace: its worker (pid " +
                              std::to_string(pid) + ") was killed" + last_words(worker_));
    case WorkerProcess::Read::Died:
      return with_finding(std::move(out), Verdict::Crash, FindingKind::Crash,
                          "the worker running the trial (pid " + std::to_string(pid) + ") died: " + worker_.death() +
                              last_words(worker_));
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
  // It exits after a trial that lost its CUDA context: reap it now.
  if (j.value("exits", false)) worker_.stop(std::chrono::seconds(10));
  return answer;
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
                                                         const RunOptions& opt, uint64_t seed) {
  std::vector<std::optional<Outcome>> results(specs.size());
  PackRequest request{{specs.begin(), specs.end()}, backend, opt, seed};
  request.run.isolate = false;
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
  if (!j.is_object() || !j.contains("results") || !j["results"].is_array() || j["results"].size() != specs.size()) {
    worker_.kill();
    return results;
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    const json& r = j["results"][i];
    if (r.is_null()) continue;
    Outcome o;
    o.spec = specs[i];
    o.knobs = knobs_of(opt);
    o.backend = backend;
    if (std::string why; from_packed_json(r, o, why)) results[i] = std::move(o);
  }
  if (j.value("exits", false)) worker_.stop(std::chrono::seconds(10));
  return results;
}

Supervisor& supervisor() {
  static Supervisor s;  // its worker is stopped when the program ends
  return s;
}

}  // namespace

std::vector<std::optional<Outcome>> run_packed_isolated(std::span<const TrialSpec> specs, BackendKind backend,
                                                        const RunOptions& opt, uint64_t seed) {
  return supervisor().run_pack(specs, backend, opt, seed);
}

uint64_t isolation_grace_ms(uint64_t ops) { return 2000 + ops / 5000; }

Outcome run_trial_isolated(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, size_t hotspots) {
  return supervisor().run(spec, backend, opt, hotspots);
}

}  // namespace atomstress
