// `--report DIR`: DIR/summary.md, the same as index.html (html_printer.hpp)
// in Markdown: the table, failures first (linked to their sections by
// <a id> anchors), then passes, then skips; the failures grouped by
// function, each with its class, cause, shrunk case and repro line.
// Written whole at finish(), atomically.
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
