// Weak-memory bugs' failure rates, with and without stress (issue 16): a
// fixed trial of each bug (its campaign's shrunk case, or, when the
// campaign found none, a contended trial) run under the best stress a small
// search finds and without stress, with MC Mutants' reproducibility score
// and the target (>= 50% per run stressed, or >= 10x the unstressed
// rate).
//
// The search: the candidates are the shrunk case's own stress (when it has
// one) and stress_presets(); each is screened with a quarter of the runs
// (at least 2), the best two by that screening get the full `runs`, and
// the better of those two is the best stress.  The unstressed rate starts
// with `runs` runs and goes on, up to 10 x `runs` and a few seconds, while
// more passing runs could still decide a ">= 10x" claim: against 0 of 20
// a ratio means nothing, against 0 of 200 it does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/backend/backend.hpp"
#include "harness/registry/registry.hpp"

namespace atomstress::fuzz {

struct StressRate {
  const Entry* impl = nullptr;
  TrialSpec trial;               // the fixed trial, unstressed
  bool shrunk = false;           // the trial is the campaign's shrunk case (else contended_trial)
  Stress best;                   // the best stress found (the first tried when none failed)
  std::string best_source;       // "campaign" or "preset NAME"
  uint32_t candidates = 0;       // stresses in the search
  uint32_t screened = 0;         // ... screened before its time cap (at least one)
  uint32_t runs = 0;             // runs under the best stress
  uint32_t stressed = 0;         // failures under the best stress, of `runs`
  uint32_t unstressed = 0, unstressed_runs = 0;  // failures without stress, of unstressed_runs (>= runs)
  uint32_t other = 0;            // runs that hung, crashed or could not run (any configuration)
};

// The fixed trial: one block per SM (4 on the cpu backend) of 64 threads,
// one op each, on one lock (or one flag per thread, one counter).
TrialSpec contended_trial(const Entry& impl, BackendKind backend);

// The search's presets, each valid (validate_stress) and named: extra
// blocks at once and twice the SM count (4 and 8 on the cpu backend),
// scratchpads of 1, 4, 16 and 64 lines at strides of a word, a 128-byte
// line and a 4 KiB page, all four access pairs, shuffle on and off,
// barriers of 100 us and 1 ms, bank conflicts, and one with no extra blocks
// at all (scheduling only).  The first is the heavy preset selftest used
// alone before.
struct NamedStress {
  const char* name;
  Stress stress;
};
std::vector<NamedStress> stress_presets(BackendKind backend);

// `shrunk`: the campaign's shrunk case, run as it is (its seed too), with
// and without stress; none: contended_trial, a seed per run.
StressRate measure_stress_rate(const Entry& impl, const std::optional<TrialSpec>& shrunk, BackendKind backend,
                               const RunOptions& run, uint32_t runs, uint64_t seed);

// MC Mutants' reproducibility score: 1 - e^-x, x the failures expected in
// a rerun of as many runs.
double reproducibility_score(double failures);

// A one-sided 95% upper bound on a failure rate seen `failures` times in
// `runs` runs (Clopper-Pearson: the rate p at which so few failures have a
// 5% chance).  With no failure it is 1 - 0.05^(1/runs), about 3/runs (the
// rule of three); 1 when runs is 0.
double rate_upper_bound(uint32_t failures, uint32_t runs);

// The target for one bug: the stressed rate is at least 50%, or at
// least 10 times the unstressed rate's 95% upper bound.
enum class Target { Half, TenFold, NotMet };
Target target_of(uint32_t stressed, uint32_t runs, uint32_t unstressed, uint32_t unstressed_runs);
const char* to_string(Target t);  // "met: >=50%", "met: >=10x", "not met"

// Whether another unstressed run is worth making: fewer than `max_runs` so
// far, ">= 10x" not met yet, and met if every run up to `max_runs` passed.
bool more_unstressed_runs_help(uint32_t stressed, uint32_t runs, uint32_t unstressed, uint32_t unstressed_runs,
                               uint32_t max_runs);

// The table, as lines for the terminal.
std::vector<std::string> stress_rate_lines(const std::vector<StressRate>& rows);

}  // namespace atomstress::fuzz
