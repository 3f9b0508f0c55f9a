#include "harness/pipeline/run_trial.hpp"

#include "harness/check/families/family.hpp"

#include <algorithm>
#include <chrono>

namespace atomstress {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "PASS";
    case Verdict::Fail: return "FAIL";
    case Verdict::Hang: return "HANG";
    default: return "ERROR";
  }
}

BackendKind resolve_backend(const std::string& name, std::string& note, std::string& error) {
  std::string why;
  if (name == "cpu") return BackendKind::Cpu;
  if (name == "cuda") {
    if (!cuda_available(why)) error = "backend cuda requested but no CUDA device is usable (" + why + ")";
    return BackendKind::Cuda;
  }
  if (name != "auto") {
    error = "unknown backend '" + name + "' (cuda, cpu or auto)";
    return BackendKind::Cpu;
  }
  if (cuda_available(why)) {
    note = "backend auto: cuda on " + cuda_device_name();
    return BackendKind::Cuda;
  }
  note = "backend auto: no usable CUDA device (" + why + "), running on the cpu backend";
  return BackendKind::Cpu;
}

namespace {
std::vector<Hotspot> profile(const Workload& w, const History& h, size_t top) {
  std::vector<Hotspot> all(w.mem_elems());
  for (size_t e = 0; e < all.size(); ++e) all[e].addr = e;
  for (uint64_t o = 0; o < w.ops(); ++o) {
    auto& hs = all[w.addr[o]];
    ++hs.ops;
    hs.retries += h.retries[o];
    if (!h.cycles.empty()) hs.cycles += h.cycles[o];
  }
  std::erase_if(all, [](const Hotspot& x) { return x.ops == 0; });
  const size_t k = std::min(top, all.size());
  std::partial_sort(all.begin(), all.begin() + k, all.end(), [](const Hotspot& x, const Hotspot& y) {
    if (x.cycles != y.cycles) return x.cycles > y.cycles;
    if (x.retries != y.retries) return x.retries > y.retries;
    return x.ops > y.ops;
  });
  all.resize(k);
  return all;
}
// A loop that gave up on its own (budget or watchdog) is a hang; loops that
// stopped because another gave up only follow it.
bool find_hang(const Workload& w, const History& h, const RunOptions& opt, TrialOutcome& out) {
  for (uint64_t o = 0; o < h.gave_up.size(); ++o) {
    const auto g = static_cast<GaveUp>(h.gave_up[o] & ~kBlockScopeBit);
    if (g == GaveUp::Budget || g == GaveUp::Watchdog) {
      out.verdict = Verdict::Hang;
      out.bad_op = int64_t(o);
      out.why = "op #" + std::to_string(o) + " (thread " + std::to_string(w.thread_of(o)) + ", address " +
                std::to_string(w.addr[o]) + ") " +
                (g == GaveUp::Budget ? "exceeded its retry budget of " + std::to_string(opt.retry_budget)
                                     : "was still retrying when the " +
                                           std::to_string(effective_watchdog_ms(opt, out.ops)) +
                                           " ms watchdog fired, after " + std::to_string(h.retries[o]) +
                                           " retries") +
                (w.impl->algo && w.impl->algo->family == Family::Lock
                     ? ": the spin lock was never acquired (starvation, or a lock never released)"
                     : ": the loop does not terminate");
      return true;
    }
  }
  return false;
}

void tally_retries(const History& h, TrialOutcome& out) {
  for (uint64_t o = 0; o < h.retries.size(); ++o) {
    out.total_retries += h.retries[o];
    out.max_retries = std::max(out.max_retries, h.retries[o]);
  }
}

// A trial of an algorithm: its arrays, the backend's run, the family's oracle.
TrialOutcome run_algo_trial(const Workload& w, BackendKind backend, const RunOptions& opt, size_t hotspots,
                            TrialOutcome out) {
  std::string error;
  auto setup = algo_setup(w, error);
  const AlgoRunFn fn = backend == BackendKind::Cuda ? algo_cuda_runner(w.impl->algo->algo_index)
                                                    : algo_cpu_runner(w.impl->algo->algo_index);
  if (!setup || !fn) {
    out.verdict = Verdict::Error;
    out.why = setup ? std::string(w.impl->name) + " uses warp intrinsics: it needs the cuda backend" : error;
    return out;
  }
  History h;
  if (!fn(w, *setup, opt, h, error)) {
    out.verdict = Verdict::Error;
    out.why = error;
    return out;
  }
  out.run_ms = h.kernel_ms;
  tally_retries(h, out);
  if (hotspots && w.impl->algo->family == Family::Lock) out.hotspots = profile(w, h, hotspots);
  if (find_hang(w, h, opt, out)) return out;
  const auto t0 = std::chrono::steady_clock::now();
  const AlgoVerdict v = algo_check(w, *setup, h);
  out.check_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!v.ok) {
    out.verdict = Verdict::Fail;
    out.why = v.why;
    out.bad_op = v.bad_op;
  }
  return out;
}
}  // namespace

TrialOutcome run_trial(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, size_t hotspots) {
  TrialOutcome out;
  out.spec = spec;
  out.backend = backend;
  std::string error;
  auto w = expand(spec, error);
  if (!w) {
    out.verdict = Verdict::Error;
    out.why = error;
    return out;
  }
  out.ops = w->ops();
  if (w->impl->algo) return run_algo_trial(*w, backend, opt, hotspots, std::move(out));
  const RunFn fn = backend == BackendKind::Cuda ? cuda_runner(w->impl->index) : cpu_runner(w->impl->index);
  History h;
  if (!fn(*w, opt, h, error)) {
    out.verdict = Verdict::Error;
    out.why = error;
    return out;
  }
  out.run_ms = h.kernel_ms;
  tally_retries(h, out);
  if (hotspots) out.hotspots = profile(*w, h, hotspots);
  if (find_hang(*w, h, opt, out)) return out;
  // Scope: a block-scope atomic is atomic only among the threads of one
  // block.  If another block touches the same address, the accesses race
  // (PTX memory model), whether or not this run happened to lose an update.
  if (spec.space == Space::Global) {
    std::vector<uint32_t> owner(w->mem_elems(), UINT32_MAX);
    std::vector<uint8_t> shared_by_blocks(w->mem_elems(), 0);
    for (uint64_t o = 0; o < out.ops; ++o) {
      const uint32_t e = w->addr[o], blk = w->block_of(o);
      if (owner[e] == UINT32_MAX) owner[e] = blk;
      else if (owner[e] != blk) shared_by_blocks[e] = 1;
    }
    for (uint64_t o = 0; o < out.ops; ++o) {
      const uint32_t e = w->addr[o];
      if ((h.gave_up[o] & kBlockScopeBit) && shared_by_blocks[e]) {
        out.verdict = Verdict::Fail;
        out.bad_op = int64_t(o);
        out.why = "address " + std::to_string(e) + ": op #" + std::to_string(o) + " (block " +
                  std::to_string(w->block_of(o)) +
                  ") used a block-scope atomic on an address that threads of other blocks also update: "
                  "a data race under the PTX memory model (scope violation), whatever this run returned";
        return out;
      }
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  // Wraparound counters: every returned value is within [0, limit] for some
  // limit used at its address, or is the address's initial value.
  if (w->impl->domain == Domain::IncDec) {
    std::vector<uint64_t> max_lim(w->mem_elems(), 0);
    for (uint64_t o = 0; o < out.ops; ++o) max_lim[w->addr[o]] = std::max(max_lim[w->addr[o]], w->a[o]);
    for (uint64_t o = 0; o < out.ops; ++o) {
      const uint32_t e = w->addr[o];
      if (h.old[o] > max_lim[e] && h.old[o] != w->init[e]) {
        out.verdict = Verdict::Fail;
        out.bad_op = int64_t(o);
        out.why = "address " + std::to_string(e) + ": op #" + std::to_string(o) + " returned " +
                  std::to_string(h.old[o]) + ", above every wrap limit used there (at most " +
                  std::to_string(max_lim[e]) + ") and not the initial value " + std::to_string(w->init[e]);
        return out;
      }
    }
  }
  CheckInput in;
  in.impl = w->impl;
  in.addr = w->addr;
  in.a = w->a;
  in.b = w->b;
  in.old = h.old;
  in.init = w->init;
  in.final_mem = h.final_mem;
  in.shared = spec.space == Space::Shared;
  in.threads = uint32_t(std::min<uint64_t>(spec.threads(), UINT32_MAX));
  const CheckResult r = check_history(in);
  out.check_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!r.ok) {
    out.verdict = Verdict::Fail;
    out.why = r.explanation;
    out.bad_op = r.bad_op;
  }
  return out;
}

}  // namespace atomstress
