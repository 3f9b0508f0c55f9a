// The CPU backend's one runner: a trial program (a single atomic, or an
// algorithm's block code) on host threads through std::atomic_ref (the host
// mappings in harness/prim/), with random yields at interleaving points so
// that races happen even on two cores.  Single atomics spread virtual GPU
// threads over the workers, each keeping its program order; algorithms
// spread blocks over the workers, a block's threads running in turn up to
// each sync(), so shared-memory code sees the phases it would see on a GPU.
#pragma once

#include <algorithm>
#include <vector>

#include "harness/backend/backend.hpp"
#include "harness/backend/cpu/host_workers.hpp"
#include "harness/backend/trial_cancel.hpp"
#include "harness/registry/bits.hpp"

namespace atomstress {

template <class P>
bool run_cpu_program(const Workload& w, const Setup& s, const RunOptions& opt, History& h, std::string& error) {
  using M = typename P::M;
  const auto& spec = w.spec;
  const uint64_t n = w.ops(), threads = spec.threads();
  // Memory with the alignment a GPU allocation has (the 16-bit entries rely
  // on the enclosing 32-bit word).
  std::vector<uint64_t> backing((s.mem_init.size() * sizeof(M) + 7) / 8 + 1);
  M* mem = reinterpret_cast<M*>(backing.data());
  for (size_t i = 0; i < s.mem_init.size(); ++i) mem[i] = from_bits<M>(s.mem_init[i]);
  h.out.assign(s.out_slots, kEmptySlot);
  h.old.assign(n, 0);
  h.retries.assign(n, 0);
  h.gave_up.assign(n, 0);
  h.cycles.clear();
  prim::RetryShared rs{0};

  Args g;
  g.threads = threads;
  g.per_thread = spec.ops_per_thread;
  g.block = spec.block;
  g.grid = spec.grid;
  g.key = s.key.empty() ? w.addr.data() : s.key.data();
  g.x = w.a.data();
  g.y = w.b.data();
  g.mem = mem;
  g.out = h.out.data();
  g.old = h.old.data();
  g.retries = h.retries.data();
  g.gave = h.gave_up.data();
  g.rs = &rs;
  g.budget = effective_retry_budget(opt, spec);
  // Each worker counts its own CPU time from its start (prim::now_ns on the
  // host), so the deadline is the watchdog itself.
  g.deadline_ns = prim::deadline_after_ms(0, effective_watchdog_ms(opt, n));
  g.queue_wait_ns = effective_queue_wait_ms(opt, w) * 1000000u;
  g.param = s.param;

  // A cancel (backend/trial_cancel.hpp) stops the loops as a loop that gave up would.
  const CancelWhileRunning cancel_guard([&rs] { prim::request_abort(&rs); });
  bool ok;
  // The diagnosis replay: one worker, so ops run in ascending op order, in
  // global memory's semantics.
  const bool shared_space = spec.space == Space::Shared && !opt.policy.sequential;
  if constexpr (P::thread_scheduled) {
    const uint32_t workers =
        opt.policy.sequential ? 1u : std::max<uint32_t>(1, std::min<uint64_t>(opt.knobs.cpu_threads, threads));
    auto body = [&](uint32_t wid) {
      // Virtual GPU threads wid, wid + workers, ...; each keeps its program
      // order (its k-th op before its (k+1)-th).
      for (uint32_t k = 0; k < spec.ops_per_thread; ++k)
        for (uint64_t t = wid; t < threads; t += workers) P::op(g, mem, uint64_t(k) * threads + t);
    };
    ok = run_host_workers(workers, opt, spec.seed, P::host_stream, shared_space, body, h.kernel_ms, error);
    h.kernel_end_s = steady_seconds();
  } else {
    const uint32_t workers =
        opt.policy.sequential ? 1u : std::max<uint32_t>(1, std::min<uint32_t>(opt.knobs.cpu_threads, spec.grid));
    auto body = [&](uint32_t wid) {
      std::vector<uint64_t> smem((s.smem_bytes + 7) / 8 + 1);
      for (uint32_t b = wid; b < spec.grid; b += workers) {
        prim::HostBlock c{b, spec.block, reinterpret_cast<unsigned char*>(smem.data())};
        P::run(c, g);
      }
    };
    ok = run_host_workers(workers, opt, spec.seed, P::host_stream, false, body, h.kernel_ms, error);
    h.kernel_end_s = steady_seconds();
  }
  if (!ok) return false;
  h.block_scope_calls = rs.block_scope_calls != 0;
  h.loop_stopped = rs.abort_flag != 0;
  h.intercepted_calls = rs.intercepted_calls != 0;
  h.final_mem.resize(s.mem_init.size());
  for (size_t i = 0; i < s.mem_init.size(); ++i) h.final_mem[i] = to_bits<M>(mem[i]);
  return true;
}

}  // namespace atomstress
