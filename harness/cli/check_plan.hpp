// What `check` and `selftest` share: the options, the plan of trials, and
// running one implementation across patterns, spaces and trials.
#pragma once

#include <boost/program_options.hpp>

#include <functional>
#include <string>
#include <vector>

#include "harness/pipeline/run_trial.hpp"

namespace atomstress {

struct CheckOptions {
  std::string impl, backend = "auto", pattern = "all", space = "all", dist = "mixed", json;
  bool all = false, skip_without_gpu = false, quiet = false;
  uint32_t grid = 0, block = 0, ops_per_thread = 0, k = 0, trials = 2, profile = 0;
  int32_t special = -1;  // per mille; -1: vary by trial
  uint64_t seed = 1;
  RunOptions run;
};

void add_check_options(boost::program_options::options_description& desc, CheckOptions& o);

struct CheckPlan {
  std::vector<const ImplInfo*> impls;
  BackendKind backend = BackendKind::Cpu;
  std::vector<Pattern> patterns;
  std::vector<Space> spaces;
  CheckOptions opt;
  bool auto_geometry = false;  // no --grid/--block/--ops-per-thread given
  std::string note;  // which backend, and why
};

// Resolves names, backend and defaults.  On bad input returns false with a
// one-line `error` ("skip" when --skip-without-gpu found no GPU).
bool make_plan(const CheckOptions& o, const boost::program_options::variables_map& vm, CheckPlan& plan,
               std::string& error);

// The spec of trial t of (impl, pattern, space) under the plan; nullopt
// when the combination does not apply (a block-scope op on shared-across-
// blocks addresses, a pattern that cannot fit in shared memory).
std::optional<TrialSpec> plan_trial(const CheckPlan& plan, const ImplInfo& impl, Pattern p, Space s,
                                    uint32_t t);

struct ImplSummary {
  const ImplInfo* impl = nullptr;
  Verdict verdict = Verdict::Pass;
  uint32_t trials = 0, skipped = 0;
  uint64_t ops = 0, retries = 0;
  uint32_t max_retries = 0;
  double run_ms = 0, check_ms = 0;
  TrialOutcome first_failure;   // valid unless Pass
  TrialOutcome most_contended;  // the trial with the most cycles (or retries)
};

// Runs every planned trial of one implementation, stopping at its first
// failure.  `each` sees every outcome (for the JSON report).
ImplSummary run_impl(const CheckPlan& plan, const ImplInfo& impl,
                     const std::function<void(const TrialOutcome&)>& each);

void print_summary(const CheckPlan& plan, const ImplSummary& s);

}  // namespace atomstress
