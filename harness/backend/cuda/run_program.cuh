// The CUDA backend's runner: a trial program (a single atomic, or an
// algorithm's block code) launched by one of three launchers (recording,
// timing, GPU-checked) over one launch, every buffer reused across trials,
// every call checked.  It never waits for ever: every retry loop on the
// device is bounded (harness/prim/retry.cuh) and the host waits with a
// deadline.  A kernel that faults, traps or outlives that deadline returns
// false with History::fault saying which (a Crash or a Hang).  With
// RunOptions::timing.bench_reps it times launches instead (memory restored before
// each, nothing recorded; with RunOptions::timing.flush_l2 the L2 flushed before
// each, outside the timed region), for the profiler and the benchmarks.
//
// Include this only from the unit that registers the entries (so each
// kernel is instantiated once).
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <vector>

#include "harness/backend/backend.hpp"
#include "harness/backend/cuda/array_fills.hpp"
#include "harness/backend/cuda/resident.hpp"
#include "harness/backend/cuda/stress.cuh"
#include "harness/backend/cuda/util.cuh"
#include "harness/backend/trial_cancel.hpp"
#include "harness/prim/call_scope.cuh"
#include "harness/registry/bits.hpp"

namespace atomstress {

template <class P>
__global__ void program_kernel(Args g, uint64_t watchdog_ms, cuda::StressLaunch st) {
  extern __shared__ __align__(16) unsigned char smem[];
  g.deadline_ns = prim::deadline_after_ms(prim::now_ns(), watchdog_ms);
  // Stress (stress.cuh; none when `st` is zero): physical blocks run logical
  // ones; those past the trial's grid hammer the scratchpad instead.
  const uint32_t b = cuda::stress_logical_block(st);
  if (b >= g.grid) {
    cuda::stress_hammer(st, b - g.grid, g.deadline_ns);
    return;
  }
  prim::MappedBlock c{smem, b, cuda::stress_logical_thread(st)};
  cuda::stress_before_test(st, smem, b, g.deadline_ns);
  P::run(c, g);
  cuda::stress_after_test(st);
}

// The diagnosis replay (RunOptions::policy.sequential): one thread runs the trial's
// ops one at a time, single atomics in ascending op order in global memory,
// algorithms block after block, each block's threads in turn up to each
// sync (prim::HostBlock on the device), as the CPU backend's one worker does.
template <class P>
__global__ void sequential_kernel(Args g, uint64_t watchdog_ms) {
  extern __shared__ __align__(16) unsigned char smem[];
  // The deadline is set in each branch that runs ops: nvcc warns of a
  // parameter set and never used in one that runs none.
  if constexpr (P::thread_scheduled) {
    g.deadline_ns = prim::deadline_after_ms(prim::now_ns(), watchdog_ms);
    using M = typename P::M;
    M* mem = static_cast<M*>(g.mem);
    const uint64_t n = g.threads * g.per_thread;
    for (uint64_t o = 0; o < n; ++o) P::device_op(g, mem + g.key[o], o);
  } else {
    if constexpr (!P::gpu_only) {  // warp intrinsics need their warp: not replayed alone
      g.deadline_ns = prim::deadline_after_ms(prim::now_ns(), watchdog_ms);
      for (uint32_t b = 0; b < g.grid; ++b) {
        prim::HostBlock c{b, g.block, smem};
        P::run(c, g);
      }
    }
  }
}

namespace cuda {
// Device buffers shared by every program (one trial at a time on each host
// thread), grow-only.
struct TrialBuffers {
  DevBuf key, x, y, mem, pristine, out, old, retries, cycles, gave, rs;
  DevBuf init;  // the resident path: initial values as 64-bit patterns (resident.hpp)
  // Whose inputs key, x and y hold (Workload::device_inputs; 0: none
  // known), and where they were then (a buffer that grew lost them).
  uint64_t inputs_mark = 0;
  const void* marked_at[3] = {};
};
TrialBuffers& trial_buffers();
// Key, x and y hold a device expansion's inputs, under a mark unique in
// the process (a workload run on another thread never matches).
inline uint64_t mark_inputs(TrialBuffers& B) {
  static std::atomic<uint64_t> last{0};
  B.inputs_mark = ++last;
  B.marked_at[0] = B.key.p;
  B.marked_at[1] = B.x.p;
  B.marked_at[2] = B.y.p;
  return B.inputs_mark;
}
inline bool holds_inputs(const TrialBuffers& B, uint64_t mark) {
  return mark != 0 && B.inputs_mark == mark && B.marked_at[0] == B.key.p && B.marked_at[1] == B.x.p &&
         B.marked_at[2] == B.y.p;
}
// The host-mapped word a stopped user loop writes before it traps
// (prim::RetryShared::stop_note), allocated once per host thread; null with `error` set when
// the device cannot map host memory.
unsigned int* stop_note(std::string& error);
// A cancel of the running launch (backend/trial_cancel.hpp): its abort flag
// in `rs` (a device prim::RetryShared) set from the host while the kernel runs.
void request_abort_on_device(prim::RetryShared* rs);
}  // namespace cuda

namespace cuda {

// One launch of a trial program: the buffers it reads and writes are filled,
// its arguments set.  The launchers below (recording, timing, GPU-checked)
// share it.
struct ProgramLaunch {
  Args g;
  StressPlan stress;
  uint64_t words = 0;  // the trial's memory, in elements
  uint64_t watchdog_ms = 0;
  uint64_t queue_wait_ms = 0;  // a live queue's waiters may wait this much longer (Args::queue_wait_ns)
  uint64_t stall_ms = 0;       // the stall watch (effective_stall_ms; 0: off)
  size_t out_slots = 0, smem_bytes = 0;
  unsigned int* note = nullptr;  // stop_note()
};

// Sizes the buffers, fills the inputs (expanded on the device when
// `resident`, else copied from w and s, `mem` keeping the initial memory)
// and sets the arguments.  `recording`: the kernel writes each op's old
// value.
template <class P>
bool prepare_launch(const Workload& w, const Setup& s, const RunOptions& opt, bool resident, bool recording,
                    std::vector<typename P::M>& mem, ProgramLaunch& L, std::string& error) {
  using M = typename P::M;
  cudaDeviceProp prop;
  if (!device_props(prop, error)) return false;
  const auto& spec = w.spec;
  if (!check_geometry(prop, spec.grid, spec.block, s.smem_bytes, error)) return false;
  // The launch's blocks and shared memory, with the spec's stress (also sets
  // the kernel's attribute for more than 48 KiB).
  if (!plan_stress(spec, P::thread_scheduled, reinterpret_cast<const void*>(program_kernel<P>), s.smem_bytes,
                   L.stress, error))
    return false;
  const uint64_t n = w.ops();
  L.words = resident ? w.mem_elems() : s.mem_init.size();
  L.out_slots = s.out_slots;
  L.smem_bytes = s.smem_bytes;
  L.watchdog_ms = effective_watchdog_ms(opt, n);
  L.queue_wait_ms = effective_queue_wait_ms(opt, w);
  L.stall_ms = effective_stall_ms(opt, w);
  const std::vector<uint32_t>& key = s.key.empty() ? w.addr : s.key;
  auto& B = trial_buffers();
  AS_CUDA_TRY(B.key.ensure(n * 4));
  AS_CUDA_TRY(B.x.ensure(n * 8));
  AS_CUDA_TRY(B.y.ensure(n * 8));
  AS_CUDA_TRY(B.mem.ensure(L.words * sizeof(M) + 16));
  AS_CUDA_TRY(B.pristine.ensure(L.words * sizeof(M) + 16));
  AS_CUDA_TRY(B.out.ensure(size_t(s.out_slots) * 4 + 4));
  AS_CUDA_TRY(B.old.ensure(n * 8));
  AS_CUDA_TRY(B.retries.ensure(n * 4));
  if (P::records_cycles) AS_CUDA_TRY(B.cycles.ensure(n * 4));
  AS_CUDA_TRY(B.gave.ensure(n));
  AS_CUDA_TRY(B.rs.ensure(sizeof(prim::RetryShared)));
  L.note = stop_note(error);
  if (L.note == nullptr) return false;
  if (resident) {
    if (!expand_inputs(w, sizeof(M), error)) return false;
  } else {
    mem.resize(L.words);
    for (uint64_t i = 0; i < L.words; ++i) mem[i] = from_bits<M>(s.mem_init[i]);
    // Inputs expanded on the device for the host are there still: only
    // what the family's setup made goes up.
    const bool expanded_here = holds_inputs(B, w.device_inputs);
    const bool key_here = expanded_here && s.key.empty();
    const Transfer inputs[] = {{key.data(), B.key.p, key_here ? 0 : n * 4},
                               {w.a.data(), B.x.p, expanded_here ? 0 : n * 8},
                               {w.b.data(), B.y.p, expanded_here ? 0 : n * 8},
                               {mem.data(), B.pristine.p, L.words * sizeof(M)}};
    if (!key_here) B.inputs_mark = 0;
    AS_CUDA_TRY(copy_all_to_device(inputs));
  }
  // On this thread's stream, before the launch that reads them.
  const ArrayFill zeroed[] = {{B.old.p, nullptr, n * 8, 0}, {B.retries.p, nullptr, n * 4, 0}, {B.gave.p, nullptr, n, 0}};
  if (!queue_array_fills(zeroed, error)) return false;
  Args& g = L.g;
  g.threads = spec.threads();
  g.per_thread = spec.ops_per_thread;
  g.block = spec.block;
  g.grid = spec.grid;
  g.key = B.key.as<uint32_t>();
  g.x = B.x.as<uint64_t>();
  g.y = B.y.as<uint64_t>();
  g.mem = B.mem.p;
  g.region_elems = w.region_elems;
  g.shared = spec.space == Space::Shared ? 1u : 0u;
  g.out = B.out.as<uint32_t>();
  g.old = recording ? B.old.as<uint64_t>() : nullptr;
  g.retries = B.retries.as<uint32_t>();
  g.cycles = P::records_cycles && !resident ? B.cycles.as<uint32_t>() : nullptr;
  g.gave = B.gave.as<uint8_t>();
  g.rs = B.rs.as<prim::RetryShared>();
  g.budget = effective_retry_budget(opt, spec);
  g.queue_wait_ns = L.queue_wait_ms * 1000000u;
  g.param = s.param;
  g.stall_watch = L.stall_ms != 0 ? 1u : 0u;
  return true;
}

// Why the last launch's kernel failed, when a user's loop stopped by the
// intercepted intrinsics noted it before it trapped (prim/call_scope.cuh):
// a hang, however soon it came (also past the watchdog time: the note says
// which bound stopped it, and after how many retries).
template <class P>
void read_stop_note(const ProgramLaunch& L, History& h, std::string& error) {
  const unsigned int why = reinterpret_cast<volatile unsigned int*>(L.note)[0];
  if (h.fault == RunFault::None || (why & 0xff000000u) != prim::kStopNoteTag) return;
  h.fault = RunFault::Hang;
  h.stopped_retries = reinterpret_cast<volatile unsigned int*>(L.note)[1];
  const unsigned int code = why & 0xffu;
  error = std::string(P::name) + ": a loop in the code under test was stopped " +
          (code == 1   ? std::string("past its retry budget")
           : code == 6 ? "when no op of the trial had completed for " + std::to_string(L.stall_ms) + " ms"
                       : std::string("past the trial's deadline")) +
          " after " + std::to_string(h.stopped_retries) + " retries, and the kernel trapped";
}

// One launch from the pristine memory, waited for with a deadline: its
// kernel time in `ms`.  `flush`: L2 flushed before the start event.
template <class P>
bool launch_program(ProgramLaunch& L, const RunOptions& opt, bool flush, History& h, float& ms, std::string& error) {
  using M = typename P::M;
  auto& B = trial_buffers();
  prim::RetryShared rs_init{0u, L.note, 0u, L.stall_ms * 1000000u, {}};
  Event e0, e1;
  AS_CUDA_TRY(e0.create());
  AS_CUDA_TRY(e1.create());
  const ArrayFill restored[] = {{B.mem.p, B.pristine.p, L.words * sizeof(M), 0},
                                {B.out.p, nullptr, L.out_slots * 4 + 4, 0xff}};
  if (!queue_array_fills(restored, error)) return false;
  reinterpret_cast<volatile unsigned int*>(L.note)[0] = 0;
  reinterpret_cast<volatile unsigned int*>(L.note)[1] = 0;
  if (!arm_stress(L.stress, error)) return false;
  AS_CUDA_TRY(copy_to_device_landed(B.rs.p, &rs_init, sizeof rs_init));  // before a cancel may set its flag
  const CancelWhileRunning cancel_guard([rs = B.rs.as<prim::RetryShared>()] { request_abort_on_device(rs); });
  // Cold: the restored memory and the inputs leave L2 before the start event.
  if (flush && !flush_l2(error)) return false;
  AS_CUDA_TRY(cudaEventRecord(e0.e));
  const auto launched = std::chrono::steady_clock::now();
  if (opt.policy.sequential) {
    if constexpr (!P::thread_scheduled) {
      if constexpr (P::gpu_only) {
        error = std::string(P::name) + " uses warp intrinsics: it is not replayed one thread at a time";
        return false;
      }
    }
    Args g = L.g;
    g.shared = 0;
    if (!allow_dynamic_shared(reinterpret_cast<const void*>(sequential_kernel<P>), L.smem_bytes, error)) return false;
    sequential_kernel<P><<<1, 1, L.smem_bytes>>>(g, L.watchdog_ms);
  } else {
    program_kernel<P><<<L.stress.blocks, L.g.block, L.stress.smem_bytes>>>(L.g, L.watchdog_ms, L.stress.launch);
  }
  AS_CUDA_TRY(cudaGetLastError());  // a launch that did not start (configuration): no fault of the code
  AS_CUDA_TRY(cudaEventRecord(e1.e));
  if (!wait_bounded(e1.e, launched, L.watchdog_ms + L.queue_wait_ms, P::name, h.fault, error)) {
    read_stop_note<P>(L, h, error);
    return false;
  }
  AS_CUDA_TRY(cudaEventElapsedTime(&ms, e0.e, e1.e));
  h.kernel_end_s = steady_seconds();
  return true;
}

// What the last launch left in RetryShared: whether its code made a
// block-scope call, and whether a loop gave up.
inline void note_retry_shared(const prim::RetryShared& after, History& h) {
  h.block_scope_calls = after.block_scope_calls != 0;
  h.loop_stopped = after.abort_flag != 0;
}
inline bool read_retry_shared(History& h, std::string& error) {
  prim::RetryShared rs_after{};
  AS_CUDA_TRY(copy_to_host(&rs_after, trial_buffers().rs.p, sizeof rs_after));
  note_retry_shared(rs_after, h);
  return true;
}

}  // namespace cuda

// Recording: one launch, and its history (each op's old value, retries,
// give-ups, cycles, the out slots, the final memory) copied back into h.
template <class P>
bool run_recorded(const Workload& w, const Setup& s, const RunOptions& opt, History& h, std::string& error) {
  using M = typename P::M;
  std::vector<M> mem;
  cuda::ProgramLaunch L;
  if (!cuda::prepare_launch<P>(w, s, opt, false, true, mem, L, error)) return false;
  float ms = 0;
  if (!cuda::launch_program<P>(L, opt, false, h, ms, error)) return false;
  h.kernel_ms = ms;
  const uint64_t n = w.ops(), words = L.words;
  auto& B = cuda::trial_buffers();
  mem.resize(words);
  h.old.resize(n);
  h.retries.resize(n);
  h.gave_up.resize(n);
  h.out.resize(s.out_slots);
  h.cycles.clear();
  if (P::records_cycles) h.cycles.resize(n);
  prim::RetryShared rs_after{};
  const cuda::Transfer history[] = {
      cuda::to_host(B.old.p, h.old),   cuda::to_host(B.retries.p, h.retries), cuda::to_host(B.gave.p, h.gave_up),
      cuda::to_host(B.cycles.p, h.cycles), cuda::to_host(B.out.p, h.out),   cuda::to_host(B.mem.p, mem),
      {B.rs.p, &rs_after, sizeof rs_after}};
  AS_CUDA_TRY(cuda::copy_all_to_host(history));
  cuda::note_retry_shared(rs_after, h);
  h.final_mem.resize(words);
  for (uint64_t i = 0; i < words; ++i) h.final_mem[i] = to_bits<M>(mem[i]);
  return true;
}

// Timing (RunOptions::timing.bench_reps): a warm-up launch, then bench_reps timed
// ones, each from the pristine memory (with RunOptions::timing.flush_l2, the L2
// flushed before each, outside the timed region); nothing recorded.
template <class P>
bool run_timed(const Workload& w, const Setup& s, const RunOptions& opt, History& h, std::string& error) {
  std::vector<typename P::M> mem;
  cuda::ProgramLaunch L;
  if (!cuda::prepare_launch<P>(w, s, opt, false, false, mem, L, error)) return false;
  double total_ms = 0;
  for (uint32_t rep = 0; rep < opt.timing.bench_reps + 1; ++rep) {
    float ms = 0;
    if (!cuda::launch_program<P>(L, opt, opt.timing.flush_l2, h, ms, error)) return false;
    if (rep > 0) total_ms += ms;
  }
  h.kernel_ms = total_ms / opt.timing.bench_reps;
  return true;
}

// GPU-checked (History::home Device, resident.hpp): the inputs are
// expanded on the device and the history stays there, for the GPU checker.
template <class P>
bool run_gpu_checked(const Workload& w, const Setup& s, const RunOptions& opt, History& h, std::string& error) {
  std::vector<typename P::M> mem;
  cuda::ProgramLaunch L;
  if (!cuda::prepare_launch<P>(w, s, opt, true, true, mem, L, error)) return false;
  float ms = 0;
  if (!cuda::launch_program<P>(L, opt, false, h, ms, error)) return false;
  h.kernel_ms = ms;
  if (!cuda::read_retry_shared(h, error)) return false;
  h.home = HistoryHome::Device;
  return true;
}

// The CUDA backend's runner of a trial program: the launcher the options
// (timing) and the history's home (the pipeline's choice) ask for.
template <class P>
bool run_cuda_program(const Workload& w, const Setup& s, const RunOptions& opt, History& h, std::string& error) {
  if (opt.timing.bench_reps > 0) return run_timed<P>(w, s, opt, h, error);
  if (h.home == HistoryHome::Device) {
    if (P::resident_capable && s.key.empty()) return run_gpu_checked<P>(w, s, opt, h, error);
    h.home = HistoryHome::Host;  // not this program: recorded, as a run on the host asks
  }
  return run_recorded<P>(w, s, opt, h, error);
}

}  // namespace atomstress
