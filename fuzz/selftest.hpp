// The selftest campaign, configured by the command line (harness/cli/
// cmd_selftest.cpp) and reporting each bug's campaign through a printer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "harness/backend/backend.hpp"
#include "reports/printer.hpp"

namespace atomstress::fuzz {

struct SelftestConfig {
  BackendKind backend = BackendKind::Cpu;
  std::string bugs = "buggy";  // glob of the deliberately wrong implementations
  double budget_s = 2;         // search time per bug
  uint64_t correct_specs = 300, algo_specs = 300;
  uint32_t rate_runs = 20, reruns = 2;
  bool rates_for_every_bug = false;  // else only the weak-memory and rate-only bugs' rates are measured
  uint64_t seed = 1;
  RunOptions run;
};

// Why a deliberately wrong entry is not counted in the mutation score on
// this backend (a bug only a GPU shows, on the cpu backend; a bug only a
// compute-sanitizer tool sees: selftest runs none), or nullopt.
std::optional<std::string> not_counted_reason(const Entry& bug, BackendKind backend);

// Runs the campaign; 0 when every bug was caught and nothing correct failed,
// 1 otherwise, 2 on bad input (one line on stderr).
int run_selftest(const SelftestConfig& cfg, reports::Printer& printer);

}  // namespace atomstress::fuzz
