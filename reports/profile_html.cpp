#include "reports/profile_html.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace atomstress::reports {

namespace {

// The axes other than k, as (axis, value) in name order.
std::vector<std::pair<std::string, std::string>> other_axes(const ProfilePoint& p) {
  const auto& s = p.spec;
  return {{"pattern", to_string(s.pattern)}, {"grid", std::to_string(s.grid)},
          {"block", std::to_string(s.block)}, {"ops", std::to_string(s.ops_per_thread)},
          {"space", to_string(s.space)},     {"dist", to_string(s.dist)}};
}

}  // namespace

std::vector<svg::Series> series_over_k(const std::vector<ProfilePoint>& points, double (*y)(const ProfilePoint&)) {
  // Which axes take more than one value over the sweep: only those name a series.
  std::map<std::string, std::set<std::string>> values;
  for (const auto& p : points)
    for (const auto& [axis, v] : other_axes(p)) values[axis].insert(v);
  // Does an entry (with its other varying axes, pattern aside) have two points at one k?
  auto key_of = [&](const ProfilePoint& p, bool with_pattern) {
    std::string key = p.impl->name;
    for (const auto& [axis, v] : other_axes(p))
      if (values[axis].size() > 1 && (axis != "pattern" || with_pattern)) key += "/" + axis + ":" + v;
    return key;
  };
  std::map<std::string, std::set<uint32_t>> ks;
  std::set<std::string> split;
  for (const auto& p : points)
    if (!ks[key_of(p, false)].insert(p.spec.k).second) split.insert(key_of(p, false));
  std::vector<svg::Series> out;
  std::map<std::string, size_t> index;
  for (const auto& p : points) {
    const std::string base = key_of(p, false);
    const std::string key = split.count(base) ? key_of(p, true) : base;
    auto [it, fresh] = index.emplace(key, out.size());
    if (fresh) out.push_back({key, {}});
    out[it->second].points.emplace_back(double(p.spec.k), y(p));
  }
  return out;
}

namespace {

std::string noise_cell(const ProfilePoint& p) {
  // As in the Markdown: one batch has no noise figure; a capped one says so;
  // a kernel entry that failed has no time.
  if (!p.timed()) return "-";
  return (p.timing.batches < 2 ? std::string("- (one batch)") : fmt::format("{:.1f}%", 100 * p.timing.noise)) +
         (p.timing.converged ? "" : " (capped)");
}

// Throughput (with each entry's bare kernel, --baseline, dashed in its
// colour), retries per op, and the hottest addresses of the most contended
// point: single atomics and algorithms.
std::string per_item_charts(const std::vector<ProfilePoint>& points) {
  auto throughput = series_over_k(points, [](const ProfilePoint& p) { return p.items_per_second; });
  const auto bare = series_over_k(points, [](const ProfilePoint& p) {
    return p.baseline_items_per_second.value_or(std::numeric_limits<double>::quiet_NaN());
  });
  const size_t entries = throughput.size();
  for (size_t i = 0; i < bare.size() && i < entries; ++i) {
    svg::Series b = bare[i];
    std::erase_if(b.points, [](const auto& xy) { return !std::isfinite(xy.second); });
    if (b.points.empty()) continue;
    b.name += " (bare kernel)";
    b.companion_of = int(i);
    throughput.push_back(std::move(b));
  }
  std::string out =
      "<figure>\n" +
      svg::line_chart("Throughput against k", {"k (addresses)", true}, {"items per second", true}, throughput) +
      "</figure>\n";
  out += "<figure>\n" +
         svg::line_chart("Retries per op against k", {"k (addresses)", true}, {"mean retries per op", false},
                         series_over_k(points, [](const ProfilePoint& p) { return p.retries_mean; })) +
         "</figure>\n";
  if (const ProfilePoint* m = most_contended(points); m && !m->hotspots.empty()) {
    const bool cycles = m->cycles_per_op.has_value();
    std::vector<std::pair<std::string, double>> bars;
    for (const auto& h : m->hotspots)
      bars.emplace_back(std::string("@").append(std::to_string(h.addr)),
                        cycles ? (h.ops ? double(h.cycles) / double(h.ops) : 0) : double(h.retries));
    // The point's name is long (grid, block, ...): a caption wraps, an SVG title would be cut off.
    out += "<figure>\n" + svg::bar_chart("Hottest addresses", cycles ? "cycles per op" : "retries", bars) +
           "<figcaption>of the most contended point, " + svg::escape(m->name()) + "</figcaption>\n</figure>\n";
  }
  return out;
}

std::string per_item_table(const std::vector<ProfilePoint>& points) {
  std::string out =
      "<table>\n<tr><th>point</th><th>items/s</th><th>noise</th><th>retries/op</th><th>p50</th><th>p99</th>"
      "<th>max</th><th>cycles/op</th><th>vs bare</th><th>verdict</th></tr>\n";
  for (const auto& p : points)
    out += "<tr><td>" + svg::escape(p.name()) + "</td><td>" + fmt::format("{:.4g}", p.items_per_second) + "</td><td>" +
           noise_cell(p) + "</td><td>" + fmt::format("{:.3f}", p.retries_mean) + "</td><td>" +
           std::to_string(p.retries_p50) + "</td><td>" + std::to_string(p.retries_p99) + "</td><td>" +
           std::to_string(p.retries_max) + "</td><td>" + (p.cycles_per_op ? fmt::format("{:.0f}", *p.cycles_per_op) : "-") +
           "</td><td>" + (p.ratio_to_baseline ? fmt::format("{:.3f}x", *p.ratio_to_baseline) : "-") + "</td><td>" +
           svg::escape(to_string(p.verdict)) + "</td></tr>\n";
  return out + "</table>\n";
}

// Kernel entries: time per launch against k (the key range; a point with
// no time, its kernel failed, left out), and their table.
std::string per_launch_section(const std::vector<ProfilePoint>& points) {
  auto times = series_over_k(points, [](const ProfilePoint& p) {
    return p.timed() ? p.us_per_launch() : std::numeric_limits<double>::quiet_NaN();
  });
  for (auto& series : times) std::erase_if(series.points, [](const auto& xy) { return !std::isfinite(xy.second); });
  std::string out = "<h2>Kernel entries: time per launch</h2>\n<figure>\n" +
                    svg::line_chart("Time per launch against k", {"k (key range)", true},
                                    {"microseconds per launch", true}, times) +
                    "</figure>\n";
  out += "<table>\n<tr><th>point</th><th>us/launch</th><th>noise</th><th>verdict</th></tr>\n";
  for (const auto& p : points)
    out += "<tr><td>" + svg::escape(p.name()) + "</td><td>" +
           (p.timed() ? fmt::format("{:.4g}", p.us_per_launch()) : std::string("-")) + "</td><td>" +
           noise_cell(p) + "</td><td>" + svg::escape(to_string(p.verdict)) + "</td></tr>\n";
  return out + "</table>\n";
}

}  // namespace

std::string ProfileHtmlPrinter::render() const {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>atomstress profile</title>\n"
      "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;font-size:12px}"
      "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td:first-child,th:first-child{text-align:left}"
      "figure{margin:1em 0}figcaption{font-size:12px;margin-left:80px}</style>\n</head>\n<body>\n<h1>atomstress profile</h1>\n";
  out += "<p>command: <code>" + svg::escape(run_.command_line) + "</code><br>backend: " +
         svg::escape(to_string(run_.backend)) + " (" + svg::escape(run_.device) + ")</p>\n";
  for (const auto& n : notes_) out += "<p>" + svg::escape(n) + "</p>\n";
  if (points_.empty()) return out + "<p>No point was measured.</p>\n</body>\n</html>\n";
  // A kernel entry's points are times per launch, the others throughputs: apart.
  std::vector<ProfilePoint> per_item, per_launch;
  for (const auto& p : points_) (p.per_launch ? per_launch : per_item).push_back(p);
  if (!per_item.empty()) out += per_item_charts(per_item) + per_item_table(per_item);
  if (!per_launch.empty()) out += per_launch_section(per_launch);
  return out + "</body>\n</html>\n";
}

}  // namespace atomstress::reports
