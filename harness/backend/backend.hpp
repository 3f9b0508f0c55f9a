// History: what a backend recorded for every operation of a trial, and the
// backend interface that produces it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/workload/workload.hpp"

namespace atomstress {

enum class GaveUp : uint8_t { No = 0, Budget = 1, Watchdog = 2, Aborted = 3 };
// Set in History::gave_up when the op used a block-scope atomic.
inline constexpr uint8_t kBlockScopeBit = 0x80;

struct History {
  std::vector<uint64_t> old;      // per op: the value the atomic returned
  std::vector<uint32_t> retries;  // per op: CAS retries (0 for native atomics)
  std::vector<uint32_t> cycles;   // per op: clock cycles spent in the call (cuda only; else empty)
  std::vector<uint8_t> gave_up;   // per op: GaveUp, | kBlockScopeBit for a block-scope atomic
  std::vector<uint64_t> final_mem;  // per element, after the trial
  std::vector<uint32_t> out;        // algorithms: output slots (append)
  double kernel_ms = 0;           // time of the launch (or of the host threads)
};

enum class BackendKind : uint8_t { Cuda, Cpu };
const char* to_string(BackendKind b);

struct RunOptions {
  uint32_t retry_budget = 1u << 20;
  uint64_t watchdog_ms = 0;        // 0: derived from the op count
  uint32_t cpu_threads = 4;        // host threads of the CPU backend
  uint32_t yield_permille = 20;    // CPU backend: chance of a yield at interleaving points
  uint32_t bench_reps = 0;         // algorithms on cuda: >0 times this many launches, records nothing
};

// Watchdog deadline for a trial when none is given: 1 s plus 20 us per op.
uint64_t effective_watchdog_ms(const RunOptions& o, uint64_t ops);

// now_ns + ms (or + ns), saturating: a huge watchdog means "no deadline",
// never a deadline that wrapped into the past.  constexpr, so device code
// can call it too.
constexpr uint64_t deadline_after_ns(uint64_t now_ns, uint64_t ns) {
  return ns > ~uint64_t(0) - now_ns ? ~uint64_t(0) : now_ns + ns;
}
constexpr uint64_t deadline_after_ms(uint64_t now_ns, uint64_t ms) {
  return ms > (~uint64_t(0) - now_ns) / 1000000u ? ~uint64_t(0) : now_ns + ms * 1000000u;
}

// A backend's entry point for one catalogue implementation.  Returns false
// with a one-line `error` for a trial the backend cannot run (a device error,
// a geometry the device cannot launch).
using RunFn = bool (*)(const Workload& w, const RunOptions& o, History& h, std::string& error);

// Implemented by backend_cpu.cpp and backend_cuda.cu, indexed like catalogue().
RunFn cpu_runner(size_t impl_index);
RunFn cuda_runner(size_t impl_index);

// Whether a CUDA device is present and usable; `why` says why not.
bool cuda_available(std::string& why);
// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)".
std::string cuda_device_name();
// Free and total memory of the device; false when there is none.
bool cuda_memory(size_t& free, size_t& total);
int cuda_sm_count();

}  // namespace atomstress
