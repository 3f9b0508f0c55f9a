// Small inline-SVG charts for the profile's HTML page: a line chart on
// linear or log axes (one polyline per series, labelled ticks, a legend)
// and a bar chart.  Plain strings out, no scripts, every text escaped.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace atomstress::svg {

// Escapes &, <, >, " and ' for XML text and attribute values.
std::string escape(std::string_view text);

struct Axis {
  std::string label;
  bool log = false;
  double lo = 0, hi = 0;  // the range; equal: taken from the data.  A log axis needs lo > 0
};

// Tick positions covering [lo, hi]: powers of ten on a log axis (with 2 and
// 5 between them when the range spans less than two decades), round steps
// of 1, 2 or 5 times a power of ten on a linear one.
std::vector<double> ticks(const Axis& axis);
// "1", "250", "1k", "2.5M", "1G", "0.5", "1e-3": short and exact enough.
std::string tick_label(double v);

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y); points a log axis cannot show are dropped
  // A companion of series `companion_of` (a baseline beside its entry):
  // drawn dashed in that series' colour.  -1: a series of its own.
  int companion_of = -1;
};

// A chart of `series` against `x` and `y` (whose lo/hi are widened to the
// data when left equal).  One <polyline> per series with two or more points
// (a <circle> per point as well).
std::string line_chart(const std::string& title, Axis x, Axis y, const std::vector<Series>& series);

// Vertical bars, labelled underneath; `y_label` names the value.
std::string bar_chart(const std::string& title, const std::string& y_label,
                      const std::vector<std::pair<std::string, double>>& bars);

}  // namespace atomstress::svg
