#include "harness/trial/patterns.hpp"

#include <algorithm>

namespace atomstress {

namespace {
constexpr PatternInfo kPatterns[kNumPatterns] = {
    {Pattern::Single, "single", false, false, "every operation on one address"},
    {Pattern::Uniform, "uniform", true, false, "k addresses, uniform"},
    {Pattern::Zipf, "zipf", true, false, "k addresses, Zipf-skewed (exponent zipf_s / 2)"},
    {Pattern::SameLine, "same_line", true, false, "k addresses inside one 128-byte line"},
    {Pattern::PerLine, "per_line", true, true, "k addresses, one per 128-byte line"},
    {Pattern::PerPage, "per_page", true, true, "k addresses, one per 4 KiB"},
    {Pattern::PerWarp, "per_warp", false, true, "one address per warp"},
    {Pattern::PerBlock, "per_block", false, true, "one address per block"},
};
// What every pattern's sizing reads from a spec.
struct Shape {
  bool shared;
  uint64_t k, warps, line, page;
  Shape(const TrialSpec& s, unsigned bytes)
      : shared(s.space == Space::Shared),
        k(std::max<uint32_t>(s.k, 1)),
        warps((s.block + kWarpSize - 1) / kWarpSize),
        line(kLineBytes / bytes),
        page(kPageBytes / bytes) {}
};

}  // namespace

const PatternInfo& pattern_info(Pattern p) { return kPatterns[static_cast<size_t>(p)]; }

uint64_t region_words(const TrialSpec& s, unsigned bytes) {
  const auto [shared, k, warps, line, page] = Shape(s, bytes);
  uint64_t region = 1;
  switch (s.pattern) {
    case Pattern::Single: region = 1; break;
    case Pattern::Uniform: case Pattern::Zipf: region = k; break;
    case Pattern::SameLine: region = line; break;
    case Pattern::PerLine: region = k * line; break;
    case Pattern::PerPage: region = k * page; break;
    case Pattern::PerWarp: region = shared ? warps : uint64_t(s.grid) * warps; break;
    case Pattern::PerBlock: region = shared ? 1 : s.grid; break;
  }
  const bool half = bytes == 2 && pattern_info(s.pattern).half_offset;
  if (half && (s.pattern == Pattern::PerWarp || s.pattern == Pattern::PerBlock)) region *= 2;
  if (bytes == 2) region = (region + 1) & ~uint64_t(1);  // whole 32-bit words
  return region;
}

}  // namespace atomstress
