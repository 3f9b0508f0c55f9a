// What a trial's device (or host) code gets, for single atomics and for the
// algorithms alike: one argument block and the per-element records.
// Element e = k * threads + t is the k-th operation (element) of global
// thread t.
#pragma once

#include <cstdint>

#include "harness/prim/prim.cuh"

namespace atomstress {

struct Args {
  uint64_t threads = 0;
  uint32_t per_thread = 0, block = 0, grid = 0;
  const uint32_t* key = nullptr;  // per element: address, accumulator, bin, lock, or keep flag
  const uint64_t* x = nullptr;    // per element: first operand (value) bits
  const uint64_t* y = nullptr;    // per element: second operand bits (single atomics)
  void* mem = nullptr;            // the trial's memory words
  uint32_t region_elems = 0;      // single atomics in shared memory: words per block
  uint32_t shared = 0;            // single atomics: 1 when the trial runs in shared memory
  uint32_t* out = nullptr;        // append: output slots
  uint64_t* old = nullptr;        // may be null (benchmarks): nothing recorded
  uint32_t* retries = nullptr;
  uint32_t* cycles = nullptr;     // may be null: no cycle counts
  uint8_t* gave = nullptr;
  prim::RetryShared* rs = nullptr;
  uint32_t budget = 1u << 20;
  uint64_t deadline_ns = 0;
  uint32_t param = 0;             // per family: accumulators, bins or locks per block
};

// Set in History::gave_up when the op used a block-scope atomic.
inline constexpr uint8_t kBlockScopeBit = 0x80;

AS_HD AS_FI prim::Retry make_retry(const Args& g) {
  prim::Retry r;
  r.budget = g.budget;
  r.shared = g.rs;
  r.deadline_ns = g.deadline_ns;
  return r;
}
// What element e's loop did: retries and whether it gave up (for the runner's
// hang check) and, with record(), the value its atomic returned.
AS_HD AS_FI void record_retries(const Args& g, uint64_t e, const prim::Retry& r) {
  if (g.old == nullptr) return;
  g.retries[e] = r.count;
  g.gave[e] = static_cast<uint8_t>(r.gave_up | (r.block_scope ? kBlockScopeBit : 0u));
}
AS_HD AS_FI void record(const Args& g, uint64_t e, uint64_t old_bits, const prim::Retry& r) {
  if (g.old == nullptr) return;
  g.old[e] = old_bits;
  record_retries(g, e, r);
}

}  // namespace atomstress
