#include "reports/profile_table.hpp"

#include "reports/terminal.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

namespace atomstress::reports {

void ProfileTablePrinter::do_note(const std::string& n) {
  print("{}\n", n);
  std::fflush(stdout);
}

namespace {
// One batch has no noise to speak of: a dash, not a flattering 0 %.
std::string noise_cell(const ProfilePoint& p) {
  if (!p.timed()) return "-";  // a kernel entry that failed: its timing stopped there
  return p.timing.batches < 2 ? "-*" : fmt::format("{:.1f}%{}", 100 * p.timing.noise, p.timing.converged ? "" : "*");
}

// A kernel entry's row: its time per launch, no per-op figures (it has none).
void print_per_launch(const ProfilePoint& p, bool header) {
  if (header) print("{:>11} {:>8} {:<7} {}\n", "us/launch", "noise", "verdict", "point");
  // No time when the kernel failed, hung or faulted: its timing stopped there.
  const std::string time = p.timed() ? fmt::format("{:.4g}", p.us_per_launch()) : "-";
  print("{:>11} {:>8} {:<7} {}\n", time, noise_cell(p), to_string(p.verdict), p.name());
}

void print_per_item(const ProfilePoint& p, bool header) {
  // The point's name last: it is long, and the numbers stay aligned.
  if (header)
    print("{:>11} {:>8} {:>9} {:>5} {:>5} {:>6} {:>10} {:>9} {:<7} {}\n", "items/s", "noise", "retries", "p50", "p99",
          "max", "cycles/op", "vs bare", "verdict", "point");
  const std::string cycles = p.cycles_per_op ? fmt::format("{:.0f}", *p.cycles_per_op) : "-";
  const std::string ratio = p.ratio_to_baseline ? fmt::format("{:.3f}x", *p.ratio_to_baseline) : "-";
  print("{:11.4g} {:>8} {:9.3f} {:5} {:5} {:6} {:>10} {:>9} {:<7} {}\n", p.items_per_second, noise_cell(p),
        p.retries_mean, p.retries_p50, p.retries_p99, p.retries_max, cycles, ratio, to_string(p.verdict), p.name());
}
}  // namespace

void ProfileTablePrinter::do_record(const Record& r) {
  const ProfilePoint* point = as<ProfilePoint>(r);
  if (!point) return;
  const ProfilePoint& p = *point;
  // A header before the first row, and again where the rows change unit
  // (items per second, or a kernel entry's microseconds per launch).
  const bool header = points_.empty() || points_.back().per_launch != p.per_launch;
  if (p.per_launch) print_per_launch(p, header);
  else print_per_item(p, header);
  if (p.verdict != Verdict::Pass) print("      {}\n", p.why);
  std::fflush(stdout);
  points_.push_back(p);
}

bool ProfileTablePrinter::do_finish() {
  bool unconverged = false;
  for (const auto& p : points_) unconverged |= p.timed() && !p.timing.converged;
  if (unconverged) print("* the time cap stopped the timing before the noise fell under the bound\n");
  if (const ProfilePoint* m = most_contended(points_); m && !m->hotspots.empty()) {
    print("hottest addresses of the most contended point, {}:\n", m->name());
    print_hotspot_table(m->hotspots, 2);
  }
  return flush_stdout(error_);
}

}  // namespace atomstress::reports
