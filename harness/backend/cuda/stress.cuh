// Stress incantations on the device (TrialSpec::stress; Alglave et al.
// ASPLOS'15, Sorensen and Donaldson PLDI'16, Kirkham et al. OOPSLA'20): a
// stressed launch has more physical blocks than the trial's grid.  A
// co-prime permutation maps each physical block to a logical one; logical
// blocks [0, grid) run the trial under that id (block code never sees a
// physical id), the others are stress blocks that hammer a scratchpad
// disjoint from the trial's memory until the last testing block is done.
// Within a testing block, thread ids may be permuted too (whole warps for
// algorithms, whose lanes must stay lanes), the testing blocks may meet at a
// bounded spin barrier before they start, and their warps may start skewed
// by bank-conflicted shared-memory stores.  Every loop here is bounded by an
// iteration cap and by the trial's deadline; a barrier that times out is
// released for everyone ("start anyway"), since an all-grid barrier only
// completes when every testing block is resident at once.
//
// Zero-initialised, StressLaunch is "no stress": logical ids are physical
// ones and nothing else happens.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "harness/prim/retry.cuh"
#include "harness/trial/spec.hpp"

namespace atomstress::cuda {

// Words of a stressed launch, zeroed before each launch.
struct StressControl {
  unsigned int arrived;   // testing blocks at the pre-test barrier
  unsigned int released;  // 1: a wait at the barrier timed out: everyone starts
  unsigned int finished;  // testing blocks done
  unsigned int done;      // 1: every testing block is done: stress blocks stop
  unsigned int sink;      // keeps the stress loads from being optimised away
};

enum StressThreadMode : uint32_t { kThreadsIdentity = 0, kThreadsPermuted = 1, kWarpsPermuted = 2 };

struct StressLaunch {
  uint32_t physical = 0;  // blocks launched; 0: no stress (identity ids, no stress blocks)
  uint32_t grid = 0;      // testing blocks (the trial's grid)
  // Physical block p runs logical block (p * block_mul + block_add) % physical.
  uint32_t block_mul = 1, block_add = 0;
  // Physical thread (or full warp) i runs logical (i * thread_mul + thread_add) % n.
  uint32_t thread_mode = kThreadsIdentity, thread_mul = 1, thread_add = 0;
  uint32_t hammer_blocks = 0;  // stress blocks [0, hammer_blocks) hammer, the others exit at once
  uint32_t lines = 1, stride = 1, access = 0;
  uint64_t barrier_ns = 0;     // 0: no pre-test barrier
  uint32_t skew_offset = 0;    // bank conflicts: byte offset of the 4 KiB skew scratch in shared memory
  uint32_t skew = 0;           // 1: warps start skewed
  uint32_t seed = 0;
  StressControl* control = nullptr;
  unsigned int* scratch = nullptr;
};

// Bounds: a stress block stops after this many rounds even if never told to.
inline constexpr uint32_t kStressMaxRounds = 1u << 22;
inline constexpr uint32_t kSkewScratchBytes = 32 * 32 * 4;  // 32 lanes x 32 words
inline constexpr uint32_t kSkewMaxRounds = 64;

__device__ __forceinline__ uint32_t stress_logical_block(const StressLaunch& st) {
  if (st.physical == 0) return blockIdx.x;
  return uint32_t((uint64_t(blockIdx.x) * st.block_mul + st.block_add) % st.physical);
}

__device__ __forceinline__ uint32_t stress_logical_thread(const StressLaunch& st) {
  const uint32_t t = threadIdx.x;
  if (st.thread_mode == kThreadsPermuted) return uint32_t((uint64_t(t) * st.thread_mul + st.thread_add) % blockDim.x);
  if (st.thread_mode == kWarpsPermuted) {
    // Only full warps move: a partial last warp keeps its lanes' mask.
    const uint32_t full = blockDim.x / 32, w = t / 32;
    if (w < full) return ((w * st.thread_mul + st.thread_add) % full) * 32 + (t & 31u);
  }
  return t;
}

// A stress block: rounds of two accesses on two scratchpad locations,
// `stride` words apart, until every testing block is done (or the bounds).
__device__ inline void stress_hammer(const StressLaunch& st, uint32_t index, uint64_t deadline_ns) {
  if (index >= st.hammer_blocks) return;
  volatile unsigned int* scratch = st.scratch;
  volatile unsigned int* done = &st.control->done;
  uint32_t j = (threadIdx.x + index * 7u) % st.lines;
  unsigned int v = threadIdx.x;
  for (uint32_t round = 0; round < kStressMaxRounds; ++round) {
    if ((round & 15u) == 0 && (*done != 0 || prim::now_ns() > deadline_ns)) break;
    const uint32_t k = j + 1 == st.lines ? 0 : j + 1;
    volatile unsigned int* a = scratch + uint64_t(j) * st.stride;
    volatile unsigned int* b = scratch + uint64_t(k) * st.stride;
    switch (st.access) {
      case 0: v += *a; v += *b; break;      // load/load
      case 1: v += *a; *b = v; break;       // load/store
      case 2: *a = v; v += *b; break;       // store/load
      default: *a = v; *b = v + 1; break;   // store/store
    }
    j = k;
  }
  if (v == 0x9e3779b9u) st.control->sink = v;
}

// Before the trial's code: the bounded barrier of the testing blocks, then
// the skew of their warps.
__device__ inline void stress_before_test(const StressLaunch& st, unsigned char* smem, uint32_t logical_block,
                                          uint64_t deadline_ns) {
  if (st.barrier_ns != 0) {
    __syncthreads();
    if (threadIdx.x == 0) {
      atomicAdd(&st.control->arrived, 1u);
      volatile unsigned int* arrived = &st.control->arrived;
      volatile unsigned int* released = &st.control->released;
      prim::Retry r;
      r.budget = 1u << 24;
      const uint64_t until = prim::now_ns() + st.barrier_ns;
      r.deadline_ns = until < deadline_ns ? until : deadline_ns;
      while (*arrived < st.grid && *released == 0) {
        if (!r.again()) {  // timed out: not every testing block is resident; start anyway
          atomicExch(&st.control->released, 1u);
          break;
        }
      }
    }
    __syncthreads();
  }
  if (st.skew != 0) {
    // A run of 32-way bank-conflicted stores (every lane of the warp on one
    // bank), of a length that differs between warps and blocks.
    volatile unsigned int* s = reinterpret_cast<volatile unsigned int*>(smem + st.skew_offset);
    const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x / 32;
    uint32_t h = (logical_block * 0x9e3779b1u) ^ (warp * 0x85ebca6bu) ^ st.seed;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    const uint32_t rounds = h % kSkewMaxRounds;
    for (uint32_t r = 0; r < rounds; ++r) s[lane * 32 + (r & 31u)] = r;
  }
}

// After the trial's code: the last testing block tells the stress blocks to stop.
__device__ inline void stress_after_test(const StressLaunch& st) {
  if (st.hammer_blocks == 0) return;
  __syncthreads();
  if (threadIdx.x == 0 && atomicAdd(&st.control->finished, 1u) == st.grid - 1) atomicExch(&st.control->done, 1u);
}

// ----------------------------------------------------------------- host
struct StressPlan {
  StressLaunch launch;       // what the kernel gets
  uint32_t blocks = 0;       // physical blocks to launch
  size_t smem_bytes = 0;     // dynamic shared memory per block (the program's, and the skew scratch)
};

// The launch of `spec` (its stress, on this device): the extra blocks capped
// at half the blocks of `kernel` that fit the device at once (so testing
// blocks always find room), permutations from the spec's seed.  `lanes_free`:
// the program's threads may be permuted one by one (single atomics), else
// only whole warps are (algorithms).  `program_smem`: the program's dynamic
// shared memory.  Lets the kernel take that much (allow_dynamic_shared).
// False with a one-line `error` on a CUDA failure or a block that cannot
// have that much.
bool plan_stress(const TrialSpec& spec, bool lanes_free, const void* kernel, size_t program_smem, StressPlan& plan,
                 std::string& error);
// Zeroes the control words before a launch of `plan` (nothing without stress).
bool arm_stress(const StressPlan& plan, std::string& error);

}  // namespace atomstress::cuda
