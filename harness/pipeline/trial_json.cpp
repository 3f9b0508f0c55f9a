#include "harness/pipeline/trial_json.hpp"

#include <algorithm>
#include <cmath>

#include "harness/backend/run_settings.hpp"

#include "harness/pipeline/json_fields.hpp"

namespace atomstress {

using nlohmann::json;

namespace {

using json_fields::read_enum;
template <class T>
void get(const json& j, const char* key, T& out, std::string& error) {
  json_fields::read(j, key, out, error);
}

// The spec travels as its reproduction token (checksummed, every field,
// the knobs it ran with).
void get_spec(const json& j, TrialSpec& spec, TrialKnobs* knobs, std::string& error) {
  std::string token;
  get(j, "token", token, error);
  if (!error.empty()) return;
  if (auto r = decode_repro_token(token, error)) {
    spec = std::move(r->spec);
    if (knobs != nullptr && r->knobs) *knobs = *r->knobs;
  }
}

}  // namespace

json to_json(const kernel::PhaseNote& n) {
  return {{"case_phase", kernel::to_string(n.phase)}, {"entry", n.entry}, {"launches", n.launches}};
}

bool phase_from_json(const json& j, kernel::PhaseNote& n, std::string& error) {
  if (!j.is_object() || !j.contains("case_phase")) {
    error = "not a case phase";
    return false;
  }
  read_enum(j, "case_phase", n.phase, kernel::parse_case_phase, error);
  get(j, "entry", n.entry, error);
  get(j, "launches", n.launches, error);
  return error.empty();
}

json to_json(const TrialRequest& r) {
  return {{"token", encode_token(r.spec, r.run.knobs)}, {"backend", to_string(r.backend)}, {"run", to_json(r.run)},
          {"hotspots", r.hotspots}};
}

namespace {
// Specs as tokens (with the run's knobs), the form every request carries.
json spec_tokens(const std::vector<TrialSpec>& specs, const RunOptions& run) {
  auto tokens = json::array();
  for (const TrialSpec& s : specs) tokens.push_back(encode_token(s, run.knobs));
  return tokens;
}
void read_spec_tokens(const json& j, const char* key, std::vector<TrialSpec>& specs, std::string& error) {
  if (!j.contains(key) || !j[key].is_array()) error = std::string("missing field '") + key + "'";
  specs.clear();
  if (!error.empty()) return;
  for (const json& t : j[key]) {
    get_spec(json{{"token", t}}, specs.emplace_back(), nullptr, error);
    if (!error.empty()) return;
  }
}
void read_backend_and_run(const json& j, BackendKind& backend, RunOptions& run, std::string& error) {
  read_enum(j, "backend", backend, parse_backend, error);
  if (error.empty() && !j.contains("run")) error = "missing field 'run'";
  if (error.empty()) from_json(j["run"], run, error);
}
}  // namespace

json to_json(const PackRequest& r) {
  return {{"pack", spec_tokens(r.specs, r.run)}, {"backend", to_string(r.backend)}, {"run", to_json(r.run)},
          {"seed", r.seed}};
}

bool from_json(const json& j, PackRequest& r, std::string& error) {
  read_spec_tokens(j, "pack", r.specs, error);
  read_backend_and_run(j, r.backend, r.run, error);
  get(j, "seed", r.seed, error);
  return error.empty();
}

json to_json(const SequenceRequest& r) {
  return {{"sequence", spec_tokens(r.specs, r.run)}, {"backend", to_string(r.backend)}, {"run", to_json(r.run)},
          {"hotspots", r.hotspots}, {"until_failure", r.until_failure}, {"pipelined", r.pipelined}};
}

bool from_json(const json& j, SequenceRequest& r, std::string& error) {
  read_spec_tokens(j, "sequence", r.specs, error);
  read_backend_and_run(j, r.backend, r.run, error);
  get(j, "hotspots", r.hotspots, error);
  get(j, "until_failure", r.until_failure, error);
  get(j, "pipelined", r.pipelined, error);
  return error.empty();
}

json to_packed_json(const Outcome& o) {
  // A pack's thousands of passes as bare arrays: keys cost the worker and
  // its supervisor more than the pack's run (docs/speed.md).
  if (o.verdict == Verdict::Pass) return json::array({o.ops, o.run_ms, o.check_ms, o.total_retries, o.max_retries});
  return {{"verdict", to_string(o.verdict)}, {"ops", o.ops}, {"run_ms", o.run_ms}, {"check_ms", o.check_ms},
          {"total_retries", o.total_retries}, {"max_retries", o.max_retries}, {"finding", to_json(o.finding)}};
}

namespace {
// A pass: [ops, run_ms, check_ms, total_retries, max_retries].
bool from_packed_pass(const json& j, Outcome& o, std::string& error) {
  const bool numbers = j.size() == 5 && std::all_of(j.begin(), j.end(), [](const json& v) { return v.is_number(); });
  const bool whole = numbers && j[0].is_number_unsigned() && j[3].is_number_unsigned() && j[4].is_number_unsigned();
  if (!whole) {
    error = "a packed pass is not [ops, run_ms, check_ms, total_retries, max_retries]";
    return false;
  }
  o.verdict = Verdict::Pass;
  o.ops = j[0].get<uint64_t>();
  o.run_ms = j[1].get<double>();
  o.check_ms = j[2].get<double>();
  o.total_retries = j[3].get<decltype(o.total_retries)>();
  o.max_retries = j[4].get<decltype(o.max_retries)>();
  return true;
}
}  // namespace

bool from_packed_json(const json& j, Outcome& o, std::string& error) {
  if (j.is_array()) return from_packed_pass(j, o, error);
  read_enum(j, "verdict", o.verdict, parse_verdict, error);
  get(j, "ops", o.ops, error);
  get(j, "run_ms", o.run_ms, error);
  get(j, "check_ms", o.check_ms, error);
  get(j, "total_retries", o.total_retries, error);
  get(j, "max_retries", o.max_retries, error);
  if (error.empty() && o.verdict != Verdict::Pass) {
    if (!j.contains("finding")) error = "missing field 'finding'";
    else from_json(j["finding"], o.finding, error);
  }
  return error.empty();
}

json to_json(const std::vector<LaunchSpan>& spans) {
  json out = json::array();
  for (const LaunchSpan& s : spans)
    out.push_back(s.own ? json::array({s.end_s, s.ms, 1}) : json::array({s.end_s, s.ms}));
  return out;
}

bool from_json(const json& j, std::vector<LaunchSpan>& spans, std::string& error) {
  spans.clear();
  auto finite = [](const json& v) { return v.is_number() && std::isfinite(v.get<double>()); };
  const bool ok = j.is_array() && std::all_of(j.begin(), j.end(), [&](const json& s) {
    return s.is_array() && (s.size() == 2 || (s.size() == 3 && s[2] == 1)) && finite(s[0]) && finite(s[1]) &&
           s[1].get<double>() >= 0;
  });
  if (!ok) {
    error = "a pack's launches are not [[end_s, ms] or [end_s, ms, 1], ...]";
    return false;
  }
  for (const json& s : j) spans.push_back({s[0].get<double>(), s[1].get<double>(), s.size() == 3});
  return true;
}

json to_json(const Finding& f) {
  json j = {{"kind", to_string(f.kind)}, {"class", to_string(f.cls)}, {"address", f.address}, {"ops", f.ops},
            {"value_kind", vk_name(f.value_kind)}, {"explanation", f.explanation}, {"trace", f.trace},
            {"inference", f.inference}, {"explaining_specs", f.explaining_specs}, {"operands", f.operands}};
  // Absent values stay absent (null), so "no expected value" survives.
  j["expected"] = f.expected ? json(*f.expected) : json();
  j["observed"] = f.observed ? json(*f.observed) : json();
  return j;
}

namespace {
json to_json(const std::vector<BufferExtent>& buffers) {
  auto out = json::array();
  for (const BufferExtent& b : buffers)
    out.push_back({{"name", b.name}, {"data", b.data}, {"bytes", b.bytes}, {"alloc_base", b.alloc_base},
                   {"alloc_bytes", b.alloc_bytes}, {"elem_bytes", b.elem_bytes}});
  return out;
}
void get_buffers(const json& j, std::vector<BufferExtent>& buffers, std::string& error) {
  buffers.clear();
  if (!error.empty() || !j.contains("buffers")) return;  // absent: none (an older worker)
  if (!j["buffers"].is_array()) {
    error = "field 'buffers' is not an array";
    return;
  }
  for (const json& e : j["buffers"]) {
    BufferExtent b;
    get(e, "name", b.name, error);
    get(e, "data", b.data, error);
    get(e, "bytes", b.bytes, error);
    get(e, "alloc_base", b.alloc_base, error);
    get(e, "alloc_bytes", b.alloc_bytes, error);
    get(e, "elem_bytes", b.elem_bytes, error);
    buffers.push_back(std::move(b));
  }
}
}  // namespace

json to_json(const Outcome& o) {
  auto hotspots = json::array();
  for (const Hotspot& h : o.hotspots)
    hotspots.push_back({{"addr", h.addr}, {"ops", h.ops}, {"retries", h.retries}, {"cycles", h.cycles}});
  return {{"token", encode_token(o.spec, o.knobs)}, {"backend", to_string(o.backend)}, {"verdict", to_string(o.verdict)},
          {"finding", to_json(o.finding)}, {"ops", o.ops}, {"run_ms", o.run_ms}, {"run_end_s", o.run_end_s},
          {"check_ms", o.check_ms}, {"checked_on_gpu", o.checked_on_gpu},
          {"device_check_ms", o.device_check_ms}, {"device_check_end_s", o.device_check_end_s},
          {"total_retries", o.total_retries}, {"max_retries", o.max_retries}, {"hotspots", hotspots},
          {"trace_table", o.trace_table}, {"buffers", to_json(o.buffers)}};
}

json to_json(const RunOptions& o) {
  // The run settings as their table spells them; then the pipeline's own choices.
  json j;
  for (const RunSetting& s : run_settings()) {
    const uint64_t v = s.get(o);
    if (s.form == SettingForm::OnOffAuto) j[s.key] = v != 0;
    else if (s.form == SettingForm::Checker) j[s.key] = setting_text(s, v);
    else j[s.key] = v;
  }
  j["bench_reps"] = o.timing.bench_reps;
  j["sequential"] = o.policy.sequential;
  j["trace_rows"] = o.policy.trace_rows;
  j["sanitize"] = to_string(o.policy.sanitize);
  j["gpu_share"] = o.policy.gpu_share;
  return j;
}

bool from_json(const json& j, TrialRequest& r, std::string& error) {
  get_spec(j, r.spec, nullptr, error);
  read_enum(j, "backend", r.backend, parse_backend, error);
  if (error.empty() && !j.contains("run")) error = "missing field 'run'";
  if (error.empty()) from_json(j["run"], r.run, error);
  get(j, "hotspots", r.hotspots, error);
  return error.empty();
}

bool from_json(const json& j, Finding& f, std::string& error) {
  read_enum(j, "kind", f.kind, parse_finding_kind, error);
  read_enum(j, "class", f.cls, parse_failure_class, error);
  get(j, "trace", f.trace, error);
  get(j, "inference", f.inference, error);
  if (j.contains("explaining_specs")) get(j, "explaining_specs", f.explaining_specs, error);  // absent: an older worker
  get(j, "operands", f.operands, error);
  get(j, "address", f.address, error);
  get(j, "ops", f.ops, error);
  read_enum(j, "value_kind", f.value_kind, parse_vk, error);
  get(j, "explanation", f.explanation, error);
  for (auto [key, value] : {std::pair{"expected", &f.expected}, std::pair{"observed", &f.observed}}) {
    if (!error.empty()) break;
    if (!j.contains(key) || j[key].is_null()) {
      value->reset();
      continue;
    }
    uint64_t bits = 0;
    get(j, key, bits, error);
    *value = bits;
  }
  return error.empty();
}

bool from_json(const json& j, Outcome& o, std::string& error) {
  get_spec(j, o.spec, &o.knobs, error);
  read_enum(j, "backend", o.backend, parse_backend, error);
  read_enum(j, "verdict", o.verdict, parse_verdict, error);
  if (error.empty()) {
    if (!j.contains("finding")) error = "missing field 'finding'";
    else from_json(j["finding"], o.finding, error);
  }
  get(j, "ops", o.ops, error);
  get(j, "run_ms", o.run_ms, error);
  if (j.contains("run_end_s")) get(j, "run_end_s", o.run_end_s, error);
  get(j, "check_ms", o.check_ms, error);
  get(j, "checked_on_gpu", o.checked_on_gpu, error);
  if (j.contains("device_check_ms")) get(j, "device_check_ms", o.device_check_ms, error);
  if (j.contains("device_check_end_s")) get(j, "device_check_end_s", o.device_check_end_s, error);
  get(j, "total_retries", o.total_retries, error);
  get(j, "max_retries", o.max_retries, error);
  get(j, "trace_table", o.trace_table, error);
  get_buffers(j, o.buffers, error);
  o.hotspots.clear();
  if (error.empty() && !(j.contains("hotspots") && j["hotspots"].is_array())) error = "missing field 'hotspots'";
  if (error.empty()) {
    for (const json& h : j["hotspots"]) {
      Hotspot x;
      get(h, "addr", x.addr, error);
      get(h, "ops", x.ops, error);
      get(h, "retries", x.retries, error);
      get(h, "cycles", x.cycles, error);
      o.hotspots.push_back(x);
    }
  }
  return error.empty();
}

bool from_json(const json& j, RunOptions& o, std::string& error) {
  for (const RunSetting& s : run_settings()) {
    uint64_t v = s.get(o);
    if (s.form == SettingForm::OnOffAuto) {
      bool on = v != 0;
      get(j, s.key, on, error);
      v = on;
    } else if (s.form == SettingForm::Checker) {
      CheckerKind c = CheckerKind(v);
      read_enum(j, s.key, c, parse_checker, error);
      v = uint64_t(c);
    } else {
      get(j, s.key, v, error);
    }
    s.set(o, v);
  }
  get(j, "bench_reps", o.timing.bench_reps, error);
  get(j, "sequential", o.policy.sequential, error);
  get(j, "trace_rows", o.policy.trace_rows, error);
  if (j.contains("sanitize")) read_enum(j, "sanitize", o.policy.sanitize, parse_sanitize_tool, error);
  if (j.contains("gpu_share")) get(j, "gpu_share", o.policy.gpu_share, error);
  return error.empty();
}

}  // namespace atomstress
