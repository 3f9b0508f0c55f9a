#include "reports/records_json.hpp"

#include <cmath>
#include <limits>
#include <type_traits>

#include "harness/pipeline/json_fields.hpp"

namespace atomstress::reports {

using nlohmann::json;

json to_json(const RunHeader& h) {
  json opts = json::object();
  for (const auto& [k, v] : h.options) opts[k] = v;
  return {{"timestamp", h.timestamp}, {"version", h.version}, {"git_revision", h.git_revision},
          {"backend", to_string(h.backend)}, {"device", h.device}, {"driver", h.driver},
          {"options", opts}, {"command_line", h.command_line}, {"entries", h.entries}};
}

json to_json(const ReplayRecord& r) {
  return {{"impl", r.impl}, {"token", r.token}, {"spec", r.spec}, {"file", r.file},
          {"backend", to_string(r.backend)}, {"still_failing", r.still_failing},
          {"verdict", to_string(r.verdict)}, {"why", r.why}, {"runs", r.runs}, {"failures", r.failures},
          {"ops", r.ops}, {"class", to_string(r.cls)}};
}

namespace {

// Only where a slice ran beside another: other logs read as before.
void put_paired(json& j, const PairedTime& p) {
  if (p.any()) j["paired"] = {{"seconds", p.seconds}, {"run_s", p.run_s}, {"gpu_s", p.gpu_s}};
}

}  // namespace

json to_json(const FuzzSliceRecord& s) {
  json j = {{"impl", s.impl}, {"backend", to_string(s.backend)}, {"round", s.round}, {"seconds", s.seconds},
          {"run_s", s.run_s}, {"gpu_s", s.gpu_s},
          {"trials", s.trials}, {"ops", s.ops}, {"at_once", s.at_once}, {"verdict", to_string(s.verdict)}, {"why", s.why},
          {"token", s.token}, {"spec", s.spec}, {"time_to_catch_s", s.time_to_catch_s},
          {"rate_failures", s.rate_failures}, {"rate_runs", s.rate_runs}, {"bare_failures", s.bare_failures},
          {"bare_runs", s.bare_runs}, {"flaky", s.flaky}, {"class", to_string(s.cls)}};
  put_paired(j, s.paired);
  return j;
}

json to_json(const FuzzEntryResult& e) {
  json j = {{"impl", e.impl}, {"backend", to_string(e.backend)}, {"verdict", to_string(e.verdict)},
          {"skipped", e.skipped}, {"skip_why", e.skip_why}, {"origin", e.origin}, {"why", e.why},
          {"token", e.token}, {"spec", e.spec}, {"time_to_catch_s", e.time_to_catch_s},
          {"seconds", e.seconds}, {"run_s", e.run_s}, {"gpu_s", e.gpu_s}, {"trials", e.trials}, {"ops", e.ops}, {"rounds", e.rounds},
          {"rate_failures", e.rate_failures}, {"rate_runs", e.rate_runs}, {"bare_failures", e.bare_failures},
          {"bare_runs", e.bare_runs}, {"flaky", e.flaky}, {"class", to_string(e.cls)}};
  put_paired(j, e.paired);
  return j;
}

namespace {

// Counts are whole numbers from 0 (nlohmann would wrap -5 and truncate
// 1e300 into an unsigned), times finite and from 0: anything else is a
// malformed record, never a value.
template <class T>
void get(const json& j, const char* key, T& out, std::string& error) {
  if (!error.empty()) return;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (j.contains(key) && (!j[key].is_number_unsigned() || j[key].get<uint64_t>() > std::numeric_limits<T>::max())) {
      error = std::string("'") + key + "' " + j[key].dump().substr(0, 40) + " is not a whole number from 0 to " +
              std::to_string(std::numeric_limits<T>::max());
      return;
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    if (j.contains(key) && (!j[key].is_number() || !std::isfinite(j[key].get<double>()) || j[key].get<double>() < 0)) {
      error = std::string("'") + key + "' " + j[key].dump().substr(0, 40) + " is not a finite number of seconds";
      return;
    }
  }
  json_fields::read(j, key, out, error);
}
void get_verdict(const json& j, Verdict& out, std::string& error) {
  json_fields::read_enum(j, "verdict", out, parse_verdict, error);
}
void get_backend(const json& j, BackendKind& out, std::string& error) {
  json_fields::read_enum(j, "backend", out, parse_backend, error);
}
// A failure's class: one of check/finding.hpp's names ("none" for none).
// Logs written before classes have none: read as None.
void get_class(const json& j, FailureClass& out, std::string& error) {
  if (j.contains("class")) json_fields::read_enum(j, "class", out, parse_failure_class, error);
}
// What a slice shared with the slice beside it; none in other logs.
void get_paired(const json& j, PairedTime& out, std::string& error) {
  if (!j.contains("paired") || !error.empty()) return;
  const json& p = j["paired"];
  if (!p.is_object()) {
    error = "'paired' is not an object";
    return;
  }
  get(p, "seconds", out.seconds, error);
  get(p, "run_s", out.run_s, error);
  get(p, "gpu_s", out.gpu_s, error);
}

}  // namespace

bool from_json(const json& j, RunHeader& h, std::string& error) {
  get(j, "timestamp", h.timestamp, error);
  get(j, "version", h.version, error);
  get(j, "git_revision", h.git_revision, error);
  get_backend(j, h.backend, error);
  get(j, "device", h.device, error);
  get(j, "driver", h.driver, error);
  get(j, "command_line", h.command_line, error);
  if (error.empty() && j.contains("options") && j["options"].is_object())
    for (const auto& [k, v] : j["options"].items())
      h.options.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
  if (error.empty() && j.contains("entries")) {  // (logs of earlier versions have none)
    const auto& list = j["entries"];
    if (!list.is_array()) error = "'entries' is not a list";
    for (size_t i = 0; error.empty() && i < list.size(); ++i) {
      if (!list[i].is_string() || list[i].get<std::string>().empty()) error = "'entries' holds " + list[i].dump();
      else h.entries.push_back(list[i]);
    }
  }
  return error.empty();
}

bool from_json(const json& j, ReplayRecord& r, std::string& error) {
  get(j, "impl", r.impl, error);
  get(j, "token", r.token, error);
  get(j, "spec", r.spec, error);
  get(j, "file", r.file, error);
  get_backend(j, r.backend, error);
  get(j, "still_failing", r.still_failing, error);
  get_verdict(j, r.verdict, error);
  get(j, "why", r.why, error);
  get(j, "runs", r.runs, error);
  get(j, "failures", r.failures, error);
  if (j.contains("ops")) get(j, "ops", r.ops, error);  // (logs of earlier versions have none)
  get_class(j, r.cls, error);
  return error.empty();
}

bool from_json(const json& j, FuzzSliceRecord& s, std::string& error) {
  get(j, "impl", s.impl, error);
  get_backend(j, s.backend, error);
  get(j, "round", s.round, error);
  get(j, "seconds", s.seconds, error);
  if (j.contains("run_s")) get(j, "run_s", s.run_s, error);  // (logs of earlier versions have none)
  if (j.contains("gpu_s")) get(j, "gpu_s", s.gpu_s, error);
  if (j.contains("at_once")) get(j, "at_once", s.at_once, error);
  get_paired(j, s.paired, error);
  get(j, "trials", s.trials, error);
  get(j, "ops", s.ops, error);
  get_verdict(j, s.verdict, error);
  get(j, "why", s.why, error);
  get(j, "token", s.token, error);
  get(j, "spec", s.spec, error);
  get(j, "time_to_catch_s", s.time_to_catch_s, error);
  get(j, "rate_failures", s.rate_failures, error);
  get(j, "rate_runs", s.rate_runs, error);
  if (j.contains("bare_runs")) {  // (logs written before stress have none)
    get(j, "bare_failures", s.bare_failures, error);
    get(j, "bare_runs", s.bare_runs, error);
  }
  get(j, "flaky", s.flaky, error);
  get_class(j, s.cls, error);
  return error.empty();
}

bool from_json(const json& j, FuzzEntryResult& e, std::string& error) {
  get(j, "impl", e.impl, error);
  get_backend(j, e.backend, error);
  get_verdict(j, e.verdict, error);
  get(j, "skipped", e.skipped, error);
  get(j, "skip_why", e.skip_why, error);
  get(j, "origin", e.origin, error);
  get(j, "why", e.why, error);
  get(j, "token", e.token, error);
  get(j, "spec", e.spec, error);
  get(j, "time_to_catch_s", e.time_to_catch_s, error);
  get(j, "seconds", e.seconds, error);
  if (j.contains("run_s")) get(j, "run_s", e.run_s, error);
  if (j.contains("gpu_s")) get(j, "gpu_s", e.gpu_s, error);
  get_paired(j, e.paired, error);
  get(j, "trials", e.trials, error);
  get(j, "ops", e.ops, error);
  get(j, "rounds", e.rounds, error);
  get(j, "rate_failures", e.rate_failures, error);
  get(j, "rate_runs", e.rate_runs, error);
  if (j.contains("bare_runs")) {
    get(j, "bare_failures", e.bare_failures, error);
    get(j, "bare_runs", e.bare_runs, error);
  }
  get(j, "flaky", e.flaky, error);
  get_class(j, e.cls, error);
  return error.empty();
}

}  // namespace atomstress::reports
