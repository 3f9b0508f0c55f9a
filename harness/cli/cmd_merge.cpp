// atomstress merge --junit OUT --report DIR --corpus DIR IN...: one JUnit
// file, report and corpus from the JSON-lines logs of several `fuzz` shards
// (or of a killed and resumed run).  Each entry's result is rebuilt from its
// slice and replay records, the same way the campaign builds it.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>

#include "fuzz/aggregate.hpp"
#include "fuzz/corpus.hpp"
#include "fuzz/merge_logs.hpp"
#include "fuzz/records_json.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/merge_reports.hpp"
#include "harness/cli/options.hpp"
#include "harness/support/atomic_file.hpp"
#include "harness/support/timestamp.hpp"
#include "reports/html_printer.hpp"
#include "reports/junit_printer.hpp"
#include "reports/markdown_printer.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace atomstress::cli {

bool write_merged_reports(const fuzz::MergedLogs& m, const reports::FuzzHeader& h, const std::string& junit,
                          const std::string& report, const std::string& corpus, size_t& failed, std::string& error) {
  reports::Multiplex printers;
  if (!junit.empty()) printers.add(std::make_unique<reports::JunitPrinter>(junit));
  if (!report.empty()) {
    printers.add(std::make_unique<reports::MarkdownPrinter>((fs::path(report) / "summary.md").string()));
    printers.add(std::make_unique<reports::HtmlPrinter>((fs::path(report) / "index.html").string()));
  }
  printers.fuzz_started(h);
  failed = 0;
  for (const auto& [name, e] : m.entries) {
    printers.fuzz_entry(e);
    if (!e.failed() || e.skipped || e.origin == "incomplete") continue;  // (unfinished: counted by the caller)
    ++failed;
    // An entry that did not finish, or could not run, has no case to keep.
    if (corpus.empty() || e.verdict == Verdict::Error || e.token.empty()) continue;
    fuzz::CorpusCase c{e.impl, e.token, e.spec, to_string(e.verdict), e.why, h.version, to_string(e.backend),
                       h.device, h.timestamp, e.rate_failures, e.rate_runs, ""};
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
  std::string junit, report, corpus;
  std::vector<std::string> inputs;
  po::options_description desc("atomstress merge [--junit FILE] [--report DIR] [--corpus DIR] LOG...");
  desc.add_options()("help,h", "this help")("junit", non_empty(&junit), "write one JUnit XML file")(
      "report", non_empty(&report), "write DIR/summary.md and DIR/index.html")(
      "corpus", non_empty(&corpus), "add every failure to this corpus directory")(
      "input", po::value(&inputs)->multitoken(), "the shards' --json logs");
  po::positional_options_description pos;
  pos.add("input", -1);
  const auto vm = parse_command(args, desc, &pos);
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  if (inputs.empty()) return usage_error("merge needs the shards' JSON-lines logs (fuzz --json FILE)");
  if (junit.empty() && report.empty() && corpus.empty())
    return usage_error("merge writes nothing: give --junit, --report or --corpus");
  std::string error;
  // Every output checked (and never one of the inputs) before anything is read or written.
  std::vector<std::pair<std::string, std::string>> outputs = {{"--junit", junit}};
  if (!report.empty())
    outputs.insert(outputs.end(), {{"--report", (fs::path(report) / "summary.md").string()},
                                   {"--report", (fs::path(report) / "index.html").string()}});
  if (!check_distinct(outputs, inputs, error)) return usage_error(error);
  if (!corpus.empty() && !check_distinct({{"--corpus", corpus}}, inputs, error)) return usage_error(error);
  if (!junit.empty() && !check_output("--junit", junit, error)) return usage_error(error);
  fuzz::MergedLogs m;
  for (const auto& in : inputs)
    if (!fuzz::read_fuzz_log(in, m, error)) return usage_error(error);
  const std::vector<std::string> unfinished = fuzz::add_unfinished(m);
  if (!report.empty() && !fuzz::ensure_dir(report, error)) return usage_error(error);
  if (!corpus.empty() && !fuzz::ensure_dir(corpus, error)) return usage_error(error);
  for (size_t i = 1; i < outputs.size(); ++i)
    if (!check_output(outputs[i].first, outputs[i].second, error)) return usage_error(error);

  reports::FuzzHeader h = m.header.value_or(reports::FuzzHeader{});
  h.timestamp = utc_timestamp();
  h.command_line = command_line;
  h.options.emplace_back("merged_logs", std::to_string(inputs.size()));
  size_t failed = 0;
  if (!write_merged_reports(m, h, junit, report, corpus, failed, error)) return usage_error(error);
  size_t unfinished_entries = 0;
  for (const auto& [name, e] : m.entries) unfinished_entries += e.origin == "incomplete";
  std::printf("merged %zu logs: %zu entries, %zu failing%s\n", inputs.size(), m.entries.size(), failed,
              !unfinished.empty() ? (", " + std::to_string(unfinished_entries) + " not finished").c_str() : "");
  // A shard that did not finish is never a pass: its entries are errors in
  // the reports, each shard named here, and the exit status is 1.
  for (const auto& line : unfinished) std::fprintf(stderr, "atomstress: error: %s\n", line.c_str());
  return failed || !unfinished.empty() ? 1 : 0;
}

}  // namespace atomstress::cli
