// `--report DIR`: DIR/index.html, one self-contained page (inline CSS, no
// script, nothing fetched from the network): a table of every entry
// (verdict, trials, ops, time fuzzed, time to catch) and, per failure, its
// explanation, shrunk case and repro line.  Written whole at finish().
#pragma once

#include <string>

#include "reports/fuzz_collector.hpp"

namespace atomstress::reports {

class HtmlPrinter final : public FuzzCollector {
 public:
  using FuzzCollector::FuzzCollector;
  std::string render() const override;
};

}  // namespace atomstress::reports
