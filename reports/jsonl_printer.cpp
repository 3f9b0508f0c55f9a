#include "reports/jsonl_printer.hpp"

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

namespace atomstress::reports {

JsonlPrinter::JsonlPrinter(const std::string& path) : path_(path) {
  // "a+" so the last byte can be read: appending after a line without its
  // newline would glue the first record onto it.
  f_ = std::fopen(path_.c_str(), "a+");
  if (!f_) f_ = std::fopen(path_.c_str(), "a");  // e.g. a write-only device
  if (f_ && std::fseek(f_, -1, SEEK_END) == 0) {
    const int last = std::fgetc(f_);
    fresh_line_needed_ = last != EOF && last != '\n';
  }
  if (f_) std::clearerr(f_);
}

JsonlPrinter::~JsonlPrinter() {
  if (f_) std::fclose(f_);
}

void JsonlPrinter::write_line(const std::string& json) {
  if (!f_ || !error_.empty()) return;
  const std::string line = (fresh_line_needed_ ? "\n" : "") + json + "\n";
  errno = 0;
  if (std::fwrite(line.data(), 1, line.size(), f_) != line.size() || std::fflush(f_) != 0) {
    error_ = "cannot write '" + path_ + "'" + (errno ? std::string(": ") + std::strerror(errno) : "");
    return;
  }
  fresh_line_needed_ = false;
}

namespace {
// The finding as data (kind, address, ops, values as bits and in words),
// beside the explanation in "why".
nlohmann::json finding_json(const Finding& f) {
  nlohmann::json j;
  j["kind"] = to_string(f.kind);
  if (f.cls != FailureClass::None) j["class"] = to_string(f.cls);
  if (!f.operands.empty()) j["operands"] = f.operands;
  if (!f.trace.empty()) j["trace"] = f.trace;
  if (!f.inference.empty()) j["inference"] = f.inference;
  if (f.address >= 0) j["address"] = f.address;
  if (!f.ops.empty()) j["ops"] = f.ops;
  j["value_kind"] = vk_name(f.value_kind);
  if (f.expected) j["expected"] = {{"bits", *f.expected}, {"value", format_value(f.value_kind, *f.expected)}};
  if (f.observed) j["observed"] = {{"bits", *f.observed}, {"value", format_value(f.value_kind, *f.observed)}};
  return j;
}
}  // namespace

void JsonlPrinter::trial(const TrialOutcome& t) {
  if (t.verdict == Verdict::Error) return;  // bad input is reported on stderr, not recorded
  nlohmann::json j;
  j["impl"] = t.spec.impl;
  j["backend"] = to_string(t.backend);
  j["verdict"] = to_string(t.verdict);
  j["why"] = t.why();
  if (t.finding.cls != FailureClass::None) j["class"] = to_string(t.finding.cls);
  if (!t.finding.ok()) j["finding"] = finding_json(t.finding);
  j["spec"] = describe(t.spec);
  j["token"] = encode_token(t.spec, t.knobs);
  j["ops"] = t.ops;
  j["run_ms"] = t.run_ms;
  j["check_ms"] = t.check_ms;
  j["checker"] = t.checked_on_gpu ? "gpu" : "cpu";
  j["total_retries"] = t.total_retries;
  j["max_retries"] = t.max_retries;
  if (t.finding.first_op() >= 0) j["bad_op"] = t.finding.first_op();
  auto hs = nlohmann::json::array();
  for (const auto& h : t.hotspots)
    hs.push_back({{"addr", h.addr}, {"ops", h.ops}, {"retries", h.retries}, {"cycles", h.cycles}});
  j["hotspots"] = hs;
  write_line(j.dump());
}

void JsonlPrinter::campaign(const CampaignRecord& c) {
  if (!c.found) return;  // as before: one line per caught bug
  nlohmann::json j;
  j["impl"] = c.impl->name;
  j["backend"] = to_string(c.backend);
  j["verdict"] = to_string(c.verdict);
  j["why"] = c.why;
  j["spec"] = describe(c.shrunk);
  j["token"] = encode_token(c.shrunk, c.knobs);
  j["ops"] = c.shrunk.ops();
  j["class"] = to_string(c.cls);
  j["time_to_catch_s"] = c.time_to_catch_s;
  j["specs"] = c.specs;
  j["rate_failures"] = c.rate_failures;
  j["rate_runs"] = c.rate_runs;
  j["flaky"] = c.flaky;
  write_line(j.dump());
}

void JsonlPrinter::impl_summary(const ImplSummary& s) {
  if (!s.shrunk) return;  // the trials' own lines say the rest
  const ShrunkCase& c = *s.shrunk;
  nlohmann::json j;
  j["record"] = "shrunk";
  j["impl"] = s.impl->name;
  j["backend"] = to_string(s.backend);
  j["verdict"] = to_string(s.verdict);
  j["why"] = c.why;
  j["class"] = to_string(c.diagnosis.cls);
  if (!c.diagnosis.trace.empty()) j["trace"] = c.diagnosis.trace;
  if (!c.diagnosis.inference.empty()) j["inference"] = c.diagnosis.inference;
  j["first_token"] = encode_token(s.first_failure.spec, s.first_failure.knobs);
  j["spec"] = describe(c.spec);
  j["token"] = encode_token(c.spec, c.knobs);
  j["ops"] = c.spec.ops();
  j["rate_failures"] = c.rate_failures;
  j["rate_runs"] = c.rate_runs;
  j["candidates"] = c.candidates;
  j["shrink_s"] = c.seconds;
  write_line(j.dump());
}

bool JsonlPrinter::finish() {
  if (f_ && error_.empty() && (std::fflush(f_) != 0 || std::ferror(f_)))
    error_ = "cannot write '" + path_ + "'" + (errno ? std::string(": ") + std::strerror(errno) : "");
  return error_.empty();
}

}  // namespace atomstress::reports
