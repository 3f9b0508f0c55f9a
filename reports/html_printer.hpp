// `--report DIR`: DIR/index.html, one self-contained page (inline CSS, no
// script, nothing fetched from the network) that leads with what failed: a
// table of every entry (verdict, class, trials, ops, time fuzzed, time to
// catch), failures first and each linked to its section, then passes, then
// skips; then the failures grouped by function (FuzzCollector::ordered),
// each with its class, cause, shrunk case and repro line.  Written whole at
// finish().
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
