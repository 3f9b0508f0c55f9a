// `--report DIR`: DIR/summary.md, a table of every entry (verdict, trials,
// ops, time to catch) and, per failure, its explanation, shrunk case and
// repro line.  Written whole at finish(), atomically.
#pragma once

#include <string>
#include <vector>

#include "reports/printer.hpp"

namespace atomstress::reports {

class MarkdownPrinter final : public Printer {
 public:
  explicit MarkdownPrinter(std::string path) : path_(std::move(path)) {}
  void fuzz_started(const FuzzHeader& h) override { header_ = h; }
  void fuzz_entry(const FuzzEntryResult& e) override { entries_.push_back(e); }
  bool finish() override;
  std::string error() const override { return error_; }

 private:
  std::string path_, error_;
  FuzzHeader header_;
  std::vector<FuzzEntryResult> entries_;
};

}  // namespace atomstress::reports
