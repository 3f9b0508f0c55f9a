#include "reports/profile_markdown.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace atomstress::reports {

std::string markdown_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}


namespace {
std::string noise_text(const ProfilePoint& p) {
  if (!p.timed()) return "-";  // a kernel entry that failed: its timing stopped there
  return (p.timing.batches < 2 ? std::string("- (one batch)") : fmt::format("{:.1f}%", 100 * p.timing.noise)) +
         (p.timing.converged ? "" : " (capped)");
}
std::string verdict_text(const ProfilePoint& p) {
  return to_string(p.verdict) + (p.verdict == Verdict::Pass ? "" : ": " + markdown_cell(p.why));
}

// Single atomics and algorithms: throughput and contention per point.
std::string per_item_table(const std::vector<ProfilePoint>& points) {
  std::string out = "\n| point | items/s | noise | retries/op | p50 | p99 | max | cycles/op | vs bare | verdict |\n";
  out += "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  for (const auto& p : points) {
    if (p.per_launch) continue;
    out += "| " + markdown_cell(p.name()) + " | " + fmt::format("{:.4g}", p.items_per_second) + " | " +
           noise_text(p) + " | " + fmt::format("{:.3f}", p.retries_mean) + " | " + std::to_string(p.retries_p50) +
           " | " + std::to_string(p.retries_p99) + " | " + std::to_string(p.retries_max) + " | " +
           (p.cycles_per_op ? fmt::format("{:.0f}", *p.cycles_per_op) : "-") + " | " +
           (p.ratio_to_baseline ? fmt::format("{:.3f}x", *p.ratio_to_baseline) : "-") + " | " + verdict_text(p) +
           " |\n";
  }
  return out;
}

// Kernel entries: time per launch (summed over the launches a property makes).
std::string per_launch_table(const std::vector<ProfilePoint>& points) {
  std::string out = "\n## Kernel entries: time per launch\n\n| point | us/launch | noise | verdict |\n";
  out += "| --- | ---: | ---: | --- |\n";
  for (const auto& p : points) {
    if (!p.per_launch) continue;
    out += "| " + markdown_cell(p.name()) + " | " +
           (p.timed() ? fmt::format("{:.4g}", p.us_per_launch()) : std::string("-")) + " | " +
           noise_text(p) + " | " + verdict_text(p) + " |\n";
  }
  return out;
}
}  // namespace

std::string ProfileMarkdownPrinter::render() const {
  std::string out = "# atomstress profile\n\n";
  out += "- command: `" + run_.command_line + "`\n- backend: " + to_string(run_.backend) + " (" +
         markdown_cell(run_.device) + ")\n";
  for (const auto& n : notes_) out += "- " + markdown_cell(n) + "\n";
  const auto kernels = std::count_if(points_.begin(), points_.end(), [](const ProfilePoint& p) { return p.per_launch; });
  if (kernels == 0 || size_t(kernels) < points_.size()) out += per_item_table(points_);
  if (kernels > 0) out += per_launch_table(points_);
  if (const ProfilePoint* m = most_contended(points_); m && !m->hotspots.empty()) {
    out += "\n## Hottest addresses of the most contended point\n\n`" + m->name() + "`\n\n";
    out += "| address | ops | retries | cycles/op |\n| ---: | ---: | ---: | ---: |\n";
    for (const auto& h : m->hotspots)
      out += "| " + std::to_string(h.addr) + " | " + std::to_string(h.ops) + " | " + std::to_string(h.retries) +
             " | " + fmt::format("{:.0f}", h.ops ? double(h.cycles) / double(h.ops) : 0.0) + " |\n";
  }
  return out;
}

}  // namespace atomstress::reports
