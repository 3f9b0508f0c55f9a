// Algorithms built on atomics, on the harness side: the arrays a trial of an
// algorithm needs (derived from its Workload), the backends' entry points,
// and the sequential oracles.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/backend/backend.hpp"
#include "harness/workload/workload.hpp"

namespace atomstress {

struct AlgoSetup {
  std::vector<uint32_t> key;        // per element: accumulator, bin, lock, or keep flag
  std::vector<uint64_t> mem_init;   // the algorithm's memory words
  uint32_t out_slots = 0;           // append: output slots (filled with kEmptySlot)
  uint32_t param = 0;               // accumulators, bins, or locks (per block for block-scope locks)
  uint32_t smem_bytes = 0;          // dynamic shared memory per block
};
inline constexpr uint32_t kEmptySlot = 0xffffffffu;

// The arrays of a trial; a one-line `error` for a geometry the form cannot
// run (too many privatised bins for shared memory, say).
std::optional<AlgoSetup> algo_setup(const Workload& w, std::string& error);

// A backend's entry point for one algorithm.  History: old / retries /
// gave_up per element (where the element issued an atomic), final_mem = the
// algorithm's memory words, out = append's slots.
using AlgoRunFn = bool (*)(const Workload& w, const AlgoSetup& s, const RunOptions& o, History& h,
                           std::string& error);
AlgoRunFn algo_cpu_runner(size_t algo_index);  // null for a gpu-only form
AlgoRunFn algo_cuda_runner(size_t algo_index);

struct AlgoVerdict {
  bool ok = true;
  std::string why;
  int64_t bad_op = -1;
};
// The sequential oracle of the algorithm's family.
AlgoVerdict algo_check(const Workload& w, const AlgoSetup& s, const History& h);

// Whether a pattern means something for a family (sum: single, uniform =
// k accumulators, per_block; append and argmax: single; the rest: all).
bool algo_pattern_ok(Family f, Pattern p);
// Makes a generated spec valid for an algorithm: global memory, a pattern
// its family uses, shared bins that fit, a cap on serialised lock sections.
void algo_normalise(const ImplInfo& impl, TrialSpec& s);

}  // namespace atomstress
