// atomstress worker (hidden): the far side of isolated trials
// (harness/pipeline/isolated.cpp).  It says {"ready":true} once started (a
// CUDA context created on --backend cuda), then reads one TrialRequest per
// line on stdin (or a PackRequest: packed trials, run_packed.hpp; or a
// SequenceRequest: trials pipelined, run_sequence.hpp), runs it in this
// process and writes its Outcome (the pack's results; the sequence's
// outcomes, one line each) as JSON lines, flushed.  After a trial that lost the CUDA context it says so
// ("exits") and exits, and its supervisor starts a fresh worker.  With
// --jobs N, a TrialRequest carrying an "id" runs on one of N threads
// (trial_threads.hpp) and is answered {"id", "outcome"} when it ends, in
// any order; a lost context then ends the worker at once, unanswered (which
// trial in flight caused it is not known here: the supervisor runs each
// again alone, concurrent_worker.hpp); {"cancel": id} stops such a trial
// early (backend/trial_cancel.hpp).  While it runs a kernel entry's
// trial (not with --jobs: a lost trial runs again alone, and says them
// there) it says the case's phases as they change ({"case_phase": ...}).  It ends at the end of its input, or
// with its supervisor.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "harness/backend/trial_cancel.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/options.hpp"
#include "harness/pipeline/crash_report.hpp"
#include "harness/pipeline/run_packed.hpp"
#include "harness/pipeline/run_sequence.hpp"
#include "harness/pipeline/trial_threads.hpp"
#include "harness/pipeline/trial_json.hpp"

namespace po = boost::program_options;
using nlohmann::json;

namespace atomstress::cli {

namespace {

// Replies on a private copy of stdout; stdout itself becomes stderr, so that
// whatever the code under test prints (a device printf) cannot corrupt them.
FILE* take_reply_channel() {
  const int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return nullptr;
  return fdopen(fd, "w");
}

// One line, flushed (whole, whichever thread replies); a supervisor that is
// gone ends the worker.
void reply(FILE* out, const json& j) {
  static std::mutex mu;
  const std::string line = j.dump() + "\n";
  std::lock_guard lock(mu);
  if (std::fwrite(line.data(), 1, line.size(), out) != line.size() || std::fflush(out) != 0) std::_Exit(0);
}

// The trials with an id not yet answered, by id: what a {"cancel": id}
// request stops (backend/trial_cancel.hpp).
class CancelsById {
 public:
  std::shared_ptr<TrialCancel> add(size_t id) {
    std::lock_guard lock(mu_);
    return by_id_[id] = std::make_shared<TrialCancel>();
  }
  void remove(size_t id) {
    std::lock_guard lock(mu_);
    by_id_.erase(id);
  }
  // A {"cancel": id} request: the trial stopped if it has not ended.  False
  // when the request is not one.
  bool cancel(const json& j) {
    if (!j.is_object() || !j.contains("cancel") || !j["cancel"].is_number_unsigned()) return false;
    std::shared_ptr<TrialCancel> c;
    {
      std::lock_guard lock(mu_);
      const auto it = by_id_.find(j["cancel"].get<size_t>());
      if (it != by_id_.end()) c = it->second;
    }
    if (c) c->cancel();  // outside the map's lock: it waits for a device write
    return true;
  }

 private:
  std::mutex mu_;
  std::map<size_t, std::shared_ptr<TrialCancel>> by_id_;
};

// A request with an "id" (concurrent_worker.hpp): queued to the threads,
// answered when it ends.  False when it is not one.
bool submit_concurrent(const json& j, TrialThreads* threads, CancelsById& cancels, FILE* out) {
  if (!threads || !j.is_object() || !j.contains("id") || !j["id"].is_number_unsigned()) return false;
  const size_t id = j["id"].get<size_t>();
  json body = j;
  body.erase("id");
  TrialRequest request;
  std::string error;
  if (!from_json(body, request, error)) {
    reply(out, {{"error", "malformed request: " + error}});
    return true;
  }
  threads->submit([request = std::move(request), id, out, &cancels, cancel = cancels.add(id)] {
    set_thread_trial_cancel(cancel.get());
    const Outcome o = run_trial(request.spec, request.backend, request.run, request.hotspots);
    set_thread_trial_cancel(nullptr);
    cancels.remove(id);
    // A lost context may be another thread's trap: nothing more is
    // answered here (_Exit: kernels may still run).
    if (std::string why; cuda_context_lost(why)) std::_Exit(0);
    reply(out, {{"id", id}, {"outcome", to_json(o)}});
  });
  return true;
}

// A malformed request is answered with its error; nullopt then.
std::optional<json> refuse(FILE* out, const std::string& error) {
  reply(out, {{"error", "malformed request: " + error}});
  return std::nullopt;
}

std::optional<json> answer_pack(const json& j, FILE* out) {
  PackRequest pack;
  if (std::string error; !from_json(j, pack, error)) return refuse(out, error);
  auto results = json::array();
  // A line per launch: the supervisor's deadline is one launch's.
  const auto progress = [&](size_t done, size_t of) { reply(out, {{"launched", done}, {"of", of}}); };
  std::vector<LaunchSpan> spans;
  for (const auto& r : run_packed_trials(pack.specs, pack.backend, pack.run, pack.seed, progress, nullptr, &spans))
    results.push_back(r ? to_packed_json(*r) : json());
  return json{{"results", std::move(results)}, {"launches", to_json(spans)}};
}

// A kernel case's phases (kernel/case_phase.hpp), said as they change, so
// that a supervisor that ends this worker at the trial's deadline knows
// whether a launch or the property's host code was running.
kernel::WatchCasePhases tell_phases(FILE* out) {
  return kernel::WatchCasePhases([out](const kernel::PhaseNote& n) { reply(out, to_json(n)); });
}

std::optional<json> answer_sequence(const json& j, FILE* out) {
  SequenceRequest seq;
  if (std::string error; !from_json(j, seq, error)) return refuse(out, error);
  const auto phases = tell_phases(out);
  // A line around each trial's run (the supervisor's deadline is that
  // trial's) and one per outcome, as it comes.
  const SequenceProgress progress{[&](size_t i) { reply(out, {{"running", i}}); },
                                  [&](size_t i) { reply(out, {{"ran", i}}); }};
  size_t index = 0;
  const SequenceStats stats = run_trial_sequence(
      seq.specs, {seq.backend, seq.run, seq.hotspots, seq.until_failure, seq.pipelined},
      [&](Outcome&& o) { reply(out, {{"index", index++}, {"outcome", to_json(o)}}); }, progress);
  return json{{"done", stats.reported}, {"overlapped_ms", stats.overlapped_ms}};
}

// The final reply to a request run in this thread (a pack, a sequence or a
// trial); nullopt when it was refused.
std::optional<json> answer_request(const json& j, FILE* out) {
  if (!j.is_object()) return refuse(out, "not a JSON object");
  if (j.contains("pack")) return answer_pack(j, out);
  if (j.contains("sequence")) return answer_sequence(j, out);
  TrialRequest request;
  if (std::string error; !from_json(j, request, error)) return refuse(out, error);
  const auto phases = tell_phases(out);
  return to_json(run_trial(request.spec, request.backend, request.run, request.hotspots));
}

}  // namespace

int cmd_worker(const std::vector<std::string>& args) {
  std::string backend_name;
  uint64_t parent = 0;
  uint32_t jobs = 1;
  po::options_description desc("atomstress worker (started by the supervisor of isolated trials)");
  desc.add_options()("backend", non_empty(&backend_name), "cpu or cuda")(
      "parent", bounded<uint64_t>(&parent), "the supervisor's process id")(
      "jobs", bounded<uint32_t>(&jobs, 1, 64)->default_value(1), "trials with an id run this many at once");
  parse_command(args, desc);
  const auto backend = parse_backend(backend_name);
  if (!backend) return usage_error("worker: --backend cpu or cuda");
  // Ends with its supervisor even mid-trial (a loop that never ends would
  // otherwise run on as an orphan), and never outlives a supervisor that
  // died before this line.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (parent != 0 && uint64_t(getppid()) != parent) return 0;
  // Trials that crash on purpose, thousands in a night, leave no core files
  // (to debug one, reproduce it with --isolate off).
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  // ...but a death in the host's code names where it happened.
  report_fatal_signals();
  FILE* out = take_reply_channel();
  if (!out) return usage_error("worker: cannot set up its reply channel");

  std::string why;
  if (*backend == BackendKind::Cuda && !cuda_warm_up(why)) {
    reply(out, {{"ready", false}, {"error", why}});
    return 2;
  }
  reply(out, {{"ready", true}});
  CancelsById cancels;  // outlives the threads, whose trials use it
  auto threads = jobs > 1 ? std::make_unique<TrialThreads>(jobs) : nullptr;
  std::string line;
  while (std::getline(std::cin, line)) {
    const json j = json::parse(line, nullptr, false);
    if (cancels.cancel(j) || submit_concurrent(j, threads.get(), cancels, out)) continue;
    std::optional<json> answer = answer_request(j, out);
    if (!answer) continue;  // refused: the error was the reply
    const bool lost = cuda_context_lost(why);
    if (lost) (*answer)["exits"] = true;
    reply(out, *answer);
    // A lost context runs no further trial.  _Exit: a kernel may still run,
    // and tearing the context down could wait for it.
    if (lost) std::_Exit(0);
  }
  threads.reset();  // the trials queued end and are answered
  // End of requests: leave without tearing down.  Every record is the
  // supervisor's, so the static destructors and the CUDA context's teardown
  // serve nobody, and on the H100 that teardown, after GPU-checked trials,
  // printed glibc's "double free or corruption (out)" as the last line of a
  // clean night.
  std::fflush(nullptr);
  std::_Exit(0);
}

}  // namespace atomstress::cli
