// How a command runs a trial: the one seam between the commands (check,
// repro, selftest, the property campaigns of fuzz) and the two ways to run
// one.  RunOptions::policy.isolate: in a supervised worker process
// (run_trial_isolated), so that a hang, trap or fault costs one verdict;
// otherwise in this process (run_trial: for debugging, and for the tests
// that call the pipeline directly).
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "harness/pipeline/run_packed.hpp"
#include "harness/pipeline/run_sequence.hpp"
#include "harness/pipeline/run_trial.hpp"

namespace atomstress {

// In this process, a trial after one that lost the CUDA context (a fault or
// a trap leaves it unusable) is not run: the program stops with one line
// telling the user to run isolated, and exit status 3.  Reports already
// written (JSON lines, corpus cases, the fuzz state) are kept.
Outcome execute_trial(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, size_t hotspots = 0);

// Trials one after another, pipelined (run_sequence.hpp), in a worker or in
// this process as RunOptions::policy.isolate says: `each` gets every outcome in
// order, as execute_trial would give it.
SequenceStats execute_sequence(std::span<const TrialSpec> specs, const SequenceConfig& cfg,
                               const std::function<void(Outcome&&)>& each);

// Many small trials at once, packed into few launches (run_packed.hpp), in
// a worker or in this process as RunOptions::policy.isolate says, then the trials
// the packs could not judge run alone through execute_trial, in order: one
// result per spec.  With `until_failure`, once any result is not a pass
// nothing more runs, and what did not run stays empty (a pack that hung as
// a whole then costs its first trial run alone, not all of them).  `spans`:
// every kernel that ran, the packs' launches and the trials run alone.
std::vector<std::optional<Outcome>> execute_packed(std::span<const TrialSpec> specs, BackendKind backend,
                                                   const RunOptions& opt, uint64_t seed, bool until_failure,
                                                   std::vector<LaunchSpan>* spans = nullptr);

}  // namespace atomstress
