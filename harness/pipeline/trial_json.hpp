// A trial's request and its Outcome as JSON and back: the one serialisation
// of both, which the isolated worker (harness/cli/cmd_worker.cpp) and its
// supervisor (harness/pipeline/isolated.cpp) speak, one object per line, so
// that a trial run in another process comes back whole: verdict, finding
// with every field, ops, times, retries, hotspots.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "harness/pipeline/run_trial.hpp"

namespace atomstress {

// What a worker is asked to run: run_trial's arguments.
struct TrialRequest {
  TrialSpec spec;
  BackendKind backend = BackendKind::Cpu;
  RunOptions run;
  uint64_t hotspots = 0;
};

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
