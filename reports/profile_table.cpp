#include "reports/profile_table.hpp"

#include "reports/terminal.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace atomstress::reports {

void ProfileTablePrinter::do_note(const std::string& n) {
  std::printf("%s\n", n.c_str());
  std::fflush(stdout);
}

void ProfileTablePrinter::do_record(const Record& r) {
  const ProfilePoint* point = as<ProfilePoint>(r);
  if (!point) return;
  const ProfilePoint& p = *point;
  if (!header_) {
    // The point's name last: it is long, and the numbers stay aligned.
    std::printf("%11s %8s %9s %5s %5s %6s %10s %9s %-7s %s\n", "items/s", "noise", "retries", "p50", "p99", "max",
                "cycles/op", "vs bare", "verdict", "point");
    header_ = true;
  }
  char cycles[32] = "-", ratio[32] = "-";
  if (p.cycles_per_op) std::snprintf(cycles, sizeof cycles, "%.0f", *p.cycles_per_op);
  if (p.ratio_to_baseline) std::snprintf(ratio, sizeof ratio, "%.3fx", *p.ratio_to_baseline);
  char noise[32];
  // One batch has no noise to speak of: a dash, not a flattering 0 %.
  if (p.timing.batches < 2) std::snprintf(noise, sizeof noise, "-*");
  else std::snprintf(noise, sizeof noise, "%.1f%%%s", 100 * p.timing.noise, p.timing.converged ? "" : "*");
  std::printf("%11.4g %8s %9.3f %5u %5u %6u %10s %9s %-7s %s\n", p.items_per_second, noise, p.retries_mean,
              p.retries_p50, p.retries_p99, p.retries_max, cycles, ratio, to_string(p.verdict), p.name().c_str());
  if (p.verdict != Verdict::Pass) std::printf("      %s\n", p.why.c_str());
  std::fflush(stdout);
  points_.push_back(p);
}

bool ProfileTablePrinter::do_finish() {
  bool unconverged = false;
  for (const auto& p : points_) unconverged |= !p.timing.converged;
  if (unconverged) std::printf("* the time cap stopped the timing before the noise fell under the bound\n");
  if (const ProfilePoint* m = most_contended(points_); m && !m->hotspots.empty()) {
    std::printf("hottest addresses of the most contended point, %s:\n", m->name().c_str());
    print_hotspot_table(m->hotspots, 2);
  }
  return flush_stdout(error_);
}

}  // namespace atomstress::reports
