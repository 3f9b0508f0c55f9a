// `profile --markdown FILE`: the run, its notes, one table row per point,
// and the hottest addresses of the most contended point.
#pragma once

#include "reports/profile_collector.hpp"

namespace atomstress::reports {

// Escapes the characters that would break a table cell (| and line breaks).
std::string markdown_cell(const std::string& s);

class ProfileMarkdownPrinter final : public ProfileCollector {
 public:
  using ProfileCollector::ProfileCollector;

 protected:
  std::string render() const override;
};

}  // namespace atomstress::reports
