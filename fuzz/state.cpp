#include "fuzz/state.hpp"

#include <fstream>

#include "fuzz/atomic_file.hpp"
#include "fuzz/records_json.hpp"

namespace atomstress::fuzz {

bool save_state(const std::string& path, const FuzzState& s, std::string& error) {
  nlohmann::json j = {{"format", "atomstress-fuzz-state-1"}, {"args", s.args}, {"seed", s.seed},
                      {"budget_s", s.budget_s}, {"elapsed_s", s.elapsed_s}, {"round", s.round},
                      {"next", s.next}, {"replayed", s.replayed}, {"finished", s.finished}};
  auto entries = nlohmann::json::array();
  for (const auto& [name, e] : s.entries) entries.push_back(to_json(e));
  j["entries"] = entries;
  return write_file_atomically(path, j.dump(1) + "\n", error);
}

std::optional<FuzzState> load_state(const std::string& path, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot read state file '" + path + "' (nothing to resume)";
    return std::nullopt;
  }
  FuzzState s;
  try {
    const auto j = nlohmann::json::parse(in);
    if (j.at("format") != "atomstress-fuzz-state-1") throw std::runtime_error("unknown format");
    j.at("args").get_to(s.args);
    j.at("seed").get_to(s.seed);
    j.at("budget_s").get_to(s.budget_s);
    j.at("elapsed_s").get_to(s.elapsed_s);
    j.at("round").get_to(s.round);
    j.at("next").get_to(s.next);
    j.at("replayed").get_to(s.replayed);
    j.at("finished").get_to(s.finished);
    for (const auto& je : j.at("entries")) {
      reports::FuzzEntryResult e;
      std::string why;
      if (!from_json(je, e, why)) throw std::runtime_error(why);
      s.entries[e.impl] = e;
    }
  } catch (const std::exception& e) {
    error = "malformed state file '" + path + "': " + e.what();
    return std::nullopt;
  }
  return s;
}

}  // namespace atomstress::fuzz
