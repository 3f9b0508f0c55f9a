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

void ProfileTablePrinter::do_record(const Record& r) {
  const ProfilePoint* point = as<ProfilePoint>(r);
  if (!point) return;
  const ProfilePoint& p = *point;
  if (!header_) {
    // The point's name last: it is long, and the numbers stay aligned.
    print("{:>11} {:>8} {:>9} {:>5} {:>5} {:>6} {:>10} {:>9} {:<7} {}\n", "items/s", "noise", "retries", "p50",
               "p99", "max", "cycles/op", "vs bare", "verdict", "point");
    header_ = true;
  }
  const std::string cycles = p.cycles_per_op ? fmt::format("{:.0f}", *p.cycles_per_op) : "-";
  const std::string ratio = p.ratio_to_baseline ? fmt::format("{:.3f}x", *p.ratio_to_baseline) : "-";
  // One batch has no noise to speak of: a dash, not a flattering 0 %.
  const std::string noise = p.timing.batches < 2
                                ? "-*"
                                : fmt::format("{:.1f}%{}", 100 * p.timing.noise, p.timing.converged ? "" : "*");
  print("{:11.4g} {:>8} {:9.3f} {:5} {:5} {:6} {:>10} {:>9} {:<7} {}\n", p.items_per_second, noise, p.retries_mean,
             p.retries_p50, p.retries_p99, p.retries_max, cycles, ratio, to_string(p.verdict), p.name());
  if (p.verdict != Verdict::Pass) print("      {}\n", p.why);
  std::fflush(stdout);
  points_.push_back(p);
}

bool ProfileTablePrinter::do_finish() {
  bool unconverged = false;
  for (const auto& p : points_) unconverged |= !p.timing.converged;
  if (unconverged) print("* the time cap stopped the timing before the noise fell under the bound\n");
  if (const ProfilePoint* m = most_contended(points_); m && !m->hotspots.empty()) {
    print("hottest addresses of the most contended point, {}:\n", m->name());
    print_hotspot_table(m->hotspots, 2);
  }
  return flush_stdout(error_);
}

}  // namespace atomstress::reports
