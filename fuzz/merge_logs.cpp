#include "fuzz/merge_logs.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "fuzz/aggregate.hpp"
#include "reports/records_json.hpp"
#include "harness/registry/registry.hpp"
#include "harness/support/safe_path.hpp"
#include "harness/trial/token.hpp"

namespace atomstress::fuzz {

namespace {

constexpr uint64_t kMaxOpsPerTrial = 1ull << 28;  // validate()'s limit on a trial

std::string option(const reports::RunHeader& h, const std::string& key) {
  for (const auto& [k, v] : h.options)
    if (k == key) return v;
  return "";
}

// A failure's token must replay, and be of the entry it is recorded for.
bool check_token(const std::string& token, const std::string& impl, std::string& why) {
  std::string error;
  const auto spec = decode_token(token, error);
  if (!spec) {
    why = "malformed token for '" + impl + "': " + error;
    return false;
  }
  if (spec->impl != impl) {
    why = "the token is of '" + spec->impl + "', the record of '" + impl + "'";
    return false;
  }
  return true;
}

bool check_counts(uint64_t trials, uint64_t ops, uint32_t fails, uint32_t runs, std::string& why) {
  if (fails > runs) {
    why = std::to_string(fails) + " failures in " + std::to_string(runs) + " runs";
    return false;
  }
  if (ops / kMaxOpsPerTrial + (ops % kMaxOpsPerTrial != 0) > trials) {  // ops > trials * 2^28, without overflow
    why = std::to_string(ops) + " ops in " + std::to_string(trials) + " trials (at most 2^28 ops a trial)";
    return false;
  }
  return true;
}

// A slice's times: the code under test's time and the GPU's are parts of
// its wall time, and the paired share of each is part of that time (a
// record that breaks this would print "ran 519% of it").
bool check_times(const reports::FuzzSliceRecord& s, std::string& why) {
  const auto bad = [](double t) { return !std::isfinite(t) || t < 0; };
  if (bad(s.seconds) || bad(s.run_s) || bad(s.gpu_s) || bad(s.paired.seconds) || bad(s.paired.run_s) ||
      bad(s.paired.gpu_s)) {
    why = "a time that is negative or not a number";
    return false;
  }
  const auto beyond = [](double part, double whole) { return part > whole * 1.01 + 1e-3; };  // rounding aside
  if (beyond(s.paired.seconds, s.seconds) || beyond(s.paired.run_s, s.run_s) || beyond(s.paired.gpu_s, s.gpu_s)) {
    why = fmt::format("a paired time beyond its slice's ({:g} s of {:g} s)", s.paired.seconds, s.seconds);
    return false;
  }
  return true;
}

// An entry's failure from its `entry` record, where its slices do not show
// one; the counts read from the slices are kept.
void keep_failure(reports::FuzzEntryResult& merged, const reports::FuzzEntryResult& e) {
  if (merged.failed()) return;
  if (merged.impl.empty()) {  // no slice of it was read
    merged = e;
    return;
  }
  merged.origin = e.origin;
  merged.why = e.why;
  merged.token = e.token;
  merged.spec = e.spec;
  merged.verdict = e.verdict;
  merged.time_to_catch_s = e.time_to_catch_s;
  merged.rate_failures = e.rate_failures;
  merged.rate_runs = e.rate_runs;
  merged.bare_failures = e.bare_failures;
  merged.bare_runs = e.bare_runs;
  merged.flaky = e.flaky;
  merged.cls = e.cls;
}

// The first line of a regular file, at most 64 KiB of it ("" otherwise).
std::string first_line(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  std::ifstream in(path, std::ios::binary);
  std::string head(64 << 10, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(size_t(in.gcount()));
  return head.substr(0, head.find('\n'));
}

// A log's identity (device and inode): each log is merged once.  False with
// `error` for a path that is not a readable regular file, or seen already.
bool claim_log(const std::string& path, MergedLogs& m, std::string& error) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    error = "cannot read '" + path + "'";
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "'" + path + "' is " + (S_ISDIR(st.st_mode) ? "a directory" : "not a regular file") +
            ", not a fuzz --json log";
    return false;
  }
  const std::string id = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  if (const auto it = m.seen_files.find(id); it != m.seen_files.end()) {
    error = "'" + path + "' is '" + it->second + "' again: each log is merged once";
    return false;
  }
  m.seen_files[id] = path;
  return true;
}

// One log being read: the run record in force and what it has recorded.
struct LogReader {
  const std::string& path;
  MergedLogs& m;
  std::optional<reports::RunHeader> run;  // the run record in force
  std::string where;                       // "shard i/N ('FILE')"
  size_t results = 0;                      // slice, replay and entry records
  bool named_entries = false;              // some run record named its entries
  bool listed = false;                     // the run record in force has an `entries` list
  size_t lineage = 0;                      // the run record in force's (MergedLogs::lineages)

  // Each returns "" or why the record is refused.
  std::string run_record(const nlohmann::json& j) {
    reports::RunHeader h;
    std::string why;
    if (!from_json(j, h, why)) return why;
    if (m.header && h.version != m.header->version)
      return "a log of atomstress " + h.version + " beside a log of atomstress " + m.header->version +
             ": merge the logs of one version";
    if (m.header && h.backend != m.header->backend)
      return "a run on " + std::string(to_string(h.backend)) + " beside a run on " + to_string(m.header->backend) +
             ": merge the logs of one backend";
    if (m.header && option(h, "seed") != option(*m.header, "seed"))
      return "a run of seed " + option(h, "seed") + " beside a run of seed " + option(*m.header, "seed") +
             ": the shards of one night share its seed";
    const std::string shard = option(h, "shard");
    if (m.header) {
      const std::string first = option(*m.header, "shard");
      if (first.substr(first.find('/') + 1) != shard.substr(shard.find('/') + 1))
        return "shard " + shard + " of a run split differently from the others' (" + first + ")";
    }
    if (!run) {  // the log's first run: a resumed run appends another
      const std::string key = h.timestamp + "\n" + h.command_line + "\n" + shard + "\n" + option(h, "lane");
      if (const auto it = m.seen_runs.find(key); it != m.seen_runs.end())
        return "the same run as '" + it->second + "' (a log given twice, or a copy)";
      m.seen_runs[key] = path;
    }
    if (std::string bad = unusable_names(h); !bad.empty()) return bad;
    lineage = lineage_of(h);
    if (!m.header) m.header = h;
    where = "shard " + (shard.empty() ? std::string("0/1") : shard) +
            (option(h, "lane").empty() ? "" : " lane " + option(h, "lane")) + " ('" + path + "')";
    for (const auto& e : h.entries) m.expected.emplace(e, where);
    listed = j.contains("entries");  // (an empty list: a shard with nothing to run, complete when it ends)
    named_entries = named_entries || listed;
    run = std::move(h);
    return "";
  }

  // Names in a run record become file names (corpus cases): each must be an
  // entry of this program and one plain name.  "" or why not.
  static std::string unusable_names(const reports::RunHeader& h) {
    for (const auto& e : h.entries) {
      std::string why;
      if (!is_plain_file_name(e, why))
        return "entry name '" + e.substr(0, 80) + "' is " + why + ": not an entry's name";
      if (find_impl(e) == nullptr)
        return "entry '" + e.substr(0, 80) + "' is not an entry of this program (merge with the program that ran it)";
    }
    return "";
  }

  // A resumed run continues the latest run of its identity; any other run
  // starts a lineage of its own, whose slices all count.
  size_t lineage_of(const reports::RunHeader& h) {
    std::string identity = std::string(to_string(h.backend));
    for (const char* key : {"impl", "seed", "shard", "lane", "time_s", "reruns", "rate_runs"})
      identity += "\n" + option(h, key);
    const auto it = m.lineage_of.find(identity);
    if (option(h, "resumed") == "true" && it != m.lineage_of.end()) return it->second;
    return m.lineage_of[identity] = ++m.lineages;
  }

  bool known(const std::string& impl) const {
    if (!listed) return find_impl(impl) != nullptr;  // a log of an earlier version: no list
    return std::find(run->entries.begin(), run->entries.end(), impl) != run->entries.end();
  }
  static std::string not_asked(const std::string& impl) {
    return "entry '" + impl + "' is not one its run was asked to run";
  }

  std::string slice_record(const nlohmann::json& j) {
    reports::FuzzSliceRecord s;
    std::string why;
    if (!from_json(j, s, why)) return why;
    if (!known(s.impl)) return not_asked(s.impl);
    if (s.backend != run->backend)
      return "a slice on " + std::string(to_string(s.backend)) + " in a run on " + to_string(run->backend);
    if (!check_counts(s.trials, s.ops, s.rate_failures, s.rate_runs, why) ||
        !check_counts(0, 0, s.bare_failures, s.bare_runs, why))
      return s.impl + ": " + why;
    if (!check_times(s, why)) return s.impl + ": " + why;
    if (s.verdict != Verdict::Pass && !check_token(s.token, s.impl, why)) return why;
    if (s.verdict == Verdict::Pass && s.cls != FailureClass::None)
      return s.impl + ": a passing slice of class '" + to_string(s.cls) + "'";
    if (!m.seen_slices.insert({lineage, s.impl, s.round}).second) return "";  // repeated after a resume
    add_slice(m.entries[s.impl], s);
    m.trials += s.trials;
    m.ops += s.ops;
    return "";
  }

  std::string replay_record(const nlohmann::json& j) {
    reports::ReplayRecord r;
    std::string why;
    if (!from_json(j, r, why)) return why;
    if (!known(r.impl)) return not_asked(r.impl);
    if (!check_counts(r.runs, r.ops, r.failures, r.runs, why)) return r.impl + ": " + why;
    if (r.still_failing && !check_token(r.token, r.impl, why)) return why;
    add_replay(m.entries[r.impl], r);
    return "";
  }

  std::string entry_record(const nlohmann::json& j) {
    reports::FuzzEntryResult e;
    std::string why;
    if (!from_json(j, e, why)) return why;
    if (!known(e.impl)) return not_asked(e.impl);
    if (!check_counts(e.trials, e.ops, e.rate_failures, e.rate_runs, why)) return e.impl + ": " + why;
    if (e.failed() && !e.skipped && !e.token.empty() && !check_token(e.token, e.impl, why)) return why;
    m.finished.insert(e.impl);
    // An entry with no slice (skipped) is known from its result line only.
    if (e.skipped && !m.entries.count(e.impl)) m.entries[e.impl] = e;
    // The run's last word on the entry: its failure stands even where the
    // slice that found it is missing from the log (a cut or edited log).
    if (e.failed() && !e.skipped) keep_failure(m.entries[e.impl], e);
    return "";
  }

  // A record of any kind; "" or why it is refused.
  std::string record(const std::string& kind, const nlohmann::json& j) {
    if (kind == "run") return run_record(j);
    if (!run) return "a '" + kind + "' record before the log's 'run' record";
    ++results;
    if (kind == "slice") return slice_record(j);
    if (kind == "replay") return replay_record(j);
    if (kind == "entry") return entry_record(j);
    return "unknown record '" + kind + "'";
  }
};

}  // namespace

bool read_fuzz_log(const std::string& path, MergedLogs& m, std::string& error) {
  if (!claim_log(path, m, error)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read '" + path + "'";
    return false;
  }
  LogReader log{path, m, std::nullopt, "", 0, false, false, 0};
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a log that went through Windows
    if (line.empty()) continue;
    const bool last_unterminated = in.eof();  // a writer killed mid-line: its record never counted
    const auto j = nlohmann::json::parse(line, nullptr, false);
    std::string why;
    if (j.is_discarded() || !j.is_object() || !j.contains("record") || !j["record"].is_string()) {
      if (last_unterminated) break;
      why = "not a fuzz record";
    } else {
      why = log.record(j["record"].get<std::string>(), j);
    }
    if (!why.empty()) {
      error = path + ":" + std::to_string(n) + ": " + why;
      return false;
    }
  }
  if (!log.run) {
    error = "'" + path + "' holds no 'run' record" + (n == 0 ? " (it is empty)" : "") + ": not a fuzz --json log";
    return false;
  }
  if (log.results == 0 && !log.named_entries) {
    // Nothing to hold it to (a run record naming no entries) and nothing recorded.
    error = "'" + path + "' holds no results: its run names no entries and recorded none";
    return false;
  }
  return true;
}

bool is_fuzz_log(const std::string& path) {
  const auto j = nlohmann::json::parse(first_line(path), nullptr, false);
  return !j.is_discarded() && j.is_object() && j.value("record", "") == "run";
}

bool read_fuzz_logs(const std::vector<std::string>& paths, MergedLogs& m, std::string& error) {
  std::vector<std::pair<std::string, std::string>> ordered;  // (first run's time, path)
  for (const auto& p : paths) {
    const auto j = nlohmann::json::parse(first_line(p), nullptr, false);
    const bool run = !j.is_discarded() && j.is_object() && j.contains("timestamp") && j["timestamp"].is_string();
    ordered.emplace_back(run ? j["timestamp"].get<std::string>() : "", p);
  }
  std::sort(ordered.begin(), ordered.end());
  for (const auto& [time, path] : ordered)
    if (!read_fuzz_log(path, m, error)) return false;
  return true;
}

std::vector<std::string> add_unfinished(MergedLogs& m) {
  std::map<std::string, std::vector<std::string>> by_shard;
  for (const auto& [name, where] : m.expected) {
    if (m.finished.count(name)) continue;
    auto& e = m.entries[name];
    by_shard[where].push_back(name);
    if (e.failed() && !e.skipped) continue;  // its failure stands
    e.impl = name;
    if (m.header) e.backend = m.header->backend;
    e.skipped = false;
    e.verdict = Verdict::Error;
    e.origin = "incomplete";
    e.why = where + " did not finish this entry: its log ends without the entry's result (" +
            std::to_string(e.rounds) + " rounds recorded); resume that shard (fuzz --resume) and merge again";
  }
  std::vector<std::string> lines;
  for (const auto& [where, names] : by_shard) {
    std::string line = where + " did not finish " + std::to_string(names.size()) + " entr" +
                       (names.size() == 1 ? "y" : "ies") + ":";
    for (size_t i = 0; i < names.size(); ++i) line += (i ? ", " : " ") + names[i];
    lines.push_back(line);
  }
  return lines;
}

}  // namespace atomstress::fuzz
