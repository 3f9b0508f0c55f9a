// Properties evaluated on a TrialSpec, on either backend.
//
//  * explained:  every history is explained by a sequential order and the
//                final memory matches (the Eulerian checker);
//  * bounded:    every retry loop ends within its budget (a NaN-spinning
//                loop comes back as a hang, the GPU never hangs);
//  * wrap range: inc/dec results stay within [0, limit] (check/families/atomic.cpp);
//  * differential: an emulated implementation agrees with the native one
//                where their specs agree, and differs exactly as the specs
//                predict where they do not.
// A GPU interleaving does not repeat on demand, so a spec is run up to
// `reruns` times and fails if any run fails.  Every run goes through
// execute_trial (in a worker process when RunOptions::policy.isolate says so).
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "harness/pipeline/run_trial.hpp"

namespace atomstress::properties {

struct Evaluation {
  Verdict verdict = Verdict::Pass;  // the first non-pass seen, else Pass
  std::string why;
  uint32_t runs = 0, failures = 0;
  double run_ms = 0;  // the code under test's time over the runs (cuda: the kernels')
  double device_check_ms = 0;  // the device's checking of those runs (Outcome::device_check_ms)
};

// One run of a spec: execute_trial on a backend, or a test's fake (what
// shrinking decides from a given sequence of outcomes is tested that way).
using TrialRunner = std::function<Outcome(const TrialSpec&)>;
TrialRunner runner_on(BackendKind backend, const RunOptions& opt);

Evaluation evaluate(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, uint32_t reruns);
Evaluation evaluate(const TrialSpec& spec, const TrialRunner& run, uint32_t reruns);

// Reruns a spec `runs` times (no early stop on a failure): the observed
// failure rate.  After at least one run it stops once `max_seconds` have
// passed: a case that hangs costs its watchdog and more per run.  A case
// whose first kCrashRateRuns runs all crashed stops there: each crash costs
// its worker (on the GPU, the CUDA context: 0.2 to 0.4 s), and a rate of
// 3 of 3 says as much as 10 of 10.  A first run that hung stops at once:
// each hang costs its watchdog and grace (2 s and more), and the record
// says it hung in 1 of 1 runs, no more than was seen.
inline constexpr uint32_t kCrashRateRuns = 3;
Evaluation measure_rate(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, uint32_t runs,
                        double max_seconds = std::numeric_limits<double>::infinity());
Evaluation measure_rate(const TrialSpec& spec, const TrialRunner& run, uint32_t runs,
                        double max_seconds = std::numeric_limits<double>::infinity());

// Reruns a spec until its first failure, `max_runs` runs, or `max_seconds`
// (none at all when max_seconds <= 0): the search for a failure that a
// passing measure_rate may have missed (a race a loaded host hid).
Evaluation seek_failure(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, uint32_t max_runs,
                        double max_seconds);

struct DiffPair {
  const char* emulated;
  const char* native;
};
const std::vector<DiffPair>& differential_pairs();

struct DiffResult {
  bool ok = true;
  std::string why;
  uint64_t agreed = 0;     // ops where the specs agree and the devices did
  uint64_t predicted = 0;  // ops where the specs differ, and each did what its spec says
};

// Runs both implementations of a pair on the same single-thread workload
// (deterministic) derived from `seed`, in `space`, and compares.
DiffResult differential(const DiffPair& pair, BackendKind backend, Space space, uint64_t seed, uint32_t ops,
                        uint32_t special_permille);

}  // namespace atomstress::properties
