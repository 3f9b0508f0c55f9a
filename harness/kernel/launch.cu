#include "harness/kernel/launch.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>

#include "harness/backend/cuda/stress.cuh"
#include "harness/backend/cuda/util.cuh"
#include "harness/kernel/case_stream.cuh"

namespace atomstress::kernel {

namespace {

// The hammering blocks of a stressed launch: each loops on the scratchpad
// until the control word says the user's kernel is done (or its bounds).
__global__ void hammer_kernel(cuda::StressLaunch st, uint64_t watchdog_ns) {
  cuda::stress_hammer(st, blockIdx.x, prim::now_ns() + watchdog_ns);
}

// Streams and stress memory, made once per host thread and reused: the
// concurrent worker runs one case per thread, each on its own streams.
struct LaunchState {
  cudaStream_t trial = nullptr, stress = nullptr;
  cuda::DevBuf control, scratch;
};

bool state(LaunchState*& out, std::string& error) {
  thread_local LaunchState s;
  if (!s.trial) {
    AS_CUDA_TRY(cudaStreamCreateWithFlags(&s.trial, cudaStreamNonBlocking));
    AS_CUDA_TRY(cudaStreamCreateWithFlags(&s.stress, cudaStreamNonBlocking));
  }
  out = &s;
  return true;
}

// Starts the hammering blocks on the stress stream (nothing without stress blocks).
bool start_stress(LaunchState& s, const Stress& st, uint64_t seed, uint64_t watchdog_ms, bool& started,
                  std::string& error) {
  started = false;
  // At most one hammering block per SM, so that the user's kernel, launched
  // after them, always finds room (it must not wait for them to give up).
  const uint32_t hammer = std::min<uint32_t>(uint32_t(uint64_t(st.blocks) * st.mem_permille / 1000),
                                             uint32_t(std::max(1, cuda_sm_count())));
  if (hammer == 0) return true;
  cuda::StressLaunch l{};
  l.hammer_blocks = hammer;
  l.lines = st.lines ? st.lines : 1;
  l.stride = st.stride ? st.stride : 1;
  l.access = uint32_t(st.access);
  l.seed = uint32_t(seed);
  AS_CUDA_TRY(s.control.ensure(sizeof(cuda::StressControl)));
  AS_CUDA_TRY(s.scratch.ensure(size_t(l.lines) * l.stride * 4 + 4));
  l.control = s.control.as<cuda::StressControl>();
  l.scratch = s.scratch.as<unsigned int>();
  AS_CUDA_TRY(cudaMemsetAsync(l.control, 0, sizeof(cuda::StressControl), s.stress));
  hammer_kernel<<<hammer, 256, 0, s.stress>>>(l, watchdog_ms * 1000000ull);
  AS_CUDA_TRY(cudaGetLastError());
  started = true;
  return true;
}

// After the user's kernel: tells the hammering blocks to stop (a copy on the
// trial stream, ordered after the user's kernel) and waits for them.
bool stop_stress(LaunchState& s, std::string& error) {
  static const unsigned int one = 1;
  AS_CUDA_TRY(cudaMemcpyAsync(&s.control.as<cuda::StressControl>()->done, &one, sizeof one, cudaMemcpyHostToDevice,
                              s.trial));
  AS_CUDA_TRY(cudaStreamSynchronize(s.trial));
  AS_CUDA_TRY(cudaStreamSynchronize(s.stress));  // bounded: kStressMaxRounds and its deadline
  return true;
}

}  // namespace

bool case_stream(cudaStream_t& stream, std::string& error) {
  LaunchState* s = nullptr;
  if (!state(s, error)) return false;
  stream = s->trial;
  return true;
}

bool device_shared_limits(SharedLimits& out, std::string& error) {
  cudaDeviceProp prop{};
  if (!cuda::device_props(prop, error)) return false;
  out.per_block_optin = uint32_t(prop.sharedMemPerBlockOptin);
  out.per_sm = uint32_t(prop.sharedMemPerMultiprocessor);
  out.reserved_per_block = uint32_t(prop.reservedSharedMemPerBlock);
  return true;
}

bool static_shared_bytes(const void* fn, uint32_t& bytes, std::string& error) {
  cuda::KernelShared k;  // read once per kernel, as every launcher reads it
  if (!cuda::kernel_shared(fn, k, error)) return false;
  bytes = uint32_t(k.static_bytes);
  return true;
}

LaunchResult launch_kernel(const void* fn, void** args, const Geometry& g, const Stress& stress, uint64_t seed,
                           uint64_t watchdog_ms, bool flush_l2) {
  LaunchResult r;
  auto run = [&]() -> bool {
    std::string& error = r.error;
    LaunchState* s = nullptr;
    if (!state(s, error)) return false;
    cudaDeviceProp prop{};
    if (!cuda::device_props(prop, error) || !cuda::check_geometry(prop, g.grid, g.block, g.shared_bytes, error))
      return false;
    // Past its default a kernel must opt in (always to the most it may
    // have: the concurrent worker's threads launch one kernel with
    // different amounts at once).
    if (!cuda::allow_dynamic_shared(fn, g.shared_bytes, error)) return false;
    // Cold: the buffers leave L2 before the start event (on the trial
    // stream, so after whatever was queued on it: a restore, say).
    if (flush_l2 && !cuda::flush_l2(error, s->trial)) return false;
    bool stressed = false;
    if (!start_stress(*s, stress, seed, watchdog_ms, stressed, error)) return false;
    cuda::Event start, done;
    AS_CUDA_TRY(start.create());
    AS_CUDA_TRY(done.create());
    AS_CUDA_TRY(cudaEventRecord(start.e, s->trial));
    const auto launched = std::chrono::steady_clock::now();
    if (const cudaError_t e = cudaLaunchKernel(fn, dim3(g.grid), dim3(g.block), args, g.shared_bytes, s->trial);
        e != cudaSuccess) {
      (void)cudaGetLastError();  // a refused launch (not sticky) must not read as a later call's error
      error = std::string("cuda: cudaLaunchKernel failed: ") + cudaGetErrorString(e);
      return false;
    }
    AS_CUDA_TRY(cudaEventRecord(done.e, s->trial));
    if (!cuda::wait_bounded(done.e, launched, watchdog_ms, "the user's", r.fault, error)) return false;
    float ms = 0;
    AS_CUDA_TRY(cudaEventElapsedTime(&ms, start.e, done.e));
    r.ms = ms;
    return !stressed || stop_stress(*s, error);
  };
  r.ok = run();
  return r;
}

}  // namespace atomstress::kernel
