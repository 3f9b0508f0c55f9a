// The profiler's baselines: the bare kernel a person would write for the
// same operation, with the workload's own addresses and operands and the
// same op order (op o is the (o / threads)-th op of thread o % threads).
// For a native add, plain atomicAdd on global memory; for a CAS-emulated
// float add, max or min, the textbook atomicCAS loop on the bit pattern (as
// the CUDA Programming Guide writes the double add).  No retry budget, no
// recording: what the harness's runner costs on top of the same code shows
// as the ratio.
// The returned values are folded into a value the kernel stores only on an
// impossible match, so the compiler keeps the returning atomic (ATOM, as the
// harness's entries use) instead of a fire-and-forget reduction (RED).
// Cold timing flushes L2 before each launch exactly as the runner does.
#include <cuda_runtime.h>

#include <chrono>
#include <string_view>
#include <type_traits>
#include <vector>

#include "harness/backend/bare_kernel.hpp"
#include "harness/backend/cuda/util.cuh"
#include "harness/registry/bits.hpp"

namespace atomstress {

namespace {

enum class BareOp : uint8_t { None, NativeAdd, CasAdd, CasMax, CasMin };

template <class T>
struct CasWord {  // the integer a CAS loop on T compares
  using type = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
};

template <BareOp K, class T>
__device__ __forceinline__ T bare_op(T* p, T v) {
  if constexpr (K == BareOp::NativeAdd) {
    return atomicAdd(p, v);
  } else {
    using W = typename CasWord<T>::type;
    W* w = reinterpret_cast<W*>(p);
    W old = *w, assumed;
    do {
      assumed = old;
      const T cur = prim::from_bits<T>(assumed);
      T next;
      if constexpr (K == BareOp::CasAdd) next = cur + v;
      else if constexpr (K == BareOp::CasMax) next = fmax(cur, v);
      else next = fmin(cur, v);
      old = atomicCAS(w, assumed, static_cast<W>(prim::to_bits(next)));
    } while (assumed != old);
    return prim::from_bits<T>(old);
  }
}

template <BareOp K, class T>
__global__ void bare_kernel(T* mem, const uint32_t* addr, const T* operand, uint64_t threads, uint32_t per_thread,
                            uint64_t never, uint64_t* sink) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  uint64_t fold = 0;
  for (uint32_t i = 0; i < per_thread; ++i) {
    const uint64_t o = t + uint64_t(i) * threads;
    const T old = bare_op<K>(&mem[addr[o]], operand[o]);
    fold = fold * 31 + prim::to_bits(old);
  }
  if (fold == never) *sink = fold;
}

BareOp bare_op_of(const Entry& impl) {
  const std::string_view name = impl.name;
  const bool fp = impl.kind == VK::F32 || impl.kind == VK::F64;
  if (name.rfind("native.", 0) == 0 && impl.op == Op::Add &&
      (fp || impl.kind == VK::I32 || impl.kind == VK::U32))
    return BareOp::NativeAdd;
  if (name.rfind("cas.", 0) == 0 && fp) {
    if (impl.op == Op::Add) return BareOp::CasAdd;
    if (impl.op == Op::Max) return BareOp::CasMax;
    if (impl.op == Op::Min) return BareOp::CasMin;
  }
  return BareOp::None;
}

struct BareBuffers {
  cuda::DevBuf mem, pristine, addr, operand, sink;
};

template <BareOp K, class T>
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
    bare_kernel<K, T><<<w.spec.grid, w.spec.block>>>(B.mem.as<T>(), B.addr.as<uint32_t>(), B.operand.as<T>(),
                                                     w.spec.threads(), w.spec.ops_per_thread, ~uint64_t(0) - 1,
                                                     B.sink.as<uint64_t>());
    AS_CUDA_TRY(cudaGetLastError());
    AS_CUDA_TRY(cudaEventRecord(e1.e));
    // The bare kernels end: a CAS fails only when another op's succeeded, so
    // no op retries more than n times (the loops compare bit patterns, so a
    // NaN cannot keep one going), and the host waits with a deadline anyway.
    RunFault fault = RunFault::None;
    if (!cuda::wait_bounded(e1.e, launched, watchdog_ms, "bare kernel", fault, error)) return false;
    float ms = 0;
    AS_CUDA_TRY(cudaEventElapsedTime(&ms, e0.e, e1.e));
    if (rep > 0) total_ms += ms;
  }
  s_per_launch = total_ms / reps / 1e3;
  return true;
}

}  // namespace

bool has_bare_kernel(const Entry& impl, const TrialSpec& spec) {
  return !impl.algo && spec.space == Space::Global && bare_op_of(impl) != BareOp::None;
}

bool time_bare_kernel(const Workload& w, uint32_t reps, uint64_t watchdog_ms, bool cold, double& s_per_launch,
                      std::string& error) {
  if (reps == 0) reps = 1;
  const auto& impl = *w.impl;
  auto run = [&](auto k_tag) {
    constexpr BareOp K = decltype(k_tag)::value;
    switch (impl.kind) {
      case VK::I32:
        if constexpr (K == BareOp::NativeAdd) return time_bare<K, int32_t>(w, reps, watchdog_ms, cold, s_per_launch, error);
        break;
      case VK::U32:
        if constexpr (K == BareOp::NativeAdd) return time_bare<K, uint32_t>(w, reps, watchdog_ms, cold, s_per_launch, error);
        break;
      case VK::F32: return time_bare<K, float>(w, reps, watchdog_ms, cold, s_per_launch, error);
      case VK::F64: return time_bare<K, double>(w, reps, watchdog_ms, cold, s_per_launch, error);
      default: break;
    }
    error = std::string("no bare kernel for ") + impl.name;
    return false;
  };
  switch (bare_op_of(impl)) {
    case BareOp::NativeAdd: return run(std::integral_constant<BareOp, BareOp::NativeAdd>{});
    case BareOp::CasAdd: return run(std::integral_constant<BareOp, BareOp::CasAdd>{});
    case BareOp::CasMax: return run(std::integral_constant<BareOp, BareOp::CasMax>{});
    case BareOp::CasMin: return run(std::integral_constant<BareOp, BareOp::CasMin>{});
    case BareOp::None: break;
  }
  error = std::string("no bare kernel for ") + impl.name;
  return false;
}

}  // namespace atomstress
