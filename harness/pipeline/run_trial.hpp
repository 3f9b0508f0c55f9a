// One trial, from spec to verdict, for single atomics and algorithms alike:
// expand the spec, let the entry's family derive its arrays, run them on a
// backend, apply the hang rule, ask the family's oracle.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/backend/backend.hpp"
#include "harness/check/finding.hpp"
#include "harness/trial/spec.hpp"
#include "harness/trial/token.hpp"

namespace atomstress {

// Pass; Fail (the oracle found a wrong result); Hang (a loop gave up, a
// kernel trapped past its watchdog, or a trial never came back); Crash (a
// kernel faulted, or the process running the trial died); Error (bad input,
// or the backend could not run the trial).  Fail, Hang and Crash are found
// failures; Error is not.
enum class Verdict : uint8_t { Pass, Fail, Hang, Crash, Error };
const char* to_string(Verdict v);
std::optional<Verdict> parse_verdict(std::string_view s);

struct Hotspot {
  uint64_t addr = 0;
  uint64_t ops = 0;
  uint64_t retries = 0;
  uint64_t cycles = 0;  // summed over the address's ops (cuda only)
};

struct Outcome {
  TrialSpec spec;
  TrialKnobs knobs;  // the options it ran with that its token carries
  BackendKind backend = BackendKind::Cpu;
  Verdict verdict = Verdict::Pass;
  Finding finding;  // what the oracle (or the hang rule, or the input check) found; kind None on a pass
  uint64_t ops = 0;
  double run_ms = 0, check_ms = 0;
  double run_end_s = 0;  // steady_seconds() when its run ended (History::kernel_end_s; 0: not stamped)
  bool checked_on_gpu = false;  // the GPU checker judged it (RunOptions::policy.checker)
  // That checking on the device, by its events (a pack's: this trial's
  // share of its launch's judging), and when the host saw it end (0: not
  // checked there): the GPU's time on this trial beside run_ms.
  double device_check_ms = 0, device_check_end_s = 0;
  uint64_t total_retries = 0;
  uint32_t max_retries = 0;
  std::vector<Hotspot> hotspots;  // the busiest addresses, most cycles (or retries) first
  std::vector<std::string> trace_table;  // RunOptions::policy.trace_rows: the sequential replay (a kernel entry: its case) as a table
  std::vector<BufferExtent> buffers;     // a kernel entry's device buffers (--sanitize maps addresses to them)

  const std::string& why() const { return finding.explanation; }
};

// The `top` busiest words of a trial: most cycles, then retries, then ops.
std::vector<Hotspot> hottest_addresses(const Workload& w, const History& h, size_t top);

// Runs one trial in this process.  Bad input (unknown implementation,
// impossible geometry, an entry the backend cannot run) gives Verdict::Error
// with a one-line why; a kernel that faults gives Crash, one that traps past
// its watchdog Hang (and either leaves the CUDA context lost:
// cuda_context_lost()).  Commands go through execute_trial
// (execute_trial.hpp), which can run it in a worker process instead.
Outcome run_trial(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, size_t hotspots = 0);

// run_trial in two halves, so that a sequence of trials can judge one on
// the host while the next runs (run_sequence.hpp): run_on_backend does all
// that uses the backend (expansion, the run, the device's verdict, copies
// back); judge_ran_trial what is left, host code only.
struct RanTrial {
  Outcome out;
  bool judged = true;  // `out` is final (refused, a fault, passed on the device)
  std::optional<Workload> w;
  std::optional<Setup> setup;
  History h;
  std::optional<bool> device_ok;  // the GPU checker's verdict where the trail test alone decided
  RunOptions opt;
  size_t hotspots = 0;
};
void run_on_backend(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, size_t hotspots, RanTrial& r);
Outcome judge_ran_trial(RanTrial& r);

// The stages one at a time (tests, benchmarks, differential properties):
// the family's arrays, a backend's run, the family's oracle.
std::optional<Setup> setup_trial(const Workload& w, std::string& error);
// The cpu backend runs stressed specs unstressed; it says so once per
// process (stderr), not per trial.
void note_cpu_ignores_stress();
// False with a one-line `error` when the backend cannot run the entry or fails.
// h.home says where the run is to keep the history: Device (a single atomic
// on the cuda backend, `w` from expand_shape) runs it GPU-checked
// (backend/gpu_checked.hpp), leaving the history on the device.
bool run_workload(const Workload& w, const Setup& s, BackendKind backend, const RunOptions& opt, History& h,
                  std::string& error);
bool run_workload(const Workload& w, BackendKind backend, const RunOptions& opt, History& h, std::string& error);
Finding check_trial(const Workload& w, const Setup& s, const History& h);
// Adds a history's per-op retries to the outcome's total and maximum.
void add_retries(const History& h, Outcome& out);
// The host's verdict on a completed run, into `out` (whose backend is set):
// the hang rule (false: a Hang, the oracle not asked), then the family's
// oracle, timed into check_ms.
bool judge_on_host(Workload& w, const Setup& s, const History& h, const RunOptions& opt, Outcome& out);

// The GPU checker and the host's judged the same history (the trail test
// alone deciding) and disagree: a fault of atomstress, reported as a
// BackendError naming both verdicts and the host's finding.
Finding checkers_disagree(bool gpu_ok, const Finding& host);

// Picks the backend for "auto": cuda when a device is usable, else cpu.
BackendKind resolve_backend(const std::string& name, std::string& note, std::string& error);

}  // namespace atomstress
