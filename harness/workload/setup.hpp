// The arrays a family derives from a workload for one trial: what each
// element's key means (its address, accumulator, bin, lock or keep flag),
// the memory words and their initial values, append's output slots.
#pragma once

#include <cstdint>
#include <vector>

namespace atomstress {

struct Setup {
  std::vector<uint32_t> key;       // per element; empty: the workload's addresses
  std::vector<uint64_t> mem_init;  // the trial's memory words
  uint32_t out_slots = 0;          // append: output slots (filled with kEmptySlot)
  uint32_t param = 0;              // accumulators, bins, or locks (per block for block-scope locks)
  uint32_t smem_bytes = 0;         // dynamic shared memory per block
};
inline constexpr uint32_t kEmptySlot = 0xffffffffu;

}  // namespace atomstress
