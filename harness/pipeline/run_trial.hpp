// The runner: one trial from spec to verdict (expand, run, check), plus the
// contention profile of what it ran.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/check/checker.hpp"
#include "harness/backend/backend.hpp"
#include "harness/trial/spec.hpp"

namespace atomstress {

enum class Verdict : uint8_t { Pass, Fail, Hang, Error };
const char* to_string(Verdict v);

struct Hotspot {
  uint64_t addr = 0;
  uint64_t ops = 0;
  uint64_t retries = 0;
  uint64_t cycles = 0;  // summed over the address's ops (cuda only)
};

struct TrialOutcome {
  TrialSpec spec;
  BackendKind backend = BackendKind::Cpu;
  Verdict verdict = Verdict::Pass;
  std::string why;     // one or two sentences unless Pass
  int64_t bad_op = -1;
  uint64_t ops = 0;
  double run_ms = 0, check_ms = 0;
  uint64_t total_retries = 0;
  uint32_t max_retries = 0;
  std::vector<Hotspot> hotspots;  // the busiest addresses, most cycles (or retries) first
};

// Runs one trial.  Bad input (unknown implementation, impossible geometry,
// an op the backend cannot run) gives Verdict::Error with a one-line `why`.
TrialOutcome run_trial(const TrialSpec& spec, BackendKind backend, const RunOptions& opt,
                       size_t hotspots = 0);

// Picks the backend for "auto": cuda when a device is usable, else cpu.
BackendKind resolve_backend(const std::string& name, std::string& note, std::string& error);

}  // namespace atomstress
