// Trials one after another, pipelined: while trial n is judged on the host
// (the family's oracle, on a thread of its own), trial n + 1 is expanded
// and run on the backend, and where judging takes longer than a run,
// several trials are judged at once (judging_depth).  The verdicts, and the
// order they are reported in, are run_trial's; only the host's judging
// leaves the critical path.
// The cuda runners reuse their device and pinned buffers across trials,
// and the device's own checking (resident.hpp) stays in the backend half,
// so two trials never share a buffer.
#pragma once

#include <cstddef>
#include <functional>
#include <span>

#include "harness/pipeline/run_trial.hpp"

namespace atomstress {

struct SequenceConfig {
  BackendKind backend = BackendKind::Cpu;
  RunOptions run;
  size_t hotspots = 0;
  // Nothing is reported after the first outcome that is not a pass (the
  // next trial may have run by then: its outcome is dropped).
  bool until_failure = false;
  // False: each trial is judged before the next runs (run_trial in turn).
  bool pipelined = true;
};

// What a sequence did: how many outcomes it reported, and how much of the
// host's judging ran while the next trial ran (hidden by the pipeline).
struct SequenceStats {
  size_t reported = 0;
  double overlapped_ms = 0;
  bool context_lost = false;  // stopped because the CUDA context is lost (nothing runs after that)
};

// Progress, for a worker's supervisor: trial i's backend half starts, ends.
struct SequenceProgress {
  std::function<void(size_t)> running, ran;
};

// In this process.  `each` gets every outcome in order.
SequenceStats run_trial_sequence(std::span<const TrialSpec> specs, const SequenceConfig& cfg,
                                 const std::function<void(Outcome&&)>& each, const SequenceProgress& progress = {});

// Trials below this many ops are judged in line: a judging thread costs
// more than their check (tens of microseconds).
inline constexpr uint64_t kOverlapMinOps = 4096;
// The ops of the trials waiting for judging, at most (about 40 bytes of
// host memory each: the workload and the history); a trial above it is
// judged in line, and a run waits until what is pending fits beside it, so
// that a sequence needs at most this much memory beyond one trial's
// footprint (pipeline/footprint.hpp).
inline constexpr uint64_t kOverlapMaxOps = uint64_t(1) << 24;
// Whether to judge a trial on the pool rather than in line, from the last
// trial's host check and the last backend half (ms; negative: not known
// yet, then yes).  A check under a quarter of a run saves little and costs
// its history's trip to another core's cache (docs/performance.md,
// "Pipelined trials").
inline constexpr double kOverlapMinShare = 0.25;
bool worth_overlapping(double last_check_ms, double last_backend_ms);
// Trials judged at once, at most: half the host's cores, 1 to 8.
size_t judging_depth();

}  // namespace atomstress
