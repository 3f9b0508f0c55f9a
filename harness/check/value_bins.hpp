// The checker's fast path (checker_fast.inc) counts the values a single
// word's ops returned into bins, in its first pass over the history, so
// that its bucket sort needs no pass of its own to size the buckets.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace atomstress {

// Value bins over a window of `bins` bins (a power of two) that grows, its
// bins coarser, as the range of the values seen so far widens.
struct ValueBins {
  static constexpr size_t kMaxBins = size_t(1) << 16;

  bool on = false;
  unsigned shift = 0;
  uint64_t lo = 0;
  size_t bins = 0;
  std::vector<uint32_t> cnt, tmp;

  void start(size_t n) {
    on = false;
    bins = std::clamp<size_t>(std::bit_ceil(n >> 8), 256, kMaxBins);
  }
  // Every value seen so far, and every one still to count, is in [vmin,
  // vmax]: make the window hold them.
  void cover(uint64_t vmin, uint64_t vmax) {
    const unsigned nb = unsigned(std::countr_zero(bins));
    if (on && (vmin >> shift) >= lo && (vmax >> shift) - lo < bins) return;
    // At least one step coarser than before (at most 64 moves in all), with
    // the values in the middle half of the window.
    const unsigned w = unsigned(std::bit_width(vmax - vmin));
    const unsigned s = std::max(on ? shift + 1 : 0u, w + 1 > nb ? w + 1 - nb : 0u);
    if (s >= 63) {
      on = false;
      cnt.clear();
      return;
    }
    // (The midpoint without adding the two: values at or above 2^63, the
    // negative i64 and f64 patterns, would wrap the sum.)
    const uint64_t mid = (vmin >> s) + ((vmax >> s) - (vmin >> s)) / 2, top = ~uint64_t(0) >> s;
    const uint64_t l = top < bins ? 0 : std::min(mid > bins / 2 ? mid - bins / 2 : 0, top - (bins - 1));
    if (on) {
      tmp.assign(bins, 0);
      for (size_t i = 0; i < bins; ++i)
        if (cnt[i]) tmp[((lo + i) >> (s - shift)) - l] += cnt[i];
      cnt.swap(tmp);
    } else {
      cnt.assign(bins, 0);
    }
    on = true;
    shift = s;
    lo = l;
  }
};

}  // namespace atomstress
