// The fuzz records as JSON and back: one shape for the JSON-lines log, the
// state file and `merge`, which reads shards' logs.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "reports/results.hpp"

namespace atomstress::reports {

nlohmann::json to_json(const RunHeader& h);
nlohmann::json to_json(const ReplayRecord& r);
nlohmann::json to_json(const FuzzSliceRecord& s);
nlohmann::json to_json(const FuzzEntryResult& e);

// Each reads what its to_json wrote; false (with `error`) on a missing or
// mistyped field.
bool from_json(const nlohmann::json& j, RunHeader& h, std::string& error);
bool from_json(const nlohmann::json& j, ReplayRecord& r, std::string& error);
bool from_json(const nlohmann::json& j, FuzzSliceRecord& s, std::string& error);
bool from_json(const nlohmann::json& j, FuzzEntryResult& e, std::string& error);

}  // namespace atomstress::reports
