// How long something was busy with runs that may have overlapped (a fuzz
// round's trials at once, each on its own stream): the union of their
// intervals on one clock, each [end - ms, end] (History::kernel_end_s).  A
// run without a stamp (end 0) counts its own time whole.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

namespace atomstress {

class BusyTime {
 public:
  void add(double end_s, double ms) {
    if (ms <= 0) return;
    if (end_s <= 0) unstamped_ms_ += ms;
    else spans_.emplace_back(end_s - ms / 1000, end_s);
  }
  // Milliseconds covered by at least one run.
  double ms() const {
    std::vector<std::pair<double, double>> s = spans_;
    std::sort(s.begin(), s.end());
    double covered_s = 0, start = 0, end = 0;
    bool open = false;
    for (const auto& [b, e] : s) {
      if (open && b <= end) {
        end = std::max(end, e);
        continue;
      }
      if (open) covered_s += end - start;
      start = b;
      end = e;
      open = true;
    }
    if (open) covered_s += end - start;
    return covered_s * 1000 + unstamped_ms_;
  }

 private:
  std::vector<std::pair<double, double>> spans_;  // (start, end), seconds
  double unstamped_ms_ = 0;
};

}  // namespace atomstress
