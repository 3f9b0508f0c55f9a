// The contention profiler's engine (`atomstress profile`): one point of a
// sweep is one (entry, TrialSpec); it is measured in two passes.
//  (a) timing, uninstrumented on cuda (RunOptions::timing.bench_reps: launches
//      timed with CUDA events, nothing recorded), wall time of run_workload
//      on cpu; batches are repeated until the relative noise of the
//      per-batch times is under a bound or the point's time cap is spent;
//  (b) one instrumented run (retries and cycles per op, hottest addresses),
//      checked by the entry's oracle, so a profile never hides a failure.
// A kernel entry (harness/kernel/: a user's whole kernel and its property)
// is timed per launch, not per op: each launch the property makes is timed
// from a snapshot of its buffers (KernelCase's timing mode), and its
// property's oracle judges every timed run; (b) does not apply (the
// kernel's atomics are its own: no retries, cycles or hot addresses).
// With a baseline, a hand-written bare kernel of the same operation (native
// add of i32/u32/f32/f64 through plain atomicAdd) is timed the same way.
// Cold timing (cuda) flushes L2 before each timed launch of both, as
// nvbench's cold measurements do.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/pipeline/run_trial.hpp"

namespace atomstress {

struct ProfileSettings {
  BackendKind backend = BackendKind::Cpu;
  RunOptions run;                   // budget, watchdog, cpu threads (bench_reps is set per batch)
  double max_noise = 0.05;          // stop when stddev/mean of batch times is under this
  double max_time_s = 2.0;          // ... or when the point's timing has taken this long
  uint32_t min_batches = 3;         // the noise of fewer batches means nothing
  double target_batch_s = 0.01;     // a batch repeats launches up to about this long
  size_t hotspots = 8;              // addresses kept from the instrumented pass
  bool baseline = false;            // also time the bare kernel, where one exists
  bool cold = false;                // cuda: flush L2 before each timed launch (and the bare kernel's)
};

// What the timing pass measured.
struct Timing {
  uint64_t launches = 0;   // timed launches (or runs on cpu), warm-ups excluded
  uint32_t batches = 0;
  double s_per_launch = 0; // mean over batches
  double noise = 0;        // stddev / mean of the per-batch times (0 with one batch)
  bool converged = false;  // noise under the bound (else the time cap stopped it)
};

struct ProfilePoint {
  // Non-empty when the entry's family refuses the point (privatised bins
  // that do not fit shared memory, say): nothing was measured.
  std::string not_applicable;
  const Entry* impl = nullptr;
  TrialSpec spec;
  BackendKind backend = BackendKind::Cpu;
  // A kernel entry: timed per launch (items 1, item_unit "launch"); its
  // verdict is its oracle's on the timed runs, and (b) was not run.
  bool per_launch = false;
  uint64_t items = 0;       // operations (atomics), elements (algorithms) or 1 (a kernel's launch) per launch
  Timing timing;
  double items_per_second = 0;
  // The instrumented pass.
  uint32_t retries_p50 = 0, retries_p99 = 0, retries_max = 0;
  double retries_mean = 0;
  std::optional<double> cycles_per_op;  // cuda single atomics only
  std::vector<Hotspot> hotspots;        // most cycles (or retries) first
  Verdict verdict = Verdict::Pass;
  std::string why;                      // the oracle's finding when not Pass
  // The bare kernel, when asked for and one exists.
  std::optional<Timing> baseline;
  std::optional<double> baseline_items_per_second;
  std::optional<double> ratio_to_baseline;  // items_per_second / the bare kernel's
  bool cold = false;                         // timed with L2 flushed before each launch

  // point_name(spec)
  std::string name() const;
  // "op" for a single atomic, "element" for an algorithm, "launch" for a kernel entry.
  const char* item_unit() const;
  // A kernel entry's time per launch in microseconds (0 when none was measured).
  double us_per_launch() const { return timing.s_per_launch * 1e6; }
  // Whether the point has a time: a kernel entry that failed, hung or
  // faulted has none (its timing stops at its first failure).
  bool timed() const { return timing.launches > 0; }
};

// "native.add.i32/k:1024/pattern:uniform/grid:264/block:256/ops:16/space:global/dist:small":
// a point's name in every report (and the benchmark's name in Google Benchmark's).
std::string point_name(const TrialSpec& spec);

// Whose hot addresses the reports show: the point with the most retries
// per op (then cycles per op, then the lowest throughput) among those with
// more than one hot address (one address, at k = 1, makes a chart of one
// bar that says nothing the point's own row does not), else among all.
// Null if none.
const ProfilePoint* most_contended(const std::vector<ProfilePoint>& points);

// The nearest-rank percentile (q in [0, 1]) of `v`, which it sorts.
uint32_t percentile(std::vector<uint32_t>& v, double q);

// The stopping rule: calls `batch(reps, seconds_per_launch, error)` (which
// runs `reps` launches and says how long one took) until the noise of the
// per-batch times is under settings.max_noise with at least min_batches, or
// max_time_s has passed.  The first batch (one launch) calibrates `reps`;
// when it alone spends max_time_s, it is the measurement.
bool measure(const ProfileSettings& settings,
             const std::function<bool(uint32_t reps, double& s_per_launch, std::string& error)>& batch,
             Timing& out, std::string& error);

// Both passes (and the baseline) of one point.  False with a one-line
// `error` when the point cannot run (expand or the backend refused); a point
// the entry's family refuses comes back with `not_applicable` set.  A kernel
// entry's failure, fault or hang is its point's verdict (Fail, Crash, Hang),
// not an error: its timing stops there (the point is not timed()), and
// after a fault or a hang the CUDA context is lost (cuda_context_lost).
bool profile_point(const TrialSpec& spec, const ProfileSettings& settings, ProfilePoint& out, std::string& error);

}  // namespace atomstress
