// How many of a fuzz round's specs run at once (fuzz --trials-at-once):
// fixed, or widened where the last round left the GPU idle.
//
// A slice whose trials are host-bound (an algorithm over a fast atomic:
// kernels of microseconds, milliseconds of expansion and judging on the
// host) gets more trials through with more host threads; a slice whose
// trials keep the GPU busy gets nothing from more at once but longer
// kernels, each waiting behind the others, and a longer tail past its
// budget (the trials started there finish).  So the width starts low, is
// doubled after a round whose trials kept the GPU busy less than half its
// wall time, and halved (never below the start) after one that kept it
// busy nine tenths or more.
#pragma once

#include <cstddef>

namespace atomstress::fuzz {

// The most trials at once a fuzz run takes (--trials-at-once, a state file's
// at_once_next).
inline constexpr unsigned kMostTrialsAtOnce = 64;

class AtOnceRamp {
 public:
  // Between `low` trials at once and `high` (low == high: fixed), from
  // `start` (0: from `low`; an entry's next slice starts where its last
  // ended, fuzz/nightly.cpp).
  AtOnceRamp(size_t low, size_t high, size_t start = 0);
  size_t width() const { return width_; }
  // The widest it has been.
  size_t widest() const { return widest_; }
  // After a round: its wall time, and how long the GPU was busy with its
  // trials in it (the union of their kernels and their checking).
  void after_round(double wall_ms, double gpu_busy_ms);

  static constexpr double kWidenBelow = 0.5;   // busy share under which the next round runs more at once
  static constexpr double kNarrowFrom = 0.9;   // busy share from which it runs fewer

 private:
  size_t low_, high_, width_, widest_;
};

}  // namespace atomstress::fuzz
