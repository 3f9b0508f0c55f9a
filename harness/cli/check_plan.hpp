// What `check` and `selftest` share: the options, the plan of trials, and
// running one implementation across patterns, spaces and trials.
#pragma once

#include <boost/program_options.hpp>

#include <functional>
#include <string>
#include <vector>

#include "harness/pipeline/run_trial.hpp"
#include "reports/results.hpp"

namespace atomstress {

struct CheckOptions {
  std::string impl, backend = "auto", pattern = "all", space = "all", dist = "mixed";
  bool all = false, skip_without_gpu = false, quiet = false, no_shrink = false;
  bool pipeline = true;  // judge each trial while the next runs (run_sequence.hpp)
  double shrink_s = 30;  // per failure
  uint32_t grid = 0, block = 0, ops_per_thread = 0, k = 0, trials = 2, profile = 0;
  uint32_t jobs = 0;  // trials at once (0: check_jobs decides)
  std::optional<uint32_t> special;  // per mille; absent: vary by trial
  uint64_t seed = 1;
  std::string sanitize;  // --sanitize, as given (make_plan sets run.sanitize)
  RunOptions run;
};

void add_check_options(boost::program_options::options_description& desc, CheckOptions& o);
// What the variables_map holds beyond the bound fields (optional values).
void read_check_options(const boost::program_options::variables_map& vm, CheckOptions& o);

struct CheckPlan {
  std::vector<const Entry*> impls;
  BackendKind backend = BackendKind::Cpu;
  std::vector<Pattern> patterns;
  std::vector<Space> spaces;
  CheckOptions opt;
  bool auto_geometry = false;  // no --grid/--block/--ops-per-thread given
  std::string note;  // which backend, and why
};

// Resolves names, backend and defaults.  On bad input returns false with a
// one-line `error` ("skip" when --skip-without-gpu found no GPU; the reason
// is then in plan.note).
bool make_plan(const CheckOptions& o, CheckPlan& plan, std::string& error);

// The seed of trial t of (implementation `name`, pattern, space): from the
// name, not the catalogue position, so adding an entry changes no other
// entry's trials.
uint64_t trial_seed(uint64_t base_seed, std::string_view name, Pattern p, Space s, uint32_t t);

// The spec of trial t of (impl, pattern, space) under the plan; nullopt
// when the combination does not apply (a block-scope op on shared-across-
// blocks addresses, a pattern that cannot fit in shared memory).
std::optional<TrialSpec> plan_trial(const CheckPlan& plan, const Entry& impl, Pattern p, Space s,
                                    uint32_t t);

using reports::ImplSummary;

// The trials of one implementation under the plan, in order.
struct ImplTrials {
  std::vector<TrialSpec> specs;
  std::vector<size_t> skip_at;  // how many trials were planned before each combination that does not apply
  std::string none_applies;     // why the first combination that does not apply does not
};
ImplTrials plan_impl(const CheckPlan& plan, const Entry& impl);

// An implementation's summary, its outcomes added in order.
class ImplTally {
 public:
  ImplTally(const CheckPlan& plan, const Entry& impl, const ImplTrials& planned);
  void add(Outcome&& out);
  ImplSummary close(const ImplTrials& planned) &&;
  ImplSummary sum;

 private:
  uint64_t busiest_ = 0;
};

// How many trials run at once (--jobs, or its automatic choice).
size_t check_jobs(const CheckPlan& plan);

// How many failing entries are concluded (shrunk, then diagnosed) at once
// beside the later entries' trials: with trials at once only (each such
// conclusion runs its trials in a worker process, on the GPU a context, of
// its own); else none.
size_t background_conclusions(size_t jobs);

// Whether a failure is concluded beside the later entries' trials (when
// there is a background): a crash, whose every failing candidate is a lost
// context and a fresh worker (host time, about 0.3 s on the GPU), which
// overlaps the other trials well.  Any other failure's shrink is hundreds
// of small kernels, each waiting for its time slice on a GPU that another
// context keeps busy (on an H200 a 256-candidate shrink took 0.2 s alone,
// 3.9 s beside check's trials), so it runs with no trial of check's beside
// it, as one at a time does.
bool concluded_beside(Verdict v);

// `run` for trials that share the GPU with `others` processes' trials (a
// time-sliced GPU): its watchdogs grow as fuzz's lanes' do
// (ExecutionPolicy::gpu_share).
RunOptions shared_gpu_run(const RunOptions& run, size_t others);

// What check's time line adds up, over the trials it reports (shrinking's
// runs are not among them): wall time, the code under test's time summed
// over the trials and as the union of their kernels (BusyTime: the GPU busy
// with it, however many ran at once), checking summed, and the checking
// done while a later trial ran.  gpu_busy_ms: the union of those kernels and
// the device's checking of their trials (BusyTime::gpu_ms).
struct CheckTimes {
  double wall_ms = 0, run_ms = 0, busy_ms = 0, check_ms = 0, overlapped_ms = 0, gpu_busy_ms = 0;
};
// "time: ..." : where the wall time went.  On cuda the code under test's
// share is the GPU's busy share; with several trials at once the sums may
// pass the wall time, and the busy share is the union's.
std::string check_time_line(const CheckTimes& t, BackendKind backend, size_t jobs);

// Runs every planned trial of one implementation, stopping at its first
// failure.  `each` sees every outcome (for the JSON report).
ImplSummary run_impl(const CheckPlan& plan, const Entry& impl,
                     const std::function<void(const Outcome&)>& each);

}  // namespace atomstress
