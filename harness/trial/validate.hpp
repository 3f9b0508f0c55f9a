// One validation and one normalisation of a TrialSpec, used by the CLI, the
// generators and the workload alike.  What the entry allows comes in as
// Constraints (the registry fills them), so this layer knows no entry.
#pragma once

#include <cstdint>
#include <string>

#include "harness/trial/spec.hpp"

namespace atomstress {

inline constexpr uint64_t kMaxTrialMemBytes = 1ull << 30;
inline constexpr uint64_t kMaxTrialOps = 1ull << 28;
inline constexpr uint32_t kMaxSharedBytes = 227u * 1024u;  // the sm_90 opt-in limit
inline constexpr uint32_t kMaxBlock = 1024;
inline constexpr uint32_t kMaxGrid = 0x7fffffffu;

struct Constraints {
  const char* name = "";
  unsigned value_bytes = 4;       // the width of the memory words the patterns lay out
  bool block_scope = false;       // atomic only among one block's threads
  bool algorithm = false;         // an algorithm: its form decides where it uses shared memory
  bool global_ok = true, shared_ok = true;
  uint32_t pattern_mask = kAllPatterns;  // bit p: pattern p means something here
  const char* pattern_rule = "";  // why the others do not, in words
  // Generation caps (normalise only; validate accepts more): the largest
  // region in bytes (privatised shared-memory bins) and the most ops
  // (serialised critical sections).  0: none.
  uint64_t max_region_bytes = 0;
  uint64_t max_ops = 0;
  bool pattern_ok(Pattern p) const { return (pattern_mask >> unsigned(p)) & 1u; }
};

// Whether a trial of this pattern and space (and grid) means something for
// the entry: its patterns, its memory spaces, its scope.
bool entry_allows(const Constraints& c, Pattern p, Space space, uint32_t grid);

// Caps a chosen k: the addresses fit the line (same_line), at most 64 pages
// (per_page), and within 32 KiB of shared memory.
void cap_k(TrialSpec& s, unsigned value_bytes);

// A one-line reason in `error` for a spec that cannot run.
bool validate(const TrialSpec& s, const Constraints& c, std::string& error);

// The stress fields alone (part of validate): within their ranges.
bool validate_stress(const Stress& st, std::string& error);
// Clamps the stress fields into their ranges, and clears the memory-stress
// fields when there are no stress blocks (one spelling of "none").
void normalise_stress(Stress& st);

// Makes a generated (or planned) spec valid and within the caps: a pattern
// and space the entry allows, a k that fits shared memory and the line, a
// block-scope atomic only on addresses private to a block, the generation
// caps.  `max_ops` caps grid * block * ops_per_thread.
void normalise(TrialSpec& s, const Constraints& c, uint64_t max_ops);
// The entry's own rules alone (space, pattern, generation caps), for a
// planned spec whose geometry was chosen on purpose.
void apply_caps(TrialSpec& s, const Constraints& c);

}  // namespace atomstress
