// check with several trials at once (--jobs above 1): every implementation's
// trials, in plan order, run up to `jobs` at once in one worker
// (harness/pipeline/concurrent_worker.hpp) and are reported in plan order
// (harness/pipeline/ordered_trials.hpp), each implementation up to its first
// failure, as run_impl reports them one after another.
#pragma once

#include <functional>

#include "harness/cli/check_plan.hpp"

namespace atomstress {

// `each` sees every reported outcome; `done` each implementation's summary,
// in plan order (with nothing in flight when it failed, so it may shrink);
// `done` returning false stops the run.  An implementation the backend
// cannot run (gpu_only on cpu) gets a summary of no trials.  `beside`: how
// many other workers run trials now (failures concluded in the background):
// a trial run alone for its verdict shares the GPU with them, so its
// watchdogs grow as they do for fuzz's lanes (ExecutionPolicy::gpu_share).
void run_impls_concurrently(const CheckPlan& plan, size_t jobs,
                            const std::function<void(const Outcome&)>& each,
                            const std::function<bool(const Entry&, ImplSummary&&)>& done,
                            const std::function<size_t()>& beside);

}  // namespace atomstress
