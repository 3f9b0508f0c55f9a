// Packed trials: many small single-atomic trials run in few launches
// (backend/packed.hpp) and each judged as its own trial, by the same rules
// as run_trial: on the device where RunOptions::checker and the entry allow
// it (only an instance it does not pass comes back), else the hang rule
// and the family's oracle on the host, whose cost is spread over its cores
// (pack_judging.hpp).  What a pack cannot judge is left
// for the caller to run alone: a trial that is not packable (an algorithm,
// too many ops, the cpu backend, a bad spec), and every trial of a launch
// that failed as a whole (a fault or a hang in any one of them: only a run
// alone says whose).
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/pipeline/pack_judging.hpp"
#include "harness/pipeline/run_trial.hpp"

namespace atomstress {

// At most this many ops per launch (the rest go in further launches): a
// launch's watchdog grows with its ops (effective_watchdog_ms: about 2.3 s
// here), and a pack that hangs costs one launch's.
inline constexpr uint64_t kPackLaunchOps = uint64_t(1) << 16;
// An entry's instances are spread over as many launches as run at once (on
// as many host threads: half the host's cores, 2 to kPackLaunchThreads)
// while each launch keeps kPackMinLaunchOps ops.
inline constexpr size_t kPackLaunchThreads = 8;
inline constexpr uint64_t kPackMinLaunchOps = uint64_t(1) << 13;
// A launch's kernel: when the host saw it end (steady_seconds()) and how long
// it ran, in ms (its events).  `own`: atomstress's own device work instead
// (a pack's judging, a trial's checking), not the code under test's.
struct LaunchSpan {
  double end_s = 0, ms = 0;
  bool own = false;
};

// The most time one launch of a pack may take in a worker: its watchdog.  A
// worker says when each launch is done, so a supervisor waits this long per
// launch, not for the whole pack at once.
uint64_t packed_launch_deadline_ms(const RunOptions& opt);

// One result per spec, in order: its Outcome, or nothing when it must run
// alone (run_trial / execute_trial).  The layout of each launch is shuffled
// by `seed`.  In this process: after a launch that lost the CUDA context,
// nothing further is run (everything left is nothing).
// `launched(done, of)` after each launch (the worker's progress lines);
// `launch_error`: the first launch's error that left its trials unjudged;
// `spans`: each launch that ran, its kernel's time (for the GPU's busy time:
// its instances' run_ms are shares of it).
std::vector<std::optional<Outcome>> run_packed_trials(std::span<const TrialSpec> specs, BackendKind backend,
                                                      const RunOptions& opt, uint64_t seed,
                                                      const std::function<void(size_t, size_t)>& launched = {},
                                                      std::string* launch_error = nullptr,
                                                      std::vector<LaunchSpan>* spans = nullptr);

// A pack's launches, as indices into `specs` (those that may pack, asked of
// the spec and its entry alone: packable_spec), before any expansion: one
// entry each, in spec order, at most kPackLaunchOps ops; an entry's
// instances spread over `spread` launches while each keeps kPackMinLaunchOps.
std::vector<std::vector<size_t>> group_launches(std::span<const TrialSpec> specs, size_t spread);

// Launches run at once from now on, 1 to kPackLaunchThreads (0: half the
// host's cores, 2 to kPackLaunchThreads): a benchmark's sweep.
void set_pack_launch_threads(size_t threads);

// Whether a spec would be packed (cuda, a single atomic with a packed
// runner, small enough); false for a spec that does not expand.
bool packs(const TrialSpec& spec, BackendKind backend);

}  // namespace atomstress
