#include "reports/sinks.hpp"

#include <array>
#include <filesystem>

#include "reports/csv_printer.hpp"
#include "reports/gbench_json_printer.hpp"
#include "reports/html_printer.hpp"
#include "reports/jsonl_printer.hpp"
#include "reports/junit_printer.hpp"
#include "reports/markdown_printer.hpp"
#include "reports/profile_html.hpp"
#include "reports/profile_markdown.hpp"

namespace atomstress::reports {

namespace {

std::vector<std::string> one_file(const std::string& value) { return {value}; }

std::vector<std::string> report_folder(const std::string& dir) {
  return {(std::filesystem::path(dir) / "summary.md").string(), (std::filesystem::path(dir) / "index.html").string()};
}

template <class P, class... Args>
std::unique_ptr<Printer> make(Args&&... args) {
  return std::make_unique<P>(std::forward<Args>(args)...);
}

std::unique_ptr<Printer> make_report_folder(const std::string& dir) {
  const auto files = report_folder(dir);
  auto both = std::make_unique<Multiplex>();
  both->add(make<MarkdownPrinter>(files[0]));
  both->add(make<HtmlPrinter>(files[1]));
  return both;
}

const std::array<ReportFormat, 8> kFormats = {{
    {"json", "append one JSON line per trial (and per shrunk failure; selftest: per caught bug) to FILE",
     kReportCheck | kReportRepro | kReportSelftest, false, one_file,
     [](const std::string& v) { return make<JsonlPrinter>(v, false); }},
    {"json", "append one JSON line per record (the run, each corpus replay, time slice and entry's result) to "
             "FILE: merge reads it back",
     kReportFuzz, true, one_file, [](const std::string& v) { return make<JsonlPrinter>(v, true); }},
    {"junit", "write a JUnit XML file (one testcase per entry)", kReportFuzz | kReportMerge, false, one_file,
     [](const std::string& v) { return make<JunitPrinter>(v); }},
    {"report", "write DIR/summary.md and DIR/index.html", kReportFuzz | kReportMerge, false, report_folder,
     make_report_folder},
    {"json", "write Google Benchmark JSON to FILE", kReportProfile, false, one_file,
     [](const std::string& v) { return make<GbenchJsonPrinter>(v); }},
    {"csv", "write one CSV row per point to FILE", kReportProfile, false, one_file,
     [](const std::string& v) { return make<CsvPrinter>(v); }},
    {"markdown", "write a Markdown report to FILE", kReportProfile, false, one_file,
     [](const std::string& v) { return make<ProfileMarkdownPrinter>(v); }},
    {"html", "write an HTML page with SVG charts to FILE", kReportProfile, false, one_file,
     [](const std::string& v) { return make<ProfileHtmlPrinter>(v); }},
}};

}  // namespace

std::span<const ReportFormat> report_formats() { return kFormats; }

std::vector<std::pair<std::string, std::string>> report_files(const ReportRequest& request) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [format, value] : request)
    for (auto& file : format->files(value)) out.emplace_back(std::string("--") + format->option, std::move(file));
  return out;
}

bool add_report_printers(const ReportRequest& request, Multiplex& printers, std::string& error) {
  for (const auto& [format, value] : request) {
    auto printer = format->make(value);
    if (auto e = printer->error(); !e.empty()) {
      error = e;
      return false;
    }
    printers.add(std::move(printer));
  }
  return true;
}

}  // namespace atomstress::reports
