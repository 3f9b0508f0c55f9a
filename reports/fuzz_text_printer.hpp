// `fuzz` on the terminal: the notes (the run's head line, an interruption,
// the time split) and, at the end, a line per entry (PASS, SKIP, or the
// failure with its shrunk case and repro line).  The live progress line is
// fuzz/progress.hpp's.
#pragma once

#include <string>

#include "reports/printer.hpp"

namespace atomstress::reports {

// A found failure as the terminal shows it: verdict, entry, trials, ops,
// time to catch; its cause, shrunk case with its rate, and repro line.
std::string fuzz_failure_lines(const FuzzEntryResult& e);

class FuzzTextPrinter final : public Printer {
 public:
  std::string error() const override { return error_; }

 private:
  void do_note(const std::string& n) override;
  void do_record(const Record& r) override;
  bool do_finish() override;

  std::string error_;
};

}  // namespace atomstress::reports
