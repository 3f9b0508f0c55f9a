// The CPU backend: runs the same implementation source on host threads
// through std::atomic_ref (the host mappings in primitives.cuh), with random
// yields at interleaving points so that races happen even on two cores.
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "atomics_under_test/catalogue.cuh"
#include "harness/backend/backend.hpp"
#include "harness/backend/cpu/host_workers.hpp"
#include "harness/registry/bits.hpp"

namespace atomstress {

const char* to_string(BackendKind b) { return b == BackendKind::Cuda ? "cuda" : "cpu"; }

uint64_t effective_watchdog_ms(const RunOptions& o, uint64_t ops) {
  return o.watchdog_ms != 0 ? o.watchdog_ms : 1000 + ops / 50;
}

namespace {

template <class I>
bool run_cpu(const Workload& w, const RunOptions& opt, History& h, std::string& error) {
  using T = typename I::T;
  const uint64_t nops = w.ops(), threads = w.spec.threads();
  const uint32_t per_thread = w.spec.ops_per_thread;
  // Memory with the alignment a GPU allocation has (the 16-bit entries rely
  // on the enclosing 32-bit word).
  std::vector<uint64_t> backing((w.mem_elems() * sizeof(T) + 7) / 8 + 1);
  T* mem = reinterpret_cast<T*>(backing.data());
  for (uint64_t e = 0; e < w.mem_elems(); ++e) mem[e] = from_bits<T>(w.init[e]);
  h.old.assign(nops, 0);
  h.retries.assign(nops, 0);
  h.gave_up.assign(nops, 0);
  h.cycles.clear();

  prim::RetryShared shared{0};
  const uint64_t deadline =
      deadline_after_ms(prim::now_ns(), effective_watchdog_ms(opt, nops));
  const uint32_t workers = std::max<uint32_t>(1, std::min<uint64_t>(opt.cpu_threads, threads));
  auto body = [&](uint32_t wid) {
    // Virtual GPU threads wid, wid + workers, ...; each keeps its program
    // order (its k-th op before its (k+1)-th).
    for (uint32_t k = 0; k < per_thread; ++k) {
      for (uint64_t t = wid; t < threads; t += workers) {
        const uint64_t o = uint64_t(k) * threads + t;
        prim::Retry r;
        r.budget = opt.retry_budget;
        r.shared = &shared;
        r.deadline_ns = deadline;
        const T old = I{}(&mem[w.addr[o]], from_bits<T>(w.a[o]), from_bits<T>(w.b[o]), r);
        h.old[o] = to_bits<T>(old);
        h.retries[o] = r.count;
        h.gave_up[o] = uint8_t(r.gave_up | (r.block_scope ? kBlockScopeBit : 0));
      }
    }
  };
  if (!run_host_workers(workers, opt, w.spec.seed, 99, w.spec.space == Space::Shared, body, h.kernel_ms, error))
    return false;
  h.final_mem.resize(w.mem_elems());
  for (uint64_t e = 0; e < w.mem_elems(); ++e) h.final_mem[e] = to_bits<T>(mem[e]);
  return true;
}

#define AS_CPU_RUNNER(I) &run_cpu<I>,
constexpr RunFn kCpuRunners[] = {ATOMSTRESS_CATALOGUE(AS_CPU_RUNNER)};
#undef AS_CPU_RUNNER

}  // namespace

RunFn cpu_runner(size_t impl_index) { return kCpuRunners[impl_index]; }

}  // namespace atomstress
