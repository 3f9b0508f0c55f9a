// One JUnit file, report and corpus from fuzz logs read back
// (fuzz/merge_logs.hpp): `merge`, and `fuzz --devices` combining its lanes.
#pragma once

#include <string>

#include "fuzz/merge_logs.hpp"
#include "reports/sinks.hpp"

namespace atomstress::cli {

// Writes what is asked (an empty path: nothing); `failed` counts the failing
// entries.  False with a one-line `error` when a file cannot be written.
bool write_merged_reports(const fuzz::MergedLogs& m, const reports::RunHeader& h,
                          const reports::ReportRequest& documents, const std::string& corpus, size_t& failed,
                          std::string& error);

}  // namespace atomstress::cli
