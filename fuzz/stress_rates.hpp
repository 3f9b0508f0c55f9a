// Weak-memory bugs' failure rates, with and without stress: a fixed trial
// of each bug (its campaign's shrunk case, or, when the campaign found
// none, a contended trial) run `runs` times without stress, then under each
// candidate stress (the shrunk case's own, and a heavy preset), keeping the
// best; with MC Mutants' reproducibility score.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/backend/backend.hpp"
#include "harness/registry/registry.hpp"

namespace atomstress::fuzz {

struct StressRate {
  const ImplInfo* impl = nullptr;
  TrialSpec trial;               // the fixed trial, unstressed
  bool shrunk = false;           // the trial is the campaign's shrunk case (else contended_trial)
  Stress best;                   // the stress with the most failures (none tried: empty)
  std::string best_source;       // "campaign" or "preset"
  uint32_t runs = 0;             // runs per configuration
  uint32_t unstressed = 0, stressed = 0;  // failures
  uint32_t other = 0;            // runs that hung, crashed or could not run (any configuration)
};

// The fixed trial: one block per SM (4 on the cpu backend) of 64 threads,
// one op each, on one lock (or one flag per thread, one counter).
TrialSpec contended_trial(const ImplInfo& impl, BackendKind backend);
// A heavy stress: twice the SMs' count of hammering blocks on 16 lines a
// cache line apart (store/load), shuffled, behind a 1 ms barrier.
Stress preset_stress(BackendKind backend);

// `shrunk`: the campaign's shrunk case, run as it is (its seed too), with
// and without its stress; none: contended_trial, a seed per run.
StressRate measure_stress_rate(const ImplInfo& impl, const std::optional<TrialSpec>& shrunk, BackendKind backend,
                               const RunOptions& run, uint32_t runs, uint64_t seed);

// MC Mutants' reproducibility score: 1 - e^-x, x the failures expected in
// a rerun of as many runs.
double reproducibility_score(uint32_t failures);

// The table, to stdout.
void print_stress_rates(const std::vector<StressRate>& rows);

}  // namespace atomstress::fuzz
