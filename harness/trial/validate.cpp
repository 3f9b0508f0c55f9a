#include "harness/trial/validate.hpp"

#include <algorithm>

#include "harness/trial/patterns.hpp"

namespace atomstress {

namespace {
// Scope: a block-scope atomic is only specified while each address is used
// by the threads of one block.
bool block_private(const TrialSpec& s) {
  return s.space == Space::Shared || s.grid <= 1 || one_address_per_group(s.pattern);
}
}  // namespace

bool entry_allows(const Constraints& c, Pattern p, Space space, uint32_t grid) {
  if (!c.pattern_ok(p)) return false;
  if (space == Space::Shared ? !c.shared_ok : !c.global_ok) return false;
  if (c.algorithm && space != Space::Global) return false;
  TrialSpec s;
  s.pattern = p;
  s.space = space;
  s.grid = grid;
  return !c.block_scope || block_private(s);
}

void cap_k(TrialSpec& s, unsigned bytes) {
  if (s.pattern == Pattern::SameLine) s.k = std::min<uint32_t>(s.k, kLineBytes / bytes);
  if (s.pattern == Pattern::PerPage) s.k = std::min<uint32_t>(s.k, 64);
  if (s.space == Space::Shared) {
    // Within 32 KiB of shared memory.
    const uint32_t per = s.pattern == Pattern::PerLine   ? kLineBytes / bytes
                         : s.pattern == Pattern::PerPage ? kPageBytes / bytes
                                                         : 1;
    s.k = std::max<uint32_t>(1, std::min<uint32_t>(s.k, (32768 / bytes) / per));
  }
}

bool validate(const TrialSpec& s, const Constraints& c, std::string& error) {
  if (s.grid == 0 || s.block == 0 || s.ops_per_thread == 0) {
    error = "impossible geometry: grid, block and ops-per-thread must all be at least 1";
    return false;
  }
  if (s.block > kMaxBlock) {
    error = "impossible geometry: block " + std::to_string(s.block) + " exceeds 1024 threads";
    return false;
  }
  if (s.grid > kMaxGrid) {
    error = "impossible geometry: grid exceeds 2^31 - 1 blocks";
    return false;
  }
  // In 128 bits: grid x block x ops-per-thread can pass 2^64 (and wrap to a small count).
  if (const unsigned __int128 ops = static_cast<unsigned __int128>(s.threads()) * s.ops_per_thread;
      ops > kMaxTrialOps) {
    std::string digits;
    for (unsigned __int128 v = ops; v != 0; v /= 10) digits.insert(digits.begin(), char('0' + int(v % 10)));
    error = "impossible geometry: trial too large: grid " + std::to_string(s.grid) + " x block " +
            std::to_string(s.block) + " x ops-per-thread " + std::to_string(s.ops_per_thread) + " = " + digits +
            " operations, more than the limit of 2^28";
    return false;
  }
  if (s.zipf_s < 1 || s.zipf_s > 4) {
    error = "zipf exponent must be 0.5, 1, 1.5 or 2";
    return false;
  }
  if (c.algorithm && s.space != Space::Global) {
    error = std::string(c.name) +
            ": algorithms run in global memory (the form decides where it uses shared memory): use --space global";
    return false;
  }
  if (!c.pattern_ok(s.pattern)) {
    error = std::string(c.name) + ": pattern " + to_string(s.pattern) + " means nothing here (" + c.pattern_rule + ")";
    return false;
  }
  if (s.space == Space::Shared && !c.shared_ok) {
    error = std::string(c.name) + " does not support shared memory";
    return false;
  }
  if (s.space == Space::Global && !c.global_ok) {
    error = std::string(c.name) + " does not support global memory";
    return false;
  }
  const unsigned bytes = c.value_bytes;
  if (s.pattern == Pattern::SameLine && s.k > kLineBytes / bytes) {
    error = "same_line allows at most " + std::to_string(kLineBytes / bytes) + " addresses of " +
            std::to_string(bytes) + " bytes in one 128-byte line";
    return false;
  }
  const uint64_t region = region_words(s, bytes), regions = s.space == Space::Shared ? s.grid : 1;
  if (s.space == Space::Shared && region * bytes > kMaxSharedBytes) {
    error = "impossible geometry: " + std::to_string(region * bytes) +
            " bytes of shared memory per block exceed the 227 KiB limit";
    return false;
  }
  if (region > kMaxTrialMemBytes || region * regions * bytes > kMaxTrialMemBytes) {
    error = "impossible geometry: trial memory exceeds 1 GiB";
    return false;
  }
  if (c.block_scope && !block_private(s)) {
    error = std::string(c.name) + " has block scope: use shared memory or the per_warp / per_block patterns";
    return false;
  }
  return validate_stress(s.stress, error);
}

bool validate_stress(const Stress& st, std::string& error) {
  if (st.blocks > kMaxStressBlocks) {
    error = "stress: at most " + std::to_string(kMaxStressBlocks) + " extra blocks";
    return false;
  }
  if (st.blocks > 0 && (st.lines < 1 || st.lines > kMaxStressLines || st.stride < 1 || st.stride > kMaxStressStride)) {
    error = "stress: 1 to " + std::to_string(kMaxStressLines) + " scratchpad lines and a stride of 1 to " +
            std::to_string(kMaxStressStride) + " words";
    return false;
  }
  if (st.mem_permille > 1000 || unsigned(st.access) >= unsigned(kNumStressAccesses)) {
    error = "stress: the hammering share is 0-1000 per mille and the access pattern one of four";
    return false;
  }
  if (st.barrier_us > kMaxStressBarrierUs) {
    error = "stress: the pre-test barrier's bound is at most " + std::to_string(kMaxStressBarrierUs) + " us";
    return false;
  }
  return true;
}

void normalise_stress(Stress& st) {
  st.blocks = std::min(st.blocks, kMaxStressBlocks);
  st.barrier_us = std::min(st.barrier_us, kMaxStressBarrierUs);
  if (st.blocks == 0) {
    // The memory-stress fields mean nothing without stress blocks: one spelling of "none".
    st.mem_permille = 0;
    st.lines = 0;
    st.stride = 0;
    st.access = StressAccess::LoadLoad;
    return;
  }
  st.mem_permille = std::min(st.mem_permille, 1000u);
  st.lines = std::clamp(st.lines, 1u, kMaxStressLines);
  st.stride = std::clamp(st.stride, 1u, kMaxStressStride);
  if (unsigned(st.access) >= unsigned(kNumStressAccesses)) st.access = StressAccess::LoadLoad;
}

void apply_caps(TrialSpec& s, const Constraints& c) {
  const unsigned bytes = c.value_bytes;
  if (!c.shared_ok) s.space = Space::Global;
  if (!c.global_ok) s.space = Space::Shared;
  if (!c.pattern_ok(s.pattern)) {
    // The nearest pattern the entry allows: per_warp becomes per_block, the
    // other patterns uniform, else single.
    if (s.pattern == Pattern::PerWarp && c.pattern_ok(Pattern::PerBlock)) s.pattern = Pattern::PerBlock;
    else if (c.pattern_ok(Pattern::Uniform)) s.pattern = Pattern::Uniform;
    else s.pattern = Pattern::Single;
  }
  if (c.max_region_bytes) {
    if (one_address_per_group(s.pattern))
      while (region_words(s, bytes) * bytes > c.max_region_bytes && s.grid > 1) s.grid /= 2;
    while (region_words(s, bytes) * bytes > c.max_region_bytes && s.k > 1) s.k /= 2;
  }
  if (c.max_ops) {
    while (s.ops() > c.max_ops && s.ops_per_thread > 1) --s.ops_per_thread;
    while (s.ops() > c.max_ops && s.grid > 1) s.grid = std::max<uint32_t>(1, s.grid / 2);
  }
}

void normalise(TrialSpec& s, const Constraints& c, uint64_t max_ops) {
  const unsigned bytes = c.value_bytes;
  while (s.ops() > max_ops && s.ops_per_thread > 1) --s.ops_per_thread;
  while (s.ops() > max_ops && s.grid > 1) s.grid = std::max<uint32_t>(1, s.grid / 2);
  // A block-scope atomic only on addresses private to a block.
  if (c.block_scope && !block_private(s)) s.space = Space::Shared;
  cap_k(s, bytes);
  apply_caps(s, c);
  normalise_stress(s.stress);
}

}  // namespace atomstress
