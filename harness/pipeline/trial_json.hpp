// A trial's request and its Outcome as JSON and back: the one serialisation
// of both, which the isolated worker (harness/cli/cmd_worker.cpp) and its
// supervisor (harness/pipeline/isolated.cpp) speak, one object per line, so
// that a trial run in another process comes back whole: verdict, finding
// with every field, ops, times, retries, hotspots.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "harness/kernel/case_phase.hpp"
#include "harness/pipeline/run_packed.hpp"
#include "harness/pipeline/run_trial.hpp"

namespace atomstress {

// What a worker is asked to run: run_trial's arguments.
struct TrialRequest {
  TrialSpec spec;
  BackendKind backend = BackendKind::Cpu;
  RunOptions run;
  uint64_t hotspots = 0;
};

// Packed trials (run_packed.hpp) for a worker: the specs as tokens, one
// answer per spec in order: null (to run alone) or a packed outcome (below).
struct PackRequest {
  std::vector<TrialSpec> specs;
  BackendKind backend = BackendKind::Cuda;
  RunOptions run;
  uint64_t seed = 0;
};
nlohmann::json to_json(const PackRequest& r);
bool from_json(const nlohmann::json& j, PackRequest& r, std::string& error);

// A sequence of trials for a worker (run_sequence.hpp): the worker answers
// {"running": i} and {"ran": i} around each trial's run, {"index": i,
// "outcome": ...} for each outcome in order, then {"done": n, "overlapped_ms": t}.
struct SequenceRequest {
  std::vector<TrialSpec> specs;
  BackendKind backend = BackendKind::Cpu;
  RunOptions run;
  uint64_t hotspots = 0;
  bool until_failure = false;
  bool pipelined = true;
};
nlohmann::json to_json(const SequenceRequest& r);
bool from_json(const nlohmann::json& j, SequenceRequest& r, std::string& error);
// An outcome whose spec, knobs and backend the reader knows (its request
// said them), not its token: a pass is a bare array of five numbers (ops,
// run_ms, check_ms, total_retries, max_retries), anything else an object
// with its finding.
nlohmann::json to_packed_json(const Outcome& o);
bool from_packed_json(const nlohmann::json& j, Outcome& o, std::string& error);
// A pack's launches that ran (the worker's "launches" beside its results):
// [[end_s, ms], ...], each two finite numbers, ms not negative.
nlohmann::json to_json(const std::vector<LaunchSpan>& spans);
bool from_json(const nlohmann::json& j, std::vector<LaunchSpan>& spans, std::string& error);

// A kernel case's phase (kernel/case_phase.hpp), which a worker says as it
// changes while it runs a trial or a sequence's trial:
// {"case_phase": "launch", "entry": "...", "launches": 2}.  A line is one
// when it has "case_phase"; false (with `error`) when it is not, or is malformed.
nlohmann::json to_json(const kernel::PhaseNote& n);
bool phase_from_json(const nlohmann::json& j, kernel::PhaseNote& n, std::string& error);

nlohmann::json to_json(const TrialRequest& r);
nlohmann::json to_json(const Finding& f);
nlohmann::json to_json(const Outcome& o);
nlohmann::json to_json(const RunOptions& o);

// Each reads what its to_json wrote; false (with a one-line `error`) on a
// missing, mistyped or unknown field value.
bool from_json(const nlohmann::json& j, TrialRequest& r, std::string& error);
bool from_json(const nlohmann::json& j, Finding& f, std::string& error);
bool from_json(const nlohmann::json& j, Outcome& o, std::string& error);
bool from_json(const nlohmann::json& j, RunOptions& o, std::string& error);

}  // namespace atomstress
