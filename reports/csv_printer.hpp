// `profile --csv FILE`: a header, then one row per point (RFC 4180 quoting).
#pragma once

#include "reports/profile_collector.hpp"

namespace atomstress::reports {

// Quotes a field that holds a comma, a quote or a line break.
std::string csv_field(const std::string& s);

class CsvPrinter final : public ProfileCollector {
 public:
  using ProfileCollector::ProfileCollector;

 protected:
  std::string render() const override;
};

}  // namespace atomstress::reports
