// What the commands report: the records the printers receive.  Small on
// purpose, so that a printer needs no knowledge of how the results were made.
#pragma once

#include <cstdint>
#include <string>

#include "harness/pipeline/run_trial.hpp"

namespace atomstress::reports {

// Once per command, before anything runs.
struct RunInfo {
  std::string command_line;
  BackendKind backend = BackendKind::Cpu;
  std::string device;  // the GPU's name on cuda; "host" on cpu
};

// One implementation's trials under `check`.
struct ImplSummary {
  const ImplInfo* impl = nullptr;
  BackendKind backend = BackendKind::Cpu;
  Verdict verdict = Verdict::Pass;
  uint32_t trials = 0, skipped = 0;
  uint64_t ops = 0, retries = 0;
  uint32_t max_retries = 0;
  double run_ms = 0, check_ms = 0;
  TrialOutcome first_failure;   // valid unless Pass
  TrialOutcome most_contended;  // the trial with the most cycles (or retries)
};

// `repro`: a token rerun `runs` times.
struct ReproSummary {
  TrialSpec spec;
  uint32_t runs = 0, failures = 0;
  uint32_t first_failed_run = 0;  // 1-based; 0 when none failed
  std::string first_why;          // "FAIL: ..." of the first failed run
};

// `selftest`: one bug's property campaign.
struct CampaignRecord {
  const ImplInfo* impl = nullptr;
  BackendKind backend = BackendKind::Cpu;
  bool found = false;
  Verdict verdict = Verdict::Pass;
  std::string why;
  TrialSpec shrunk;  // valid when found
  double time_to_catch_s = 0;
  uint64_t specs = 0;
  uint32_t rate_failures = 0, rate_runs = 0;
  bool flaky = false;
};

}  // namespace atomstress::reports
