// Reading `fuzz --json` logs back: each entry's result rebuilt from its slice
// and replay records, the way the campaign builds it (merge, and fuzz
// --devices combining its lanes).  A log is held to what its run was asked
// to do: each `run` record names the entries of its shard, and an entry
// without its `entry` record (the result written when a run ends) is one
// that shard never finished: a dead or killed shard is never a pass.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "reports/results.hpp"

namespace atomstress::fuzz {

struct MergedLogs {
  std::optional<reports::RunHeader> header;
  std::map<std::string, reports::FuzzEntryResult> entries;  // by name
  uint64_t trials = 0, ops = 0;                              // over every slice read
  // What the runs were asked to do, and what they finished.
  std::map<std::string, std::string> expected;  // entry -> "shard i/N ('FILE')"
  std::set<std::string> finished;               // entries with an `entry` record
  // Read so far: each log's identity (device and inode) and its first run
  // record's (timestamp, command line, shard), for refusing duplicates.
  std::map<std::string, std::string> seen_files, seen_runs;
  // A run and the resumed runs that continue it are one lineage; only
  // within one may a slice be repeated (a resumed run redoes the slices
  // logged after its last saved state).  Every other run counts whole.
  size_t lineages = 0;
  std::map<std::string, size_t> lineage_of;  // the run's identity (shard, lane, seed, ...) -> its latest lineage
  std::set<std::tuple<size_t, std::string, uint32_t>> seen_slices;  // (lineage, entry, round)
};

// Reads every log into `m` in one order whatever the order given (by their
// first run record's time, then name): the result does not depend on the
// order of the arguments, and a resumed run is read after the run it
// resumes.  False with read_fuzz_log's error.
bool read_fuzz_logs(const std::vector<std::string>& paths, MergedLogs& m, std::string& error);

// Whether `path` is a fuzz --json log (its first line a `run` record): a
// report must never be written over one.
bool is_fuzz_log(const std::string& path);

// Reads one log into `m`; false with a one-line error naming the file (and
// the line): not a regular file (a directory), empty or without a `run`
// record, the same log (or a copy) twice, another version's log mixed with
// the others', a record before the first `run`, an entry the run was not
// asked to run, an entry name that is not a registered entry or not one
// plain file name ('/', ".."), a malformed token, a count out of range.
// An `entry` record's failure stands even where its slices are missing.  A last line cut
// short (a writer killed mid-line) is ignored.
bool read_fuzz_log(const std::string& path, MergedLogs& m, std::string& error);

// After every log is read: the entries some run was asked to run and no log
// finished, each added to `m.entries` as an error (verdict Error, origin
// "incomplete") naming its shard and log, unless a failure of it was
// already recorded.  Returns one line per shard that left entries
// unfinished ("shard 1/3 ('s1.jsonl') did not finish 2 entries: a, b").
std::vector<std::string> add_unfinished(MergedLogs& m);

}  // namespace atomstress::fuzz
