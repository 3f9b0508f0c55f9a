#include "fuzz/at_once_ramp.hpp"

#include <algorithm>

namespace atomstress::fuzz {

AtOnceRamp::AtOnceRamp(size_t low, size_t high, size_t start)
    : low_(std::max<size_t>(1, std::min(low, high))),
      high_(std::max<size_t>(1, high)),
      width_(std::clamp(start, low_, high_)),
      widest_(width_) {}

void AtOnceRamp::after_round(double wall_ms, double gpu_busy_ms) {
  if (wall_ms <= 0) return;  // nothing measured
  const double share = gpu_busy_ms / wall_ms;
  if (share < kWidenBelow) width_ = std::min(high_, width_ * 2);
  else if (share >= kNarrowFrom) width_ = std::max(low_, width_ / 2);
  widest_ = std::max(widest_, width_);
}

}  // namespace atomstress::fuzz
