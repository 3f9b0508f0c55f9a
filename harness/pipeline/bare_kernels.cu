// The profiler's baseline: the bare kernel a person would write for a
// native add, plain atomicAdd on global memory, with the workload's own
// addresses and operands and the same op order (op o is the (o / threads)-th
// op of thread o % threads).  No retry budget, no recording: what the
// harness's runner costs on top of the hardware shows as the ratio.
// The returned values are folded into a value the kernel stores only on an
// impossible match, so the compiler keeps the returning atomic (ATOM, as the
// harness's entries use) instead of a fire-and-forget reduction (RED).
// Cold timing flushes L2 before each launch exactly as the runner does.
#include <cuda_runtime.h>

#include <vector>

#include "harness/backend/cuda/util.cuh"
#include "harness/pipeline/profile.hpp"
#include "harness/registry/bits.hpp"

namespace atomstress {

namespace {

template <class T>
__global__ void bare_atomic_add(T* mem, const uint32_t* addr, const T* operand, uint64_t threads,
                                uint32_t per_thread, uint64_t never, uint64_t* sink) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  uint64_t fold = 0;
  for (uint32_t i = 0; i < per_thread; ++i) {
    const uint64_t o = t + uint64_t(i) * threads;
    const T old = atomicAdd(&mem[addr[o]], operand[o]);
    fold = fold * 31 + prim::to_bits(old);
  }
  if (fold == never) *sink = fold;
}

struct BareBuffers {
  cuda::DevBuf mem, pristine, addr, operand, sink;
};

template <class T>
bool time_bare(const Workload& w, uint32_t reps, uint64_t watchdog_ms, bool cold, double& s_per_launch,
               std::string& error) {
  static BareBuffers B;  // grow-only, like the runner's
  const uint64_t n = w.ops(), words = w.mem_elems();
  std::vector<T> mem(words), operand(n);
  for (uint64_t i = 0; i < words; ++i) mem[i] = from_bits<T>(w.init[i]);
  for (uint64_t o = 0; o < n; ++o) operand[o] = from_bits<T>(w.a[o]);
  AS_CUDA_TRY(B.mem.ensure(words * sizeof(T)));
  AS_CUDA_TRY(B.pristine.ensure(words * sizeof(T)));
  AS_CUDA_TRY(B.addr.ensure(n * 4));
  AS_CUDA_TRY(B.operand.ensure(n * sizeof(T)));
  AS_CUDA_TRY(B.sink.ensure(8));
  AS_CUDA_TRY(cudaMemcpy(B.pristine.p, mem.data(), words * sizeof(T), cudaMemcpyHostToDevice));
  AS_CUDA_TRY(cudaMemcpy(B.addr.p, w.addr.data(), n * 4, cudaMemcpyHostToDevice));
  AS_CUDA_TRY(cudaMemcpy(B.operand.p, operand.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  cuda::Event e0, e1;
  AS_CUDA_TRY(e0.create());
  AS_CUDA_TRY(e1.create());
  double total_ms = 0;
  for (uint32_t rep = 0; rep <= reps; ++rep) {  // launch 0 warms up
    AS_CUDA_TRY(cudaMemcpy(B.mem.p, B.pristine.p, words * sizeof(T), cudaMemcpyDeviceToDevice));
    if (cold && !cuda::flush_l2(error)) return false;
    AS_CUDA_TRY(cudaEventRecord(e0.e));
    const auto launched = std::chrono::steady_clock::now();
    bare_atomic_add<T><<<w.spec.grid, w.spec.block>>>(B.mem.as<T>(), B.addr.as<uint32_t>(), B.operand.as<T>(),
                                                       w.spec.threads(), w.spec.ops_per_thread, ~uint64_t(0) - 1,
                                                       B.sink.as<uint64_t>());
    AS_CUDA_TRY(cudaGetLastError());
    AS_CUDA_TRY(cudaEventRecord(e1.e));
    RunFault fault = RunFault::None;  // a plain atomicAdd cannot hang: any failure is an error
    if (!cuda::wait_bounded(e1.e, launched, watchdog_ms, "bare atomicAdd", fault, error)) return false;
    float ms = 0;
    AS_CUDA_TRY(cudaEventElapsedTime(&ms, e0.e, e1.e));
    if (rep > 0) total_ms += ms;
  }
  s_per_launch = total_ms / reps / 1e3;
  return true;
}

}  // namespace

bool time_bare_kernel(const Workload& w, uint32_t reps, uint64_t watchdog_ms, bool cold, double& s_per_launch,
                      std::string& error) {
  if (reps == 0) reps = 1;
  switch (w.impl->kind) {
    case VK::I32: return time_bare<int32_t>(w, reps, watchdog_ms, cold, s_per_launch, error);
    case VK::U32: return time_bare<uint32_t>(w, reps, watchdog_ms, cold, s_per_launch, error);
    case VK::F32: return time_bare<float>(w, reps, watchdog_ms, cold, s_per_launch, error);
    case VK::F64: return time_bare<double>(w, reps, watchdog_ms, cold, s_per_launch, error);
    default: error = std::string("no bare kernel for ") + w.impl->name; return false;
  }
}

}  // namespace atomstress
