// atomstress merge --junit OUT --report DIR --corpus DIR IN...: one JUnit
// file, report and corpus from the JSON-lines logs of several `fuzz` shards
// (or of a killed and resumed run).  Each entry's result is rebuilt from its
// slice and replay records, the same way the campaign builds it.
#include <algorithm>

#include <fmt/format.h>

#include "reports/terminal.hpp"
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>

#include "fuzz/aggregate.hpp"
#include "harness/support/atomic_file.hpp"
#include "harness/support/timestamp.hpp"
#include "fuzz/corpus.hpp"
#include "fuzz/merge_logs.hpp"
#include "reports/records_json.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/merge_reports.hpp"
#include "harness/cli/options.hpp"
#include "reports/sinks.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace atomstress::cli {

bool write_merged_reports(const fuzz::MergedLogs& m, const reports::RunHeader& h,
                          const reports::ReportRequest& documents, const std::string& corpus, size_t& failed,
                          std::string& error) {
  reports::Multiplex printers;
  if (!reports::add_report_printers(documents, printers, error)) return false;
  printers.begin(h);
  failed = 0;
  for (const auto& [name, e] : m.entries) {
    printers.record(e);
    if (!e.failed() || e.skipped || e.origin == "incomplete") continue;  // (unfinished: counted by the caller)
    ++failed;
    // An entry that did not finish, or could not run, has no case to keep.
    if (corpus.empty() || e.verdict == Verdict::Error || e.token.empty()) continue;
    fuzz::CorpusCase c{.impl = e.impl,
                       .token = e.token,
                       .spec = e.spec,
                       .verdict = to_string(e.verdict),
                       .why = e.why,
                       .version = h.version,
                       .backend = to_string(e.backend),
                       .device = h.device,
                       .first_seen = h.timestamp,
                       .rate_failures = e.rate_failures,
                       .rate_runs = e.rate_runs,
                       .file = {}};
    bool added = false;
    if (!fuzz::add_case(corpus, c, added, error)) {
      printers.finish();
      return false;
    }
  }
  if (!printers.finish()) {
    error = printers.error();
    return false;
  }
  return true;
}

int cmd_merge(const std::vector<std::string>& args, const std::string& command_line) {
  std::string corpus;
  std::vector<std::string> inputs;
  ReportOptions reports_asked(reports::kReportMerge);
  po::options_description desc("atomstress merge [--junit FILE] [--report DIR] [--corpus DIR] LOG...");
  desc.add_options()("help,h", "this help");
  add_report_options(desc, reports_asked);
  desc.add_options()("corpus", non_empty(&corpus), "add every failure to this corpus directory")(
      "input", po::value(&inputs)->multitoken(), "the shards' --json logs");
  po::positional_options_description pos;
  pos.add("input", -1);
  const auto vm = parse_command(args, desc, &pos);
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  if (inputs.empty()) return usage_error("merge needs the shards' JSON-lines logs (fuzz --json FILE)");
  const reports::ReportRequest asked = reports_asked.request();
  if (asked.empty() && corpus.empty()) return usage_error("merge writes nothing: give --junit, --report or --corpus");
  std::string error;
  // Every output checked (and never one of the inputs) before anything is read or written.
  const auto outputs = reports::report_files(asked);
  if (!check_distinct(outputs, inputs, error)) return usage_error(error);
  if (!corpus.empty() && !check_distinct({{"--corpus", corpus}}, inputs, error)) return usage_error(error);
  if (!fuzz::check_no_output_is_a_case(outputs, corpus, error)) return usage_error(error);
  // A report named like a log (`merge --junit logs/*.jsonl` takes the first log as its --junit).
  for (const auto& [option, path] : outputs)
    if (fuzz::is_fuzz_log(path))
      return usage_error(option + " '" + path + "' is a fuzz --json log (its first line is a 'run' record): "
                         "writing it would destroy it; name the report and give the logs after it");
  // A file report is checked before the logs are read; a report folder once it exists.
  for (const auto& [format, value] : asked)
    if (format->files(value).size() == 1 && !check_output(std::string("--") + format->option, value, error))
      return usage_error(error);
  fuzz::MergedLogs m;
  if (!fuzz::read_fuzz_logs(inputs, m, error)) return usage_error(error);
  const std::vector<std::string> unfinished = fuzz::add_unfinished(m);
  for (const auto& [format, value] : asked)
    if (format->files(value).size() > 1 && !fuzz::ensure_dir(value, error)) return usage_error(error);
  if (!corpus.empty() && !fuzz::ensure_dir(corpus, error)) return usage_error(error);
  for (const auto& [format, value] : asked)
    for (const auto& file : format->files(value))
      if (format->files(value).size() > 1 && !check_output(std::string("--") + format->option, file, error))
        return usage_error(error);

  reports::RunHeader h = m.header.value_or(reports::RunHeader{});
  h.timestamp = utc_timestamp();
  h.command_line = command_line;
  h.options.emplace_back("merged_logs", std::to_string(inputs.size()));
  size_t failed = 0;
  if (!write_merged_reports(m, h, asked, corpus, failed, error)) return usage_error(error);
  size_t unfinished_entries = 0;
  for (const auto& [name, e] : m.entries) unfinished_entries += e.origin == "incomplete";
  reports::print("merged {} logs: {} entries, {} failing{}\n", inputs.size(), m.entries.size(), failed,
             !unfinished.empty() ? fmt::format(", {} not finished", unfinished_entries) : "");
  // A shard that did not finish is never a pass: its entries are errors in
  // the reports, each shard named here, and the exit status is 1.
  for (const auto& line : unfinished) reports::print_to(stderr, "atomstress: error: {}\n", line);
  return failed || !unfinished.empty() ? 1 : 0;
}

}  // namespace atomstress::cli
