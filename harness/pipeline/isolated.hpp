// Isolated trials, in the manner of libFuzzer's fork mode: a trial runs in a
// worker process (the same program, `/proc/self/exe worker`, so a user's
// suite binary, which carries their entries, is its own worker), and a
// trial that never ends, traps or kills its process costs one verdict (HANG
// or CRASH) instead of the run.  One worker is kept for the whole run by
// each thread that runs trials (its start-up, a CUDA context included, is
// paid once) and replaced after it dies or is killed.  Only programs built
// by atomstress_add_cli (whose main dispatches `worker`) can run isolated
// trials.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <span>
#include <vector>

#include "harness/kernel/case_phase.hpp"
#include "harness/pipeline/run_packed.hpp"
#include "harness/pipeline/run_sequence.hpp"
#include "harness/pipeline/run_trial.hpp"
#include "harness/pipeline/worker_process.hpp"

namespace atomstress {

// run_trial in the worker.  Under RunOptions::sanitize, in a fresh worker
// under compute-sanitizer, one per trial, its report folded into the
// outcome (sanitizer.hpp).  The answer is awaited until the trial's
// deadline (trial_deadline); past that the worker is killed and the verdict
// is Hang, or Error (HostCodeTimeout) when the worker said it was in a
// kernel entry's host code (deadline_passed).  A worker that dies gives Crash, naming
// the signal or exit status, with its last stderr lines; but a worker
// killed by a SIGKILL the supervisor did not send (the OOM killer, an
// operator) runs the trial again once, and killed again gives Error (an
// infrastructure error, not the entry's Crash).  A worker that cannot be
// started gives Error.
Outcome run_trial_isolated(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, size_t hotspots = 0);

// Starts this thread's worker for run_trial_isolated now, without waiting
// for it: its start-up (on cuda a context, about 0.2 s on an H100) goes on
// beside what the caller does next, and the first trial finds it ready.
// Nothing when it already runs.
void prepare_isolated_worker(BackendKind backend);

// run_packed_trials in the worker.  A pack that hangs, kills its worker or
// is answered with nonsense judges nothing (every result empty: the caller
// runs those trials alone, isolated, where the culprit costs one verdict).
// `spans`: the launches that ran, as run_packed_trials gives them.
std::vector<std::optional<Outcome>> run_packed_isolated(std::span<const TrialSpec> specs, BackendKind backend,
                                                        const RunOptions& opt, uint64_t seed,
                                                        std::vector<LaunchSpan>* spans = nullptr);

// run_trial_sequence in the worker, `each` getting every outcome in order.
// A trial whose run hangs or kills the worker gets the Hang or Crash that
// run_trial_isolated would give it, and the sequence goes on in a fresh
// worker (unless it stops at failures).
SequenceStats run_sequence_isolated(std::span<const TrialSpec> specs, const SequenceConfig& cfg,
                                    const std::function<void(Outcome&&)>& each);

// The program started as the worker (with the argument `worker`): this one
// (/proc/self/exe) unless set; tests name a CLI built with test entries.
void set_worker_program(const std::string& path);
const std::string& worker_program();

// A worker started under compute-sanitizer (--sanitize, sanitizer.hpp).
struct SanitizedStart {
  std::string tool_path;  // compute-sanitizer
  SanitizeTool tool = SanitizeTool::Memcheck;
  std::string log_file;   // where the tool writes its report
};

// Starts `worker` (worker_program()) for `backend`, running up to `jobs`
// trials at once (harness/pipeline/concurrent_worker.hpp), and awaits its
// ready line; false with a one-line `error` when it cannot start.  With
// `sanitized`, the worker runs under the tool.
bool start_worker(WorkerProcess& worker, BackendKind backend, size_t jobs, std::string& error,
                  const SanitizedStart* sanitized = nullptr);

// Beyond the watchdog, what an answer may take: 2 s, plus 0.2 us per op for
// the copies back, the check and the reply (several times the checker's own
// cost per op: docs/performance.md).
uint64_t isolation_grace_ms(uint64_t ops);
// The time a trial's memory of `elems` words may take to fill, copy and
// check, beyond the grace: 0.5 us a word (about 0.11 us measured on a
// 2-core host, unloaded; 0 below a million words, which the grace covers).
uint64_t memory_allowance_ms(uint64_t elems);

// How long a supervisor waits for a trial's answer before it kills the
// worker: the trial's watchdog (effective_watchdog_ms), the isolation
// grace, and the entry's host-code allowance (Family::host_code_ms: a
// kernel entry's property runs host code that no watchdog bounds), and the
// time its loops may go on while they see their queue or word move
// (queue_ms: Family::queue_wait_ms), and the time its memory takes to set
// up and check (memory_ms: a 2^28-word region takes tens of seconds on the
// host, which no watchdog of its ops covers).
struct TrialDeadline {
  uint64_t watchdog_ms = 0, grace_ms = 0, host_code_ms = 0, queue_ms = 0, memory_ms = 0;
  uint64_t total_ms() const { return watchdog_ms + queue_ms + grace_ms + host_code_ms + memory_ms; }
  // From where the worker last said it was: a kernel case's launch gets its
  // watchdog and the grace from the note on (the host-code allowance is
  // not a launch's: a kernel that never ends costs what it did before the
  // allowance); anything else the whole deadline.
  uint64_t bound_ms(const std::optional<kernel::PhaseNote>& phase) const {
    return phase && phase->phase == kernel::CasePhase::Launch ? watchdog_ms + queue_ms + grace_ms + memory_ms
                                                              : total_ms();
  }
};
TrialDeadline trial_deadline(const TrialSpec& spec, const RunOptions& opt);

// The verdict of a trial whose worker was killed at its deadline: Hang
// (naming the kernel case's launch when the worker said it was in one),
// or, when the worker said it was in a kernel entry's host code, Error
// with kind HostCodeTimeout naming the entry and the phase (the kernel
// had finished: not the kernel's HANG).  `last_words`: the worker's stderr.
Outcome deadline_passed(Outcome out, const TrialDeadline& d, const std::optional<kernel::PhaseNote>& phase, pid_t pid,
                        const std::string& last_words);

}  // namespace atomstress
