#include "harness/trial/patterns.hpp"

#include <algorithm>

namespace atomstress {

namespace {
// pattern_info indexes the table by the enum.
constexpr bool rows_in_enum_order() {
  for (int p = 0; p < kNumPatterns; ++p)
    if (kPatternTable[p].pattern != Pattern(p)) return false;
  return true;
}
static_assert(rows_in_enum_order(), "kPatternTable: one row per Pattern, in the enum's order");
}  // namespace

const PatternInfo& pattern_info(Pattern p) { return kPatternTable[static_cast<size_t>(p)]; }

const std::string& pattern_names_help() {
  static const std::string names = [] {
    std::string text;
    for (const PatternInfo& row : kPatternTable) text += (text.empty() ? "" : ",") + std::string(row.name);
    return text;
  }();
  return names;
}

PatternSizes pattern_sizes(const TrialSpec& s, unsigned bytes) {
  PatternSizes z;
  z.k = std::max<uint32_t>(s.k, 1);
  z.warps = (s.block + kWarpSize - 1) / kWarpSize;
  z.line = kLineBytes / bytes;
  z.page = kPageBytes / bytes;
  z.grid = s.grid;
  z.shared = s.space == Space::Shared;
  return z;
}

uint64_t region_words(const TrialSpec& s, unsigned bytes) {
  uint64_t region = pattern_region(s.pattern, pattern_sizes(s, bytes));
  const bool half = bytes == 2 && pattern_info(s.pattern).half_offset;
  if (half && one_address_per_group(s.pattern)) region *= 2;
  if (bytes == 2) region = (region + 1) & ~uint64_t(1);  // whole 32-bit words
  return region;
}

}  // namespace atomstress
