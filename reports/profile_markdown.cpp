#include "reports/profile_markdown.hpp"

#include <fmt/format.h>

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


std::string ProfileMarkdownPrinter::render() const {
  std::string out = "# atomstress profile\n\n";
  out += "- command: `" + run_.command_line + "`\n- backend: " + to_string(run_.backend) + " (" +
         markdown_cell(run_.device) + ")\n";
  for (const auto& n : notes_) out += "- " + markdown_cell(n) + "\n";
  out += "\n| point | items/s | noise | retries/op | p50 | p99 | max | cycles/op | vs bare | verdict |\n";
  out += "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n";
  for (const auto& p : points_) {
    out += "| " + markdown_cell(p.name()) + " | " + fmt::format("{:.4g}", p.items_per_second) + " | " +
           (p.timing.batches < 2 ? std::string("- (one batch)") : fmt::format("{:.1f}%", 100 * p.timing.noise)) +
           (p.timing.converged ? "" : " (capped)") + " | " +
           fmt::format("{:.3f}", p.retries_mean) + " | " + std::to_string(p.retries_p50) + " | " +
           std::to_string(p.retries_p99) + " | " + std::to_string(p.retries_max) + " | " +
           (p.cycles_per_op ? fmt::format("{:.0f}", *p.cycles_per_op) : "-") + " | " +
           (p.ratio_to_baseline ? fmt::format("{:.3f}x", *p.ratio_to_baseline) : "-") + " | " + to_string(p.verdict) +
           (p.verdict == Verdict::Pass ? "" : ": " + markdown_cell(p.why)) + " |\n";
  }
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
