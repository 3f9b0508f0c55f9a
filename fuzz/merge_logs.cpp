#include "fuzz/merge_logs.hpp"

#include <fstream>

#include <nlohmann/json.hpp>

#include "fuzz/aggregate.hpp"
#include "fuzz/records_json.hpp"

namespace atomstress::fuzz {

bool read_fuzz_log(const std::string& path, MergedLogs& m, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read '" + path + "'";
    return false;
  }
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    const bool last_unterminated = in.eof();  // a writer killed mid-line: its record never counted
    auto j = nlohmann::json::parse(line, nullptr, false);
    std::string why;
    if (j.is_discarded() || !j.is_object() || !j.contains("record") || !j["record"].is_string()) {
      if (last_unterminated) break;
      error = path + ":" + std::to_string(n) + ": not a fuzz record";
      return false;
    }
    const std::string kind = j["record"];
    if (kind == "run") {
      reports::FuzzHeader h;
      if (from_json(j, h, why) && !m.header) m.header = h;
    } else if (kind == "slice") {
      reports::FuzzSliceRecord s;
      if (from_json(j, s, why)) {
        add_slice(m.entries[s.impl], s);
        m.trials += s.trials;
        m.ops += s.ops;
      }
    } else if (kind == "replay") {
      reports::ReplayRecord r;
      if (from_json(j, r, why)) add_replay(m.entries[r.impl], r);
    } else if (kind == "entry") {
      // An entry with no slice (skipped) is known from its result line only.
      reports::FuzzEntryResult e;
      if (from_json(j, e, why) && e.skipped && !m.entries.count(e.impl)) m.entries[e.impl] = e;
    }
    if (!why.empty()) {
      error = path + ":" + std::to_string(n) + ": " + why;
      return false;
    }
  }
  return true;
}

}  // namespace atomstress::fuzz
