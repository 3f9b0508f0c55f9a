// The contention patterns as one table: each pattern's name and how many
// memory words it needs (the word an op targets: workload/draw.hpp).  Every place
// that sizes a trial's memory (validation, expansion, caps, generators)
// asks here.
#pragma once

#include <cstdint>

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
const PatternInfo& pattern_info(Pattern p);

// Words of one region (all of global memory, or one block's shared copy) for
// a spec whose values are `bytes` wide.  May exceed 32 bits: callers refuse
// what does not fit.
uint64_t region_words(const TrialSpec& s, unsigned bytes);
}  // namespace atomstress
