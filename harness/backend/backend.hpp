// The backend interface: what a backend records for every operation of a
// trial (History), the options it runs under, and the device queries.  Each
// registry entry carries one runner per backend (registry.hpp RunFn),
// instantiated from the two templates in cpu/run_program.hpp and
// cuda/run_program.cuh.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "atomics_under_test/algorithms/program.cuh"
#include "harness/workload/setup.hpp"
#include "harness/workload/workload.hpp"

namespace atomstress {

enum class GaveUp : uint8_t { No = 0, Budget = 1, Watchdog = 2, Aborted = 3 };

struct History {
  std::vector<uint64_t> old;        // per op: the value the atomic returned
  std::vector<uint32_t> retries;    // per op: CAS retries (0 for native atomics)
  std::vector<uint32_t> cycles;     // per op: clock cycles spent in the call (cuda, single atomics; else empty)
  std::vector<uint8_t> gave_up;     // per op: GaveUp, | kBlockScopeBit for a block-scope atomic
  std::vector<uint64_t> final_mem;  // per memory word, after the trial
  std::vector<uint32_t> out;        // algorithms: output slots (append)
  double kernel_ms = 0;             // time of the launch (or of the host threads)
};

enum class BackendKind : uint8_t { Cuda, Cpu };
const char* to_string(BackendKind b);

struct RunOptions {
  uint32_t retry_budget = 1u << 20;
  uint64_t watchdog_ms = 0;      // 0: derived from the op count
  uint32_t cpu_threads = 4;      // host threads of the CPU backend
  uint32_t yield_permille = 20;  // CPU backend: chance of a yield at interleaving points
  uint32_t bench_reps = 0;       // cuda: >0 times this many launches, records nothing
  bool flush_l2 = false;         // cuda, with bench_reps: L2 flushed before each timed launch (cold)
};

// Watchdog deadline for a trial when none is given: 1 s plus 20 us per op.
uint64_t effective_watchdog_ms(const RunOptions& o, uint64_t ops);

// Whether a CUDA device is present and usable; `why` says why not.
bool cuda_available(std::string& why);
// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)".
std::string cuda_device_name();
// Free and total memory of the device; false when there is none.
bool cuda_memory(size_t& free, size_t& total);
int cuda_sm_count();
// The device's L2 cache in bytes (what a cold measurement flushes); 0 when there is none.
size_t cuda_l2_bytes();

}  // namespace atomstress
