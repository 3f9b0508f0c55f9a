// `profile` on the terminal: one row per point as it is measured (the
// header before the first), then the hottest addresses of the most
// contended point.
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

  bool header_ = false;
  std::vector<ProfilePoint> points_;
  std::string error_;
};

}  // namespace atomstress::reports
