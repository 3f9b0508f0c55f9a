#include "reports/jsonl.hpp"

#include <nlohmann/json.hpp>

namespace atomstress::reports {

JsonLines::JsonLines(const std::string& path) : path_(path) {
  if (!path_.empty()) f_ = std::fopen(path_.c_str(), "a");
}

JsonLines::~JsonLines() {
  if (f_) std::fclose(f_);
}

void JsonLines::write(const TrialOutcome& t, const std::string& token) {
  if (!f_) return;
  nlohmann::json j;
  j["impl"] = t.spec.impl;
  j["backend"] = to_string(t.backend);
  j["verdict"] = to_string(t.verdict);
  j["why"] = t.why();
  if (!t.finding.ok()) {
    j["finding"] = to_string(t.finding.kind);
    if (t.finding.address >= 0) j["address"] = t.finding.address;
  }
  j["spec"] = describe(t.spec);
  j["token"] = token;
  j["ops"] = t.ops;
  j["run_ms"] = t.run_ms;
  j["check_ms"] = t.check_ms;
  j["total_retries"] = t.total_retries;
  j["max_retries"] = t.max_retries;
  if (t.finding.first_op() >= 0) j["bad_op"] = t.finding.first_op();
  auto hs = nlohmann::json::array();
  for (const auto& h : t.hotspots)
    hs.push_back({{"addr", h.addr}, {"ops", h.ops}, {"retries", h.retries}, {"cycles", h.cycles}});
  j["hotspots"] = hs;
  const std::string line = j.dump() + "\n";
  std::fwrite(line.data(), 1, line.size(), f_);
  std::fflush(f_);
}

}  // namespace atomstress::reports
