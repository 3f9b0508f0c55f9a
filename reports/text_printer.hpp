// Terminal lines on stdout: one per implementation (verdict, trials, ops,
// times, retries; the failure, its spec and repro line; the hotspot table),
// SKIP lines, notes, and repro's failure rate.
#pragma once

#include <string>

#include "reports/printer.hpp"

namespace atomstress::reports {

class TextPrinter final : public Printer {
 public:
  // quiet: failures only.  profile: print the busiest trial's hotspots.
  TextPrinter(bool quiet, bool profile) : quiet_(quiet), profile_(profile) {}

  std::string error() const override { return error_; }

 private:
  void do_note(const std::string& n) override;
  void do_record(const Record& r) override;
  bool do_finish() override;
  void summary(const ImplSummary& s);
  void skipped(const SkippedEntry& s);
  void repro(const ReproSummary& r);

  bool quiet_, profile_;
  std::string error_;
};

}  // namespace atomstress::reports
