// `fuzz --junit FILE`, `merge --junit FILE`: the JUnit XML that Jenkins and
// GitLab read: <testsuites> holding one <testsuite name="atomstress.fuzz">,
// one <testcase> per entry; a failure's message is its explanation and its
// body the shrunk case and repro line; a HANG is a failure of type HANG, an
// entry that cannot run here is <skipped>.  Written whole at finish(),
// through a temporary file and a rename.
#pragma once

#include <string>
#include <vector>

#include "reports/printer.hpp"

namespace atomstress::reports {

// &, <, >, " and ' as entities; other control characters (not valid XML 1.0) as '?'.
std::string escape_markup(const std::string& s);

class JunitPrinter final : public Printer {
 public:
  explicit JunitPrinter(std::string path) : path_(std::move(path)) {}
  void fuzz_started(const FuzzHeader& h) override { header_ = h; }
  void fuzz_entry(const FuzzEntryResult& e) override { entries_.push_back(e); }
  bool finish() override;
  std::string error() const override { return error_; }

  std::string xml() const;

 private:
  std::string path_, error_;
  FuzzHeader header_;
  std::vector<FuzzEntryResult> entries_;
};

}  // namespace atomstress::reports
