// The fuzz records as JSON and back: one shape for the JSON-lines log, the
// state file and `merge`, which reads shards' logs.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "reports/results.hpp"

namespace atomstress::fuzz {

nlohmann::json to_json(const reports::FuzzHeader& h);
nlohmann::json to_json(const reports::ReplayRecord& r);
nlohmann::json to_json(const reports::FuzzSliceRecord& s);
nlohmann::json to_json(const reports::FuzzEntryResult& e);

// Each reads what its to_json wrote; false (with `error`) on a missing or
// mistyped field.
bool from_json(const nlohmann::json& j, reports::FuzzHeader& h, std::string& error);
bool from_json(const nlohmann::json& j, reports::ReplayRecord& r, std::string& error);
bool from_json(const nlohmann::json& j, reports::FuzzSliceRecord& s, std::string& error);
bool from_json(const nlohmann::json& j, reports::FuzzEntryResult& e, std::string& error);

}  // namespace atomstress::fuzz
