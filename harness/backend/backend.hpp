// The backend interface: what a backend records for every operation of a
// trial (History), the options it runs under, and the device queries.  Each
// registry entry carries one runner per backend (registry.hpp RunFn),
// instantiated from the two templates in cpu/run_program.hpp and
// cuda/run_program.cuh.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "atomics_under_test/algorithms/program.cuh"
#include "harness/trial/token.hpp"
#include "harness/workload/setup.hpp"
#include "harness/workload/workload.hpp"

namespace atomstress {

struct Finding;

// Why an op's loop gave up.  QueueTooSlow: it waited in a queue that kept
// moving (a ticket lock's FIFO) until the watchdog and the allowance
// (effective_queue_wait_ms) had both passed; WordKeptMoving: a
// compare-and-swap loop whose word kept changing (other ops succeeding)
// until then (prim::Retry::saw); Aborted: another loop gave up; Stalled: no
// op of the trial completed for effective_stall_ms while the loop ran (the
// stall watch, prim/retry.cuh).
enum class GaveUp : uint8_t {
  No = 0,
  Budget = 1,
  Watchdog = 2,
  Aborted = 3,
  QueueTooSlow = 4,
  WordKeptMoving = 5,
  Stalled = 6
};
// Whether the loop gave up by itself (a hang of its own), not because
// another did.
bool gave_up_by_itself(uint8_t recorded);

// Where a trial's history is: in History's arrays (Host), or left in the
// cuda runner's device buffers for the GPU checker (Device).
enum class HistoryHome : uint8_t { Host, Device };

// Why a runner that returned false failed, when the code under test caused
// it: a kernel stopped past its watchdog (trapped) or still running at the
// host's deadline (Hang), or a kernel faulted (Crash: illegal address, trap,
// ...).  None: the trial could not run (bad geometry, out of memory, ...).
enum class RunFault : uint8_t { None, Hang, Crash };

// A device buffer a trial allocated, as compute-sanitizer sees addresses
// (--sanitize): its elements [data, data + bytes) inside the allocation
// [alloc_base, alloc_base + alloc_bytes).  Kernel entries record theirs.
struct BufferExtent {
  std::string name;
  uint64_t data = 0, bytes = 0;
  uint64_t alloc_base = 0, alloc_bytes = 0;
  uint32_t elem_bytes = 1;
};

// Seconds on the host's steady clock (CLOCK_MONOTONIC on Linux: one clock
// for every process of the machine, so a worker's stamps and its
// supervisor's compare).
inline double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct History {
  std::vector<uint64_t> old;        // per op: the value the atomic returned
  std::vector<uint32_t> retries;    // per op: CAS retries (0 for native atomics)
  std::vector<uint32_t> cycles;     // per op: clock cycles spent in the call (cuda, single atomics; else empty)
  std::vector<uint8_t> gave_up;     // per op: GaveUp, | kBlockScopeBit for a block-scope atomic
  std::vector<uint64_t> final_mem;  // per memory word, after the trial
  std::vector<uint32_t> out;        // algorithms: output slots (append)
  double kernel_ms = 0;             // time of the launch (or of the host threads)
  double kernel_end_s = 0;          // steady_seconds() when that launch was seen to end (0: not stamped)
  RunFault fault = RunFault::None;  // set by a runner that returns false
  uint32_t stopped_retries = 0;     // a Hang: the retries of the loop its bound stopped (0: unknown)
  bool block_scope_calls = false;   // a user's code called a block-scope intrinsic (RetryShared)
  bool loop_stopped = false;        // a loop gave up (RetryShared::abort_flag), whether or not an op recorded it
  bool intercepted_calls = true;    // cpu: a user's code made an intercepted call (RetryShared); cuda: not asked
  // Where the history lives.  The pipeline decides it before the run (a
  // single atomic checked on the GPU: gpu_checked.hpp) and the cuda runner
  // honours it; Device: the per-op arrays and final_mem above stay empty,
  // the inputs and results are in the runner's device buffers until
  // copy_history_back brings them here (and sets Host).
  HistoryHome home = HistoryHome::Host;
  // A kernel entry (harness/kernel/): what its property found; null when it held.
  std::shared_ptr<const Finding> own_finding;
  // A kernel entry: its buffers (for --sanitize's explanations) and, with
  // RunOptions::trace_rows, the case as a table (repro --trace).
  std::vector<BufferExtent> buffers;
  std::vector<std::string> case_table;
};

enum class BackendKind : uint8_t { Cuda, Cpu };

// Which checker decides a single atomic's trial on the cuda backend: the
// host's (cpu), the device's (gpu: expanded, run and checked on the device;
// a trial it cannot pass is copied back and explained by the host's), both
// on the same history (a disagreement is an error), or gpu where it can
// (auto).  An algorithm's chain of atomics follows the same rule
// (pipeline/device_chains.hpp); the cpu backend always uses the host's.
enum class CheckerKind : uint8_t { Auto, Cpu, Gpu, Both };
const char* to_string(CheckerKind c);
std::optional<CheckerKind> parse_checker(std::string_view s);

// --sanitize: the compute-sanitizer tool a trial's worker runs under
// (harness/pipeline/sanitizer.hpp).  An execution setting: no token carries it.
enum class SanitizeTool : uint8_t { None, Memcheck, Racecheck, Synccheck };
const char* to_string(SanitizeTool t);  // "none", "memcheck", ...
std::optional<SanitizeTool> parse_sanitize_tool(std::string_view s);
const char* to_string(BackendKind b);
std::optional<BackendKind> parse_backend(std::string_view s);

// How the pipeline runs a trial; none of it changes what the trial does, so
// a token does not carry it.
struct ExecutionPolicy {
  // Run each trial in a supervised worker process
  // (harness/pipeline/execute_trial.hpp), so that a hang, trap or fault
  // costs one verdict.
  bool isolate = false;
  CheckerKind checker = CheckerKind::Auto;
  // The diagnosis replay (harness/pipeline/diagnose.hpp): the trial's ops run
  // one at a time, in ascending op order (each thread's program order), on
  // one thread, in global memory, and the judge says which op went wrong.
  bool sequential = false;
  uint32_t trace_rows = 0;  // with sequential: the first this many ops as a table (Outcome::trace_table)
  // The pipeline's choice: each trial in a fresh worker under compute-sanitizer
  // (isolated.hpp); kernel entries then allocate buffers without guard zones.
  SanitizeTool sanitize = SanitizeTool::None;
  // Processes time-slicing this GPU (fuzz --jobs: its lanes on one device).
  // A context gets about 1/gpu_share of the GPU while the others run, and
  // the watchdog counts wall time, so every watchdog is this many times
  // longer: a correct loop slowed by its neighbours must not read as a hang.
  uint32_t gpu_share = 1;
};

// profile's timing runs (cuda): the launches time the code, record nothing.
struct LaunchTiming {
  uint32_t bench_reps = 0;  // >0: times this many launches after a warm-up
  bool flush_l2 = false;    // with bench_reps: L2 flushed before each timed launch (cold)
};

// The options a trial runs under: what a reproduction token carries (the
// knobs change what the trial does), how the pipeline runs it, and profile's
// timing.  The run-settings table (run_settings.hpp) reads and writes them.
struct RunOptions {
  TrialKnobs knobs;
  ExecutionPolicy policy;
  LaunchTiming timing;
};

// Watchdog deadline for a trial when none is given: 1 s plus 20 us per op;
// under --sanitize kSanitizeSlowdown times that (the tools slow kernels
// 10 to 100 times, and a slow kernel must not read as a hang).  Given or
// derived, it is ExecutionPolicy::gpu_share times longer on a shared GPU.
inline constexpr uint64_t kSanitizeSlowdown = 50;
uint64_t effective_watchdog_ms(const RunOptions& o, uint64_t ops);

// The retry budget a trial's loops get.  One thread alone (a trial of one
// thread, or the diagnosis replay, which runs every op in one thread in
// program order) never waits for another: a correct loop of it succeeds at
// its first attempt, so kLoneThreadRetryBudget retries already prove that it
// does not end.  A hang found at one thread (shrinking's candidates and
// reruns, the diagnosis replay) then stops after a few milliseconds instead of
// a million round trips to memory (about a second each on an H100).
inline constexpr uint32_t kLoneThreadRetryBudget = 4096;
uint32_t effective_retry_budget(const RunOptions& o, const TrialSpec& spec);

// The stall watch (prim::RetryShared::stall_ns): a loop of `w` that sees no
// op of its trial complete for this long while it runs gives up (Stalled),
// instead of waiting for the watchdog (a correct contended loop on one word
// sees an op complete every few microseconds; a loop that never ends, all
// its trial's ops stuck, is found in a fraction of a second).  0: not
// watched.  It watches a user's single atomic (its loops are the
// intercepted calls that check it) on the cuda backend with the automatic
// watchdog, outside compute-sanitizer and profile's timing runs; an
// explicit --watchdog-ms turns it off.  Like the watchdog it is gpu_share
// times longer on a shared GPU.
inline constexpr uint64_t kStallMs = 200;
uint64_t effective_stall_ms(const RunOptions& o, const Workload& w);

// How much longer than its watchdog a loop of `w` that sees its queue or its
// word keep moving may go on (Args::queue_wait_ns; the family's
// queue_wait_ms).  The host's own deadlines for the trial add it.
uint64_t effective_queue_wait_ms(const RunOptions& o, const Workload& w);

// Whether a CUDA device is present and usable; `why` says why not.
bool cuda_available(std::string& why);
// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)".
std::string cuda_device_name();
// The driver as nvidia-smi names it, with the CUDA version it supports:
// "580.159.04 (CUDA 13.0)" (the kernel module's version from
// /proc/driver/nvidia/version; "CUDA 13.0" alone where that file is absent;
// empty without a driver).
std::string cuda_driver_version();
// The kernel module's version in a /proc/driver/nvidia/version first line
// ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue ..."); "" if none.
std::string nvidia_module_version(const std::string& proc_line);
// Free and total memory of the device; false when there is none.
bool cuda_memory(size_t& free, size_t& total);
int cuda_sm_count();
// The device's L2 cache in bytes (what a cold measurement flushes); 0 when there is none.
size_t cuda_l2_bytes();
// Creates this process's CUDA context now (a worker pays its start-up before
// its first trial's deadline begins); false with `why` when it cannot.
bool cuda_warm_up(std::string& why);
// After a sticky device error (illegal address, trap, ...) or a kernel still
// running past the host's deadline, this process's CUDA context is of no
// further use: true from then on, with the reason in `why`.
bool cuda_context_lost(std::string& why);

}  // namespace atomstress
