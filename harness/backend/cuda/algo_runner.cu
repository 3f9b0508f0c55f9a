// The CUDA backend for algorithms: one kernel per (algorithm, atomic) pair,
// instantiated here and nowhere else.  Every spin and CAS loop in the
// algorithms is bounded (prim::Retry), and the host waits with a deadline.
// With RunOptions::bench_reps it times launches instead (memory restored
// before each, nothing recorded), for the benchmarks.
#include <cuda_runtime.h>

#include <vector>

#include "atomics_under_test/algo_catalogue.cuh"
#include "harness/check/families/family.hpp"
#include "harness/backend/cuda/util.cuh"
#include "harness/registry/bits.hpp"

namespace atomstress {

namespace {

template <class Alg>
__global__ void algo_kernel(algo::Args g, uint64_t watchdog_ns) {
  extern __shared__ __align__(16) unsigned char smem[];
  g.deadline_ns = deadline_after_ns(prim::now_ns(), watchdog_ns);
  algo::DeviceCtx c{smem};
  Alg::run(c, g);
}

struct Buffers {
  cuda::DevBuf key, x, mem, pristine, out, old, retries, gave, rs;
};
Buffers& buffers() {
  static Buffers b;
  return b;
}

template <class Alg>
bool run_cuda_algo(const Workload& w, const AlgoSetup& s, const RunOptions& opt, History& h, std::string& error) {
  using M = typename Alg::M;
  cudaDeviceProp prop;
  if (!cuda::device_props(prop, error)) return false;
  const auto& spec = w.spec;
  if (!cuda::check_geometry(prop, spec.grid, spec.block, s.smem_bytes, error)) return false;
  if (s.smem_bytes > 48 * 1024)
    AS_CUDA_TRY(cudaFuncSetAttribute(algo_kernel<Alg>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     int(s.smem_bytes)));
  const uint64_t n = w.ops(), words = s.mem_init.size();
  const bool bench = opt.bench_reps > 0;
  auto& B = buffers();
  AS_CUDA_TRY(B.key.ensure(n * 4));
  AS_CUDA_TRY(B.x.ensure(n * 8));
  AS_CUDA_TRY(B.mem.ensure(words * sizeof(M)));
  AS_CUDA_TRY(B.pristine.ensure(words * sizeof(M)));
  AS_CUDA_TRY(B.out.ensure(size_t(s.out_slots) * 4 + 4));
  AS_CUDA_TRY(B.old.ensure(n * 8));
  AS_CUDA_TRY(B.retries.ensure(n * 4));
  AS_CUDA_TRY(B.gave.ensure(n));
  AS_CUDA_TRY(B.rs.ensure(sizeof(prim::RetryShared)));
  std::vector<M> mem(words);
  for (uint64_t i = 0; i < words; ++i) mem[i] = from_bits<M>(s.mem_init[i]);
  AS_CUDA_TRY(cudaMemcpy(B.key.p, s.key.data(), n * 4, cudaMemcpyHostToDevice));
  AS_CUDA_TRY(cudaMemcpy(B.x.p, w.a.data(), n * 8, cudaMemcpyHostToDevice));
  AS_CUDA_TRY(cudaMemcpy(B.pristine.p, mem.data(), words * sizeof(M), cudaMemcpyHostToDevice));
  AS_CUDA_TRY(cudaMemset(B.old.p, 0, n * 8));
  AS_CUDA_TRY(cudaMemset(B.retries.p, 0, n * 4));
  AS_CUDA_TRY(cudaMemset(B.gave.p, 0, n));

  algo::Args g;
  g.threads = spec.threads();
  g.per_thread = spec.ops_per_thread;
  g.block = spec.block;
  g.grid = spec.grid;
  g.key = B.key.as<uint32_t>();
  g.x = B.x.as<uint64_t>();
  g.mem = B.mem.p;
  g.out = B.out.as<uint32_t>();
  g.old = bench ? nullptr : B.old.as<uint64_t>();
  g.retries = B.retries.as<uint32_t>();
  g.gave = B.gave.as<uint8_t>();
  g.rs = B.rs.as<prim::RetryShared>();
  g.budget = opt.retry_budget;
  g.param = s.param;
  const uint64_t watchdog_ms = effective_watchdog_ms(opt, n);

  cudaEvent_t e0, e1;
  AS_CUDA_TRY(cudaEventCreate(&e0));
  AS_CUDA_TRY(cudaEventCreate(&e1));
  const uint32_t launches = bench ? opt.bench_reps + 1 : 1;  // a warm-up launch when timing
  double total_ms = 0;
  for (uint32_t rep = 0; rep < launches; ++rep) {
    AS_CUDA_TRY(cudaMemcpy(B.mem.p, B.pristine.p, words * sizeof(M), cudaMemcpyDeviceToDevice));
    AS_CUDA_TRY(cudaMemset(B.out.p, 0xff, size_t(s.out_slots) * 4 + 4));
    AS_CUDA_TRY(cudaMemset(B.rs.p, 0, sizeof(prim::RetryShared)));
    AS_CUDA_TRY(cudaEventRecord(e0));
    algo_kernel<Alg><<<spec.grid, spec.block, s.smem_bytes>>>(g, deadline_after_ms(0, watchdog_ms));
    AS_CUDA_TRY(cudaGetLastError());
    AS_CUDA_TRY(cudaEventRecord(e1));
    if (!cuda::wait_bounded(e1, watchdog_ms, Alg::form, error)) return false;
    float ms = 0;
    AS_CUDA_TRY(cudaEventElapsedTime(&ms, e0, e1));
    if (!bench || rep > 0) total_ms += ms;
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  h.kernel_ms = total_ms / (bench ? opt.bench_reps : 1);
  if (bench) return true;  // timing only: nothing recorded to copy back

  h.old.resize(n);
  h.retries.resize(n);
  h.gave_up.resize(n);
  h.cycles.clear();
  h.out.resize(s.out_slots);
  AS_CUDA_TRY(cudaMemcpy(h.old.data(), B.old.p, n * 8, cudaMemcpyDeviceToHost));
  AS_CUDA_TRY(cudaMemcpy(h.retries.data(), B.retries.p, n * 4, cudaMemcpyDeviceToHost));
  AS_CUDA_TRY(cudaMemcpy(h.gave_up.data(), B.gave.p, n, cudaMemcpyDeviceToHost));
  if (s.out_slots) AS_CUDA_TRY(cudaMemcpy(h.out.data(), B.out.p, size_t(s.out_slots) * 4, cudaMemcpyDeviceToHost));
  AS_CUDA_TRY(cudaMemcpy(mem.data(), B.mem.p, words * sizeof(M), cudaMemcpyDeviceToHost));
  h.final_mem.resize(words);
  for (uint64_t i = 0; i < words; ++i) h.final_mem[i] = to_bits<M>(mem[i]);
  return true;
}

std::vector<AlgoRunFn> build() {
  std::vector<AlgoRunFn> v;
  algo::for_each_algorithm([&]<class Alg>() { v.push_back(&run_cuda_algo<Alg>); });
  return v;
}

}  // namespace

AlgoRunFn algo_cuda_runner(size_t algo_index) {
  static const std::vector<AlgoRunFn> table = build();
  return table[algo_index];
}

}  // namespace atomstress
