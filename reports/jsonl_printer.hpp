// JSON-lines report: one object per trial (and per selftest campaign),
// appended and flushed as each ends, so a crash or a bad input later loses
// nothing already recorded.  A file whose last line lacks its newline gets
// one first; a write or flush that fails makes finish() false.
#pragma once

#include <cstdio>
#include <string>

#include "reports/printer.hpp"

namespace atomstress::reports {

class JsonlPrinter final : public Printer {
 public:
  // Opens `path` for appending; check opened() before running anything.
  explicit JsonlPrinter(const std::string& path);
  ~JsonlPrinter() override;
  JsonlPrinter(const JsonlPrinter&) = delete;
  JsonlPrinter& operator=(const JsonlPrinter&) = delete;

  bool opened() const { return f_ != nullptr; }

  void trial(const TrialOutcome& t) override;
  void campaign(const CampaignRecord& c) override;
  void impl_summary(const ImplSummary& s) override;  // check: a line for a shrunk failure
  bool finish() override;
  std::string error() const override { return error_; }

 private:
  void write_line(const std::string& json);

  std::string path_;
  std::FILE* f_ = nullptr;
  bool fresh_line_needed_ = false;  // the file ended without a newline
  std::string error_;               // the first write error
};

}  // namespace atomstress::reports
