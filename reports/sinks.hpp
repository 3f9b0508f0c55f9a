// The report files a command can write, declared once: each command's
// options for them, the files checked before a run starts, the printers
// built, and what `fuzz --devices` combines from its lanes all read this
// table.  A new report format is its printer and one row in sinks.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "reports/printer.hpp"

namespace atomstress::reports {

// The commands that write reports, one bit each.
enum ReportCommand : uint32_t {
  kReportCheck = 1u << 0,
  kReportRepro = 1u << 1,
  kReportSelftest = 1u << 2,
  kReportFuzz = 1u << 3,
  kReportMerge = 1u << 4,
  kReportProfile = 1u << 5,
};

struct ReportFormat {
  const char* option;  // on the command line, without "--"
  const char* help;
  uint32_t commands;   // ReportCommand bits (one option name may mean a different format per command)
  // A log appended as the run goes (each --devices lane writes its own and
  // the coordinator appends them in order); otherwise a document written at
  // the end from every entry's result (the coordinator writes it from the
  // lanes' logs).
  bool appended_log = false;
  // The files it writes for the option's value (a report folder: two).
  std::vector<std::string> (*files)(const std::string& value) = nullptr;
  // Its printer; the printer's error() says why it cannot write.
  std::unique_ptr<Printer> (*make)(const std::string& value) = nullptr;
};

std::span<const ReportFormat> report_formats();

// The formats one command was asked for, each with the option's value.
using ReportRequest = std::vector<std::pair<const ReportFormat*, std::string>>;

// ("--option", file) for every file the request writes, in table order.
std::vector<std::pair<std::string, std::string>> report_files(const ReportRequest& request);
// A printer for each format asked for; false with a one-line `error` when
// one cannot open its file (nothing has run yet).
bool add_report_printers(const ReportRequest& request, Multiplex& printers, std::string& error);

}  // namespace atomstress::reports
