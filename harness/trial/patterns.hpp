// The contention patterns in one place: the table (name, what it means, its
// traits) and, side by side, each pattern's two rules, for the host and the
// device alike: how many words a region holds (every place that sizes a
// trial's memory asks here) and which word an op targets (the expansion,
// workload/draw.hpp, on either side).  A new pattern is its enumerator in
// spec.hpp and its row and two rule cases here.
#pragma once

#include <cstdint>
#include <string>

#include "harness/prim/config.cuh"
#include "harness/trial/spec.hpp"

namespace atomstress {

inline constexpr uint32_t kLineBytes = 128;   // a cache line
inline constexpr uint32_t kPageBytes = 4096;  // a small page
inline constexpr uint32_t kWarpSize = 32;

struct PatternInfo {
  Pattern pattern;
  const char* name;
  bool uses_k;        // the k-address patterns
  bool half_offset;   // 16-bit targets sit in either half of their 32-bit word
  const char* what;   // one line for --help and docs
};
// One row per Pattern, in the enum's order (patterns.cpp checks it).
inline constexpr PatternInfo kPatternTable[kNumPatterns] = {
    {Pattern::Single, "single", false, false, "every operation on one address"},
    {Pattern::Uniform, "uniform", true, false, "k addresses, uniform"},
    {Pattern::Zipf, "zipf", true, false, "k addresses, Zipf-skewed (exponent zipf_s / 2)"},
    {Pattern::SameLine, "same_line", true, false, "k addresses inside one 128-byte line"},
    {Pattern::PerLine, "per_line", true, true, "k addresses, one per 128-byte line"},
    {Pattern::PerPage, "per_page", true, true, "k addresses, one per 4 KiB"},
    {Pattern::PerWarp, "per_warp", false, true, "one address per warp"},
    {Pattern::PerBlock, "per_block", false, true, "one address per block"},
};

const PatternInfo& pattern_info(Pattern p);
// Every pattern's name, in table order, comma-separated (for --help and
// refusals: "single,uniform,...").
const std::string& pattern_names_help();

// What a pattern's rules read of a trial, in words of its value width.
struct PatternSizes {
  uint64_t k = 1;       // addresses of a k-address pattern (at least 1)
  uint64_t warps = 1;   // warps per block
  uint64_t line = 1;    // words per cache line
  uint64_t page = 1;    // words per page
  uint64_t grid = 1;    // blocks
  bool shared = false;  // one region per block in shared memory (else one in global memory)
};

// One address per warp or per block: the region grows with the grid, and in
// global memory no two blocks share an address (block-private addresses; a
// 16-bit target's half offset takes a second word).
AS_HD constexpr bool one_address_per_group(Pattern p) { return p == Pattern::PerWarp || p == Pattern::PerBlock; }

// ---------------------------------------------------------------- the rules
// The words of one region, before the 16-bit adjustment (region_words).
AS_HD constexpr uint64_t pattern_region(Pattern p, const PatternSizes& z) {
  switch (p) {
    case Pattern::Single: return 1;
    case Pattern::Uniform: case Pattern::Zipf: return z.k;
    case Pattern::SameLine: return z.line;
    case Pattern::PerLine: return z.k * z.line;
    case Pattern::PerPage: return z.k * z.page;
    case Pattern::PerWarp: return z.shared ? z.warps : z.grid * z.warps;
    case Pattern::PerBlock: return z.shared ? 1 : z.grid;
  }
  return 1;
}

// The word, within its region, that an op of thread `lane` of block `blk`
// targets, before the 16-bit half offset; `r` is the op's address draw,
// `zipf_cdf` Zipf's k cumulative weights.
AS_HD inline uint64_t pattern_word(Pattern p, const PatternSizes& z, const double* zipf_cdf, uint32_t blk,
                                   uint32_t lane, uint64_t r) {
  switch (p) {
    case Pattern::Single: return 0;
    case Pattern::Uniform: return r % z.k;
    case Pattern::Zipf: {  // the first weight above u (std::upper_bound)
      const double u = double(r >> 11) * 0x1p-53;
      uint64_t lo = 0, hi = z.k;
      while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (u < zipf_cdf[mid]) hi = mid;
        else lo = mid + 1;
      }
      return lo >= z.k ? z.k - 1 : lo;
    }
    case Pattern::SameLine: return r % z.k;
    case Pattern::PerLine: return (r % z.k) * z.line;
    case Pattern::PerPage: return (r % z.k) * z.page;
    case Pattern::PerWarp: return (z.shared ? 0 : uint64_t(blk) * z.warps) + lane / kWarpSize;
    case Pattern::PerBlock: return z.shared ? 0 : blk;
  }
  return 0;
}

// --------------------------------------------------------- host-side sizing
// The sizes of a spec whose values are `bytes` wide.
PatternSizes pattern_sizes(const TrialSpec& s, unsigned bytes);

// Words of one region (all of global memory, or one block's shared copy) for
// a spec whose values are `bytes` wide.  May exceed 32 bits: callers refuse
// what does not fit.
uint64_t region_words(const TrialSpec& s, unsigned bytes);
}  // namespace atomstress
