// The CUDA backend: one kernel template, instantiated once per catalogue
// entry here and nowhere else.  It runs a trial in global or shared memory
// with any grid and block, records for every operation the returned value,
// its retries and the cycles it took, and never waits for ever: every retry
// loop is bounded (primitives.cuh) and the host polls with a deadline.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "atomics_under_test/catalogue.cuh"
#include "harness/backend/cuda/util.cuh"
#include "harness/backend/backend.hpp"

namespace atomstress {

namespace {

struct KParams {
  uint64_t threads;
  uint32_t ops_per_thread;
  uint32_t region_elems;
  uint32_t shared;
  uint32_t budget;
  uint64_t watchdog_ns;
};

template <class T>
__device__ __forceinline__ T dev_from_bits(uint64_t b) {
  if constexpr (sizeof(T) == 2) return prim::bit_cast<T>(static_cast<uint16_t>(b));
  else if constexpr (sizeof(T) == 4) return prim::bit_cast<T>(static_cast<uint32_t>(b));
  else return prim::bit_cast<T>(b);
}
template <class T>
__device__ __forceinline__ uint64_t dev_to_bits(T v) {
  if constexpr (sizeof(T) == 2) return prim::bit_cast<uint16_t>(v);
  else if constexpr (sizeof(T) == 4) return prim::bit_cast<uint32_t>(v);
  else return prim::bit_cast<uint64_t>(v);
}

template <class I>
__global__ void trial_kernel(const uint32_t* __restrict__ addr, const uint64_t* __restrict__ a,
                             const uint64_t* __restrict__ b, typename I::T* mem, uint64_t* old,
                             uint32_t* retries, uint32_t* cycles, uint8_t* gave_up,
                             prim::RetryShared* rs, KParams p) {
  using T = typename I::T;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* base = mem;
  const uint64_t region_off = p.shared ? uint64_t(blockIdx.x) * p.region_elems : 0;
  if (p.shared) {
    T* s = reinterpret_cast<T*>(smem_raw);
    for (uint32_t e = threadIdx.x; e < p.region_elems; e += blockDim.x) s[e] = mem[region_off + e];
    __syncthreads();
    base = s;
  }
  const uint64_t tid = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint64_t deadline = deadline_after_ns(prim::now_ns(), p.watchdog_ns);
  for (uint32_t k = 0; k < p.ops_per_thread; ++k) {
    const uint64_t o = uint64_t(k) * p.threads + tid;
    T* target = base + (addr[o] - region_off);
    prim::Retry r;
    r.budget = p.budget;
    r.shared = rs;
    r.deadline_ns = deadline;
    const T av = dev_from_bits<T>(a[o]), bv = dev_from_bits<T>(b[o]);
    const long long c0 = clock64();
    const T ov = I{}(target, av, bv, r);
    const uint64_t ob = dev_to_bits<T>(ov);
    asm volatile("" ::"l"(ob));  // the clock read below waits for the result
    const long long c1 = clock64();
    old[o] = ob;
    retries[o] = r.count;
    cycles[o] = static_cast<uint32_t>(c1 - c0);
    gave_up[o] = static_cast<uint8_t>(r.gave_up | (r.block_scope ? kBlockScopeBit : 0));
  }
  if (p.shared) {
    __syncthreads();
    for (uint32_t e = threadIdx.x; e < p.region_elems; e += blockDim.x) mem[region_off + e] = base[e];
  }
}

using cuda::DevBuf;
struct Buffers {
  DevBuf addr, a, b, mem, old, retries, cycles, gave, rs;
};
Buffers& buffers() {
  static Buffers b;
  return b;
}

template <class I>
bool run_cuda(const Workload& w, const RunOptions& opt, History& h, std::string& error) {
  using T = typename I::T;
  cudaDeviceProp prop;
  if (!cuda::device_props(prop, error)) return false;
  const auto& s = w.spec;
  const bool shared = s.space == Space::Shared;
  const size_t smem = shared ? size_t(w.region_elems) * sizeof(T) : 0;
  if (!cuda::check_geometry(prop, s.grid, s.block, smem, error)) return false;
  if (smem > 48 * 1024)
    AS_CUDA_TRY(cudaFuncSetAttribute(trial_kernel<I>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));

  const uint64_t n = w.ops(), ne = w.mem_elems();
  auto& B = buffers();
  AS_CUDA_TRY(B.addr.ensure(n * 4));
  AS_CUDA_TRY(B.a.ensure(n * 8));
  AS_CUDA_TRY(B.b.ensure(n * 8));
  AS_CUDA_TRY(B.old.ensure(n * 8));
  AS_CUDA_TRY(B.retries.ensure(n * 4));
  AS_CUDA_TRY(B.cycles.ensure(n * 4));
  AS_CUDA_TRY(B.gave.ensure(n));
  AS_CUDA_TRY(B.mem.ensure(ne * sizeof(T) + 16));
  AS_CUDA_TRY(B.rs.ensure(sizeof(prim::RetryShared)));

  std::vector<T> hostmem(ne);
  for (uint64_t e = 0; e < ne; ++e) {
    T v;
    const uint64_t bits = w.init[e];
    std::memcpy(&v, &bits, sizeof(T));  // little-endian: low bytes
    hostmem[e] = v;
  }
  AS_CUDA_TRY(cudaMemcpy(B.addr.p, w.addr.data(), n * 4, cudaMemcpyHostToDevice));
  AS_CUDA_TRY(cudaMemcpy(B.a.p, w.a.data(), n * 8, cudaMemcpyHostToDevice));
  AS_CUDA_TRY(cudaMemcpy(B.b.p, w.b.data(), n * 8, cudaMemcpyHostToDevice));
  AS_CUDA_TRY(cudaMemcpy(B.mem.p, hostmem.data(), ne * sizeof(T), cudaMemcpyHostToDevice));
  AS_CUDA_TRY(cudaMemset(B.rs.p, 0, sizeof(prim::RetryShared)));

  const uint64_t watchdog_ms = effective_watchdog_ms(opt, n);
  KParams p{s.threads(), s.ops_per_thread, w.region_elems, shared ? 1u : 0u, opt.retry_budget,
            deadline_after_ms(0, watchdog_ms)};
  cudaEvent_t e0, e1;
  AS_CUDA_TRY(cudaEventCreate(&e0));
  AS_CUDA_TRY(cudaEventCreate(&e1));
  AS_CUDA_TRY(cudaEventRecord(e0));
  trial_kernel<I><<<s.grid, s.block, smem>>>(
      static_cast<const uint32_t*>(B.addr.p), static_cast<const uint64_t*>(B.a.p),
      static_cast<const uint64_t*>(B.b.p), static_cast<T*>(B.mem.p), static_cast<uint64_t*>(B.old.p),
      static_cast<uint32_t*>(B.retries.p), static_cast<uint32_t*>(B.cycles.p),
      static_cast<uint8_t*>(B.gave.p), static_cast<prim::RetryShared*>(B.rs.p), p);
  AS_CUDA_TRY(cudaGetLastError());
  AS_CUDA_TRY(cudaEventRecord(e1));
  if (!cuda::wait_bounded(e1, watchdog_ms, I::name, error)) return false;
  float ms = 0;
  AS_CUDA_TRY(cudaEventElapsedTime(&ms, e0, e1));
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  h.kernel_ms = ms;

  h.old.resize(n);
  h.retries.resize(n);
  h.cycles.resize(n);
  h.gave_up.resize(n);
  AS_CUDA_TRY(cudaMemcpy(h.old.data(), B.old.p, n * 8, cudaMemcpyDeviceToHost));
  AS_CUDA_TRY(cudaMemcpy(h.retries.data(), B.retries.p, n * 4, cudaMemcpyDeviceToHost));
  AS_CUDA_TRY(cudaMemcpy(h.cycles.data(), B.cycles.p, n * 4, cudaMemcpyDeviceToHost));
  AS_CUDA_TRY(cudaMemcpy(h.gave_up.data(), B.gave.p, n, cudaMemcpyDeviceToHost));
  AS_CUDA_TRY(cudaMemcpy(hostmem.data(), B.mem.p, ne * sizeof(T), cudaMemcpyDeviceToHost));
  h.final_mem.resize(ne);
  for (uint64_t e = 0; e < ne; ++e) {
    uint64_t bits = 0;
    std::memcpy(&bits, &hostmem[e], sizeof(T));
    h.final_mem[e] = bits;
  }
  return true;
}

#define AS_CUDA_RUNNER(I) &run_cuda<I>,
constexpr RunFn kCudaRunners[] = {ATOMSTRESS_CATALOGUE(AS_CUDA_RUNNER)};
#undef AS_CUDA_RUNNER

}  // namespace

RunFn cuda_runner(size_t impl_index) { return kCudaRunners[impl_index]; }

bool cuda_available(std::string& why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    why = cudaGetErrorString(e);
    cudaGetLastError();
    return false;
  }
  if (n == 0) {
    why = "no CUDA device";
    return false;
  }
  return true;
}

std::string cuda_device_name() {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return "unknown";
  return std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) + ", " +
         std::to_string(p.multiProcessorCount) + " SMs)";
}

bool cuda_memory(size_t& free, size_t& total) {
  return cudaMemGetInfo(&free, &total) == cudaSuccess;
}

int cuda_sm_count() {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return 0;
  return p.multiProcessorCount;
}

}  // namespace atomstress
