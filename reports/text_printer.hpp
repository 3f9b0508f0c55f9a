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

  void note(const std::string& n) override;
  void impl_summary(const ImplSummary& s) override;
  void impl_skipped(const ImplInfo& impl, BackendKind backend, const std::string& why) override;
  void repro(const ReproSummary& r) override;
  bool finish() override;
  std::string error() const override { return error_; }

 private:
  bool quiet_, profile_;
  std::string error_;
};

}  // namespace atomstress::reports
