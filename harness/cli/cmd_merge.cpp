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
#include "fuzz/atomic_file.hpp"
#include "fuzz/corpus.hpp"
#include "fuzz/records_json.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/options.hpp"
#include "reports/html_printer.hpp"
#include "reports/junit_printer.hpp"
#include "reports/markdown_printer.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace atomstress::cli {

namespace {

struct Merged {
  std::optional<reports::FuzzHeader> header;
  std::map<std::string, reports::FuzzEntryResult> entries;  // by name
};

// Reads one log into `m`; false with a one-line error naming the file and line.
bool read_log(const std::string& path, Merged& m, std::string& error) {
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
      if (fuzz::from_json(j, h, why) && !m.header) m.header = h;
    } else if (kind == "slice") {
      reports::FuzzSliceRecord s;
      if (fuzz::from_json(j, s, why)) fuzz::add_slice(m.entries[s.impl], s);
    } else if (kind == "replay") {
      reports::ReplayRecord r;
      if (fuzz::from_json(j, r, why)) fuzz::add_replay(m.entries[r.impl], r);
    } else if (kind == "entry") {
      // An entry with no slice (skipped) is known from its result line only.
      reports::FuzzEntryResult e;
      if (fuzz::from_json(j, e, why) && e.skipped && !m.entries.count(e.impl)) m.entries[e.impl] = e;
    }
    if (!why.empty()) {
      error = path + ":" + std::to_string(n) + ": " + why;
      return false;
    }
  }
  return true;
}

}  // namespace

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
  Merged m;
  std::string error;
  for (const auto& in : inputs)
    if (!read_log(in, m, error)) return usage_error(error);
  if (!report.empty() && !fuzz::ensure_dir(report, error)) return usage_error(error);
  if (!corpus.empty() && !fuzz::ensure_dir(corpus, error)) return usage_error(error);

  reports::FuzzHeader h = m.header.value_or(reports::FuzzHeader{});
  h.timestamp = fuzz::utc_timestamp();
  h.command_line = command_line;
  h.options.emplace_back("merged_logs", std::to_string(inputs.size()));
  reports::Multiplex printers;
  if (!junit.empty()) printers.add(std::make_unique<reports::JunitPrinter>(junit));
  if (!report.empty()) {
    printers.add(std::make_unique<reports::MarkdownPrinter>((fs::path(report) / "summary.md").string()));
    printers.add(std::make_unique<reports::HtmlPrinter>((fs::path(report) / "index.html").string()));
  }
  printers.fuzz_started(h);
  size_t failed = 0;
  for (const auto& [name, e] : m.entries) {
    printers.fuzz_entry(e);
    if (!e.failed() || e.skipped) continue;
    ++failed;
    if (corpus.empty()) continue;
    fuzz::CorpusCase c{e.impl, e.token, e.spec, to_string(e.verdict), e.why, h.version, to_string(e.backend),
                       h.device, h.timestamp, e.rate_failures, e.rate_runs, ""};
    bool added = false;
    if (!fuzz::add_case(corpus, c, added, error)) return usage_error(error);
  }
  if (!printers.finish()) return usage_error(printers.error());
  std::printf("merged %zu logs: %zu entries, %zu failing\n", inputs.size(), m.entries.size(), failed);
  return failed ? 1 : 0;
}

}  // namespace atomstress::cli
