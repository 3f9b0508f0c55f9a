#include "fuzz/state.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "fuzz/at_once_ramp.hpp"
#include "harness/support/safe_path.hpp"
#include "harness/support/timestamp.hpp"
#include "reports/records_json.hpp"

namespace atomstress::fuzz {

namespace {

constexpr double kMaxBudget = 168 * 3600.0;  // as --time
// A state is a few KiB per entry and holds the run's own arguments: far
// larger ones are refused before they are parsed (a padded file, 64k args).
constexpr uint64_t kMaxStateBytes = 64ull << 20;
constexpr size_t kMaxStateArgs = 4096;

// The text as JSON; a parse error said as "not valid JSON at byte N".
nlohmann::json parse_state_json(const std::string& text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error("not valid JSON (at byte " + std::to_string(e.byte) + ")");
  }
}

// Never through a link, never a FIFO (it would block), never more than a state can be.
bool read_state_text(const std::string& path, std::string& text, std::string& error) {
  std::string why;
  if (!something_at(path)) {
    error = "cannot read state file '" + path + "': " + std::strerror(ENOENT) + " (nothing to resume)";
    return false;
  }
  if (!read_own_file(path, kMaxStateBytes, text, why)) {
    error = "cannot use state file: " + why;
    return false;
  }
  return true;
}

// nlohmann's "[json.exception.out_of_range.403] key 'seed' not found" in our words.
std::string missing_field(const std::string& what) {
  const auto at = what.find("key '");
  if (at == std::string::npos) return "a field is missing";
  const auto end = what.find('\'', at + 5);
  return "missing field '" + what.substr(at + 5, end - at - 5) + "'";
}

// Each field checked like its command-line value: a one-line reason thrown.
template <class T>
T unsigned_field(const nlohmann::json& j, const char* key, uint64_t max) {
  const auto& v = j.at(key);
  if (!v.is_number_unsigned() || v.get<uint64_t>() > max)
    throw std::runtime_error(std::string(key) + " " + v.dump() + " is not a whole number from 0 to " +
                             std::to_string(max));
  return T(v.get<uint64_t>());
}
double seconds_field(const nlohmann::json& j, const char* key, double lo, double hi, bool lo_open) {
  const auto& v = j.at(key);
  const double d = v.is_number() ? v.get<double>() : NAN;
  if (!v.is_number() || !std::isfinite(d) || d < lo || (lo_open && d == lo) || d > hi) {
    throw std::runtime_error(fmt::format("{} {} is out of range ({} {:g}, at most {:g})", key, v.dump(),
                                         lo_open ? "more than" : "from", lo, hi));
  }
  return d;
}
bool bool_field(const nlohmann::json& j, const char* key) {
  const auto& v = j.at(key);
  if (!v.is_boolean()) throw std::runtime_error(std::string(key) + " " + v.dump() + " is not true or false");
  return v.get<bool>();
}

// The optional fields, each checked (a one-line reason thrown).
void read_plan(const nlohmann::json& j, FuzzState& s) {
  if (!j.contains("plan")) return;
  const auto& plan = j.at("plan");
  if (!plan.is_array()) throw std::runtime_error("plan is not a list");
  for (const auto& position : plan) {
    if (!position.is_array() || position.empty() || position.size() > 2)
      throw std::runtime_error("plan holds " + position.dump() + ", not a list of one or two entries");
    s.plan.emplace_back();
    for (const auto& i : position) {
      if (!i.is_number_unsigned() || i.get<uint64_t>() >= 1'000'000)
        throw std::runtime_error("plan holds " + i.dump() + ", not an entry's index");
      s.plan.back().push_back(i.get<size_t>());
    }
  }
}
void read_at_once_next(const nlohmann::json& j, FuzzState& s) {
  if (!j.contains("at_once_next")) return;
  const auto& widths = j.at("at_once_next");
  if (!widths.is_object()) throw std::runtime_error("at_once_next is not an object");
  for (const auto& [name, w] : widths.items()) {
    if (!w.is_number_unsigned() || w.get<uint64_t>() == 0 || w.get<uint64_t>() > kMostTrialsAtOnce)
      throw std::runtime_error("at_once_next holds " + w.dump() + " for '" + name + "', not a number of trials from 1 to " +
                               std::to_string(kMostTrialsAtOnce));
    s.at_once_next[name] = w.get<uint32_t>();
  }
}
void read_replayed_cases(const nlohmann::json& j, FuzzState& s) {
  if (!j.contains("replayed_cases")) return;
  const auto& cases = j.at("replayed_cases");
  if (!cases.is_array()) throw std::runtime_error("replayed_cases is not a list");
  for (const auto& c : cases) {
    std::string why;
    if (!c.is_string() || !is_plain_file_name(c.get<std::string>(), why))
      throw std::runtime_error("replayed_cases holds " + c.dump().substr(0, 80) + ", not a case file's name");
    s.replayed_cases.push_back(c.get<std::string>());
  }
}

}  // namespace

bool save_state(const std::string& path, const FuzzState& s, std::string& error) {
  nlohmann::json j = {{"format", "atomstress-fuzz-state-1"}, {"args", s.args}, {"seed", s.seed},
                      {"budget_s", s.budget_s}, {"elapsed_s", s.elapsed_s}, {"round", s.round},
                      {"next", s.next}, {"replayed", s.replayed}, {"finished", s.finished}};
  if (!s.plan.empty()) j["plan"] = s.plan;  // (a run one slice at a time has none)
  if (!s.at_once_next.empty()) j["at_once_next"] = s.at_once_next;  // (nor one of fixed widths)
  if (!s.replayed_cases.empty()) j["replayed_cases"] = s.replayed_cases;  // (only while the corpus replays)
  auto entries = nlohmann::json::array();
  for (const auto& [name, e] : s.entries) entries.push_back(to_json(e));
  j["entries"] = entries;
  return write_own_file(path, j.dump(1) + "\n", error);
}

std::optional<FuzzState> load_state(const std::string& path, std::string& error) {
  std::string text;
  if (!read_state_text(path, text, error)) return std::nullopt;
  FuzzState s;
  try {
    const auto j = parse_state_json(text);
    if (!j.is_object()) throw std::runtime_error("not a JSON object");
    if (j.at("format") != "atomstress-fuzz-state-1") throw std::runtime_error("unknown format");
    const auto& args = j.at("args");
    if (!args.is_array() || args.empty())
      throw std::runtime_error("args " + args.dump().substr(0, 80) + " is not the run's arguments (a non-empty list)");
    if (args.size() > kMaxStateArgs)
      throw std::runtime_error("args holds " + std::to_string(args.size()) + " arguments, more than a run's " +
                               std::to_string(kMaxStateArgs));
    for (const auto& a : args)
      if (!a.is_string()) throw std::runtime_error("args holds " + a.dump() + ", not a string");
    args.get_to(s.args);
    s.seed = unsigned_field<uint64_t>(j, "seed", ~0ull);
    s.budget_s = seconds_field(j, "budget_s", 0, kMaxBudget, true);
    // Spent may pass the budget by the last slice's overrun, not more.
    s.elapsed_s = seconds_field(j, "elapsed_s", 0, 2 * s.budget_s + 3600, false);
    s.round = unsigned_field<uint32_t>(j, "round", 1'000'000'000);
    s.next = unsigned_field<size_t>(j, "next", 1'000'000);
    s.replayed = bool_field(j, "replayed");
    s.finished = bool_field(j, "finished");
    read_plan(j, s);
    read_at_once_next(j, s);
    read_replayed_cases(j, s);
    const auto& entries = j.at("entries");
    if (!entries.is_array()) throw std::runtime_error("entries is not a list");
    for (const auto& je : entries) {
      reports::FuzzEntryResult e;
      std::string why;
      if (!from_json(je, e, why)) throw std::runtime_error(why);
      if (e.impl.empty()) throw std::runtime_error("an entry without a name");
      if (e.rate_failures > e.rate_runs)
        throw std::runtime_error(e.impl + ": rate_failures " + std::to_string(e.rate_failures) + " exceed rate_runs " +
                                 std::to_string(e.rate_runs));
      if (!s.entries.emplace(e.impl, e).second) throw std::runtime_error("entry '" + e.impl + "' twice");
    }
  } catch (const nlohmann::json::out_of_range& e) {
    error = "malformed state file '" + path + "': " + missing_field(e.what());
    return std::nullopt;
  } catch (const nlohmann::json::type_error&) {
    error = "malformed state file '" + path + "': a field holds a value of the wrong type";
    return std::nullopt;
  } catch (const std::exception& e) {
    error = "malformed state file '" + path + "': " + e.what();
    return std::nullopt;
  }
  return s;
}

RunLock::~RunLock() {
  if (fd_ >= 0) {
    ::unlink(path_.c_str());  // while held: no one else can be between open and flock on this file
    ::close(fd_);
  }
}

bool RunLock::acquire(const std::string& state_path, const std::string& who, std::string& error) {
  path_ = state_path + ".lock";
  for (int attempt = 0; attempt < 10; ++attempt) {
    // Never through a link nor a second name: the lock is truncated and unlinked.
    std::string why;
    const int fd = open_own_file_to_update(path_, why);
    if (fd < 0) {
      error = "cannot lock '" + state_path + "': " + why;
      return false;
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      std::string holder;
      char buf[512];
      const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
      if (n > 0) holder.assign(buf, size_t(n));
      while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\r')) holder.pop_back();
      ::close(fd);
      if (e == EWOULDBLOCK) {
        error = "'" + state_path + "' is in use by another fuzz run (" + (holder.empty() ? "holder unknown" : holder) +
                "): one run at a time per corpus and state file (lock '" + path_ + "')";
      } else {
        error = "cannot lock '" + path_ + "': " + std::strerror(e);
      }
      return false;
    }
    // The holder before us may have unlinked the file it locked: lock the one that is there.
    struct stat a{}, b{};
    if (::fstat(fd, &a) != 0 || ::stat(path_.c_str(), &b) != 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
      ::close(fd);
      continue;
    }
    const std::string text = who + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, text.data(), text.size(), 0) != ssize_t(text.size())) {
      // The lock holds without its note.
    }
    fd_ = fd;
    return true;
  }
  error = "cannot lock '" + path_ + "': it keeps changing";
  return false;
}

}  // namespace atomstress::fuzz
