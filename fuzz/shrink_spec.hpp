// Shrinking a failing TrialSpec that was not generated: check's failures and
// `repro --shrink`.  The campaigns shrink through their generator; a spec
// given as a token has no generation history, so its candidates come from
// the spec itself: each field moved towards the value the generators shrink
// to (one block of one thread, one op, one address, global memory, zero
// initial values, no specials, seed 0), by RapidCheck's own integer shrinks,
// and the search is RapidCheck's local-minimum walk.  A candidate counts as
// failing when any of `reruns` runs fails with the same verdict; the result
// is the smallest accepted case whose failure recurs in `rate_runs` reruns
// (a race that failed once in a tiny case is not what a repro line needs).
#pragma once

#include <cstdint>
#include <string>

#include "properties/properties.hpp"
#include "reports/results.hpp"

namespace atomstress::fuzz {

struct ShrinkConfig {
  BackendKind backend = BackendKind::Cpu;
  RunOptions run;
  uint32_t reruns = 3;       // runs per candidate
  uint32_t rate_runs = 10;   // reruns of the result, for its failure rate
  double max_seconds = 60;   // the walk stops here (the best case so far is kept); the rate may take as long again
};


// `failing` must have failed with `verdict` (a Fail, Hang or Crash).  The
// result's knobs are left for the caller (the options it ran with).
reports::ShrunkCase shrink_spec(const TrialSpec& failing, Verdict verdict, const std::string& why, const ShrinkConfig& cfg);

}  // namespace atomstress::fuzz
