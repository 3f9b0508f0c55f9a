// profile's baselines as the backend offers them to the pipeline: the bare
// kernel a person would write for an entry's operation (plain atomicAdd, the
// textbook atomicCAS loop), timed on a workload's own addresses and
// operands.  The cuda backend implements it (cuda/bare_kernels.cu).
#pragma once

#include <cstdint>
#include <string>

#include "harness/registry/registry.hpp"
#include "harness/trial/spec.hpp"
#include "harness/workload/workload.hpp"

namespace atomstress {

// Whether a bare kernel of `impl`'s operation exists for this spec.
bool has_bare_kernel(const Entry& impl, const TrialSpec& spec);
// Times `reps` launches of the bare kernel (plus a warm-up) on `w`'s
// addresses and operands, L2 flushed before each when `cold`.
bool time_bare_kernel(const Workload& w, uint32_t reps, uint64_t watchdog_ms, bool cold, double& s_per_launch,
                      std::string& error);

}  // namespace atomstress
