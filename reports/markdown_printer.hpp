// `--report DIR`: DIR/summary.md, a table of every entry (verdict, trials,
// ops, time to catch) and, per failure, its explanation, shrunk case and
// repro line.  Written whole at finish(), atomically.
#pragma once

#include <string>

#include "reports/fuzz_collector.hpp"

namespace atomstress::reports {

class MarkdownPrinter final : public FuzzCollector {
 public:
  using FuzzCollector::FuzzCollector;
  std::string render() const override;
};

}  // namespace atomstress::reports
