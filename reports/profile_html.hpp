// `profile --html FILE`: one self-contained page (no script, no network)
// with inline SVG charts: throughput against k (log-log, one polyline per
// entry), retries per op against k, and the hottest addresses of the most
// contended point as bars; then the table of every point.  Kernel entries'
// points (time per launch) have a chart against k and a table of their own.
#pragma once

#include "reports/profile_collector.hpp"
#include "reports/svg_chart.hpp"

namespace atomstress::reports {

// The points as chart series against k: one per entry (and per value of
// any other axis the sweep varies; per pattern too when an entry has two
// points at one k).  `y` picks the plotted value.
std::vector<svg::Series> series_over_k(const std::vector<ProfilePoint>& points,
                                       double (*y)(const ProfilePoint&));

class ProfileHtmlPrinter final : public ProfileCollector {
 public:
  using ProfileCollector::ProfileCollector;

 protected:
  std::string render() const override;
};

}  // namespace atomstress::reports
