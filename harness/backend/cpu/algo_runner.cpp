// The CPU backend for algorithms: the same block code (algorithms.cuh) run
// with a host context, blocks spread over host threads, so atomics of
// different blocks race for real.  Within a block, each() runs the threads
// in turn up to the next sync(), so shared-memory code sees the phases it
// would see on a GPU.  Warp-intrinsic forms are cuda-only.
#include <vector>

#include "atomics_under_test/algo_catalogue.cuh"
#include "harness/check/families/family.hpp"
#include "harness/backend/cpu/host_workers.hpp"
#include "harness/registry/bits.hpp"

namespace atomstress {

namespace {

template <class Alg>
bool run_cpu_algo(const Workload& w, const AlgoSetup& s, const RunOptions& opt, History& h, std::string& error) {
  using M = typename Alg::M;
  const auto& spec = w.spec;
  const uint64_t n = w.ops();
  std::vector<M> mem(s.mem_init.size());
  for (size_t i = 0; i < mem.size(); ++i) mem[i] = from_bits<M>(s.mem_init[i]);
  h.out.assign(s.out_slots, kEmptySlot);
  h.old.assign(n, 0);
  h.retries.assign(n, 0);
  h.gave_up.assign(n, 0);
  h.cycles.clear();
  prim::RetryShared rs{0};

  algo::Args g;
  g.threads = spec.threads();
  g.per_thread = spec.ops_per_thread;
  g.block = spec.block;
  g.grid = spec.grid;
  g.key = s.key.data();
  g.x = w.a.data();
  g.mem = mem.data();
  g.out = h.out.data();
  g.old = h.old.data();
  g.retries = h.retries.data();
  g.gave = h.gave_up.data();
  g.rs = &rs;
  g.budget = opt.retry_budget;
  g.deadline_ns = deadline_after_ms(prim::now_ns(), effective_watchdog_ms(opt, n));
  g.param = s.param;

  const uint32_t workers = std::max<uint32_t>(1, std::min<uint32_t>(opt.cpu_threads, spec.grid));
  auto body = [&](uint32_t wid) {
    std::vector<uint64_t> smem((s.smem_bytes + 7) / 8 + 1);
    for (uint32_t b = wid; b < spec.grid; b += workers) {
      algo::HostCtx c{b, spec.block, reinterpret_cast<unsigned char*>(smem.data())};
      Alg::run(c, g);
    }
  };
  if (!run_host_workers(workers, opt, spec.seed, 98, false, body, h.kernel_ms, error)) return false;
  h.final_mem.resize(mem.size());
  for (size_t i = 0; i < mem.size(); ++i) h.final_mem[i] = to_bits<M>(mem[i]);
  return true;
}

std::vector<AlgoRunFn> build() {
  std::vector<AlgoRunFn> v;
  algo::for_each_algorithm([&]<class Alg>() {
    if constexpr (Alg::gpu_only) v.push_back(nullptr);
    else v.push_back(&run_cpu_algo<Alg>);
  });
  return v;
}

}  // namespace

AlgoRunFn algo_cpu_runner(size_t algo_index) {
  static const std::vector<AlgoRunFn> table = build();
  return table[algo_index];
}

}  // namespace atomstress
