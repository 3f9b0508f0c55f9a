// A kernel failure that passes alone (one block of one thread) is not yet a
// race: that replay changes the case.  So the failing case is rerun at other
// block sizes (non-powers of two and non-multiples of 32 among them) and
// again at its own geometry, and the diagnosis says what was seen: which
// geometries fail, and whether the wrong output is the same every run
// (deterministic: a logic bug, class semantics) or varies (a race, class
// atomicity).  A lost update is claimed only where the runs vary.
#pragma once

#include <cstdint>
#include <vector>

#include "harness/backend/backend.hpp"
#include "harness/check/finding.hpp"
#include "harness/pipeline/run_trial.hpp"

namespace atomstress {

struct GeometryReruns {
  std::vector<uint32_t> failing_blocks, passing_blocks;  // the failing case at other block sizes
  uint32_t runs = 0;      // reruns at the failing case's own geometry
  uint32_t failed = 0;    // ... that failed
  uint32_t distinct = 0;  // ... distinct failures among them (explanations, values included)
};

// The block sizes tried, in order.
const std::vector<uint32_t>& rerun_blocks();
inline constexpr uint32_t kGeometryReruns = 10;

GeometryReruns rerun_across_geometries(const TrialSpec& failing, BackendKind backend, const RunOptions& opt);

// The class and the words (pure: tested on recorded reruns).
void tell_geometry_reruns(const GeometryReruns& g, const TrialSpec& failing, Diagnosis& d);

}  // namespace atomstress
