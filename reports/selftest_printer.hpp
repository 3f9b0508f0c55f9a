// `selftest` on the terminal: a row per deliberate bug (caught, how, class,
// time to catch, specs, shrunk case, its rate; the failure and its repro
// line), a row per bug the backend cannot show, and the notes (the rates
// table, the mutation score, the correct catalogue, the differentials).
#pragma once

#include <string>

#include "reports/printer.hpp"

namespace atomstress::reports {

class SelftestPrinter final : public Printer {
 public:
  std::string error() const override { return error_; }

 private:
  void do_note(const std::string& n) override;
  void do_record(const Record& r) override;
  bool do_finish() override;
  void header();

  bool header_printed_ = false;
  std::string error_;
};

}  // namespace atomstress::reports
