// How long something was busy with runs that may have overlapped (a fuzz
// round's trials at once, each on its own stream): the union of their
// intervals on one clock, each [end - ms, end] (History::kernel_end_s).  A
// run without a stamp (end 0) counts its own time whole.
//
// Two unions: the code under test's kernels (add), and the GPU's: those and
// atomstress's own device work for the same trials (add_own: checking a
// history on the device, judging a pack there).  The second is the GPU's
// busy share; the first, the share the code under test had of it.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

namespace atomstress {

class BusyTime {
 public:
  void add(double end_s, double ms) { put(end_s, ms, false); }
  void add_own(double end_s, double ms) { put(end_s, ms, true); }
  // Everything `other` counted (a round's own union, into its search's).
  void add_all(const BusyTime& other) {
    spans_.insert(spans_.end(), other.spans_.begin(), other.spans_.end());
    unstamped_ms_ += other.unstamped_ms_;
    unstamped_own_ms_ += other.unstamped_own_ms_;
  }
  // Milliseconds covered by at least one run of the code under test.
  double ms() const { return covered_ms(false); }
  // Milliseconds covered by at least one run or one piece of own work.
  double gpu_ms() const { return covered_ms(true); }

 private:
  struct Span {
    double start_s, end_s;
    bool own;
  };
  void put(double end_s, double ms, bool own) {
    if (ms <= 0) return;
    if (end_s <= 0) (own ? unstamped_own_ms_ : unstamped_ms_) += ms;
    else spans_.push_back({end_s - ms / 1000, end_s, own});
  }
  double covered_ms(bool with_own) const {
    std::vector<std::pair<double, double>> s;
    for (const Span& x : spans_)
      if (with_own || !x.own) s.emplace_back(x.start_s, x.end_s);
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
    return covered_s * 1000 + unstamped_ms_ + (with_own ? unstamped_own_ms_ : 0);
  }

  std::vector<Span> spans_;
  double unstamped_ms_ = 0, unstamped_own_ms_ = 0;
};

}  // namespace atomstress
