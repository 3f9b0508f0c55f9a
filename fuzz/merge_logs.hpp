// Reading `fuzz --json` logs back: each entry's result rebuilt from its slice
// and replay records, the way the campaign builds it (merge, and fuzz
// --devices combining its lanes).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "reports/results.hpp"

namespace atomstress::fuzz {

struct MergedLogs {
  std::optional<reports::FuzzHeader> header;
  std::map<std::string, reports::FuzzEntryResult> entries;  // by name
  uint64_t trials = 0, ops = 0;                              // over every slice read
};

// Reads one log into `m`; false with a one-line error naming the file and
// line.  A last line cut short (a writer killed mid-line) is ignored.
bool read_fuzz_log(const std::string& path, MergedLogs& m, std::string& error);

}  // namespace atomstress::fuzz
