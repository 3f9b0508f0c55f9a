// `profile` on the terminal: one row per point as it is measured (the
// header before the first, and again where the unit changes: items per
// second, or a kernel entry's microseconds per launch), then the hottest
// addresses of the most contended point.
#pragma once

#include "harness/pipeline/profile.hpp"
#include "reports/printer.hpp"

namespace atomstress::reports {

class ProfileTablePrinter final : public Printer {
 public:
  std::string error() const override { return error_; }

 private:
  void do_note(const std::string& n) override;
  void do_record(const Record& r) override;
  bool do_finish() override;

  std::vector<ProfilePoint> points_;
  std::string error_;
};

}  // namespace atomstress::reports
