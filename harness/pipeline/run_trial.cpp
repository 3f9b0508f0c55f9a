#include "harness/pipeline/run_trial.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>

#include "harness/backend/device_expansion.hpp"
#include "harness/backend/gpu_checked.hpp"
#include "harness/check/gpu_checker.hpp"
#include "harness/check/sequential.hpp"
#include "harness/pipeline/device_chains.hpp"

namespace atomstress {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "PASS";
    case Verdict::Fail: return "FAIL";
    case Verdict::Hang: return "HANG";
    case Verdict::Crash: return "CRASH";
    case Verdict::Error: return "ERROR";
  }
  return "ERROR";
}

std::optional<Verdict> parse_verdict(std::string_view s) {
  for (Verdict v : {Verdict::Pass, Verdict::Fail, Verdict::Hang, Verdict::Crash, Verdict::Error})
    if (s == to_string(v)) return v;
  return std::nullopt;
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

std::vector<Hotspot> hottest_addresses(const Workload& w, const History& h, size_t top) {
  std::vector<Hotspot> all(w.mem_elems());
  for (size_t e = 0; e < all.size(); ++e) all[e].addr = e;
  for (uint64_t o = 0; o < w.ops() && o < h.retries.size(); ++o) {  // a timing-only run records nothing
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

namespace {

// The refusal of a gpu-only entry on the cpu backend, in the entry's own
// reason (warp intrinsics, a host side that is other code).
std::string needs_the_cuda_backend(const Entry& e) {
  return std::string(e.name) + " is gpu only (" + (e.gpu_only_reason ? e.gpu_only_reason : "warp intrinsics") +
         "): it needs the cuda backend";
}

// A loop that gave up on its own (budget or watchdog) is a hang; loops that
// stopped because another gave up only follow it.
Finding hang_rule(const Workload& w, const History& h, const RunOptions& opt) {
  for (uint64_t o = 0; o < h.gave_up.size(); ++o) {
    if (!gave_up_by_itself(h.gave_up[o])) continue;
    const auto g = static_cast<GaveUp>(h.gave_up[o] & ~kBlockScopeBit);
    const std::string op = "op #" + std::to_string(o) + " (thread " + std::to_string(w.thread_of(o)) + ", address " +
                           std::to_string(w.addr[o]) + ") ";
    const std::string watchdog = std::to_string(effective_watchdog_ms(opt, w.ops())) + " ms watchdog";
    // A loop that saw its queue or its word keep moving to the end was
    // slow, not stuck: say so, and not the family's cause (a lock never
    // released, starvation; a loop that never ends).
    auto too_slow = [&](const std::string& doing, const std::string& allowance, const std::string& seen) {
      return make_finding(FindingKind::Hang,
                          op + "was still " + doing + " when the " + watchdog + " and " +
                              std::to_string(effective_queue_wait_ms(opt, w)) + " ms more for " + allowance +
                              " had passed, after " + std::to_string(h.retries[o]) + " retries: " + seen +
                              " the trial is too slow for its deadline, not shown stuck; a larger --watchdog-ms or "
                              "fewer ops may let it finish",
                          int64_t(o), w.addr[o]);
    };
    if (g == GaveUp::QueueTooSlow)
      return too_slow("waiting in a queue that kept moving", "a moving queue",
                      "it saw other tickets served until then, so the lock was being handed on and");
    if (g == GaveUp::WordKeptMoving) {
      const Family::LiveWait live = w.impl->family->live_wait();
      return too_slow(live.doing, "a live loop", live.seen);
    }
    std::string stopped;
    if (g == GaveUp::Budget)
      stopped = "exceeded its retry budget of " + std::to_string(effective_retry_budget(opt, w.spec));
    else if (g == GaveUp::Stalled)
      stopped = "was still retrying after " + std::to_string(h.retries[o]) + " retries when no op of the trial had " +
                "completed for " + std::to_string(effective_stall_ms(opt, w)) + " ms while it ran";
    else
      stopped = "was still retrying when the " + watchdog + " fired, after " + std::to_string(h.retries[o]) + " retries";
    return make_finding(FindingKind::Hang, op + stopped + ": " + w.impl->family->hang_cause(), int64_t(o), w.addr[o]);
  }
  // An algorithm's step that belongs to no op (a histogram's merge of its
  // shared bins) records nothing when its loop gives up; the run was cut
  // short all the same, and what it left is not the algorithm's result.
  if (w.impl->algo != nullptr && h.loop_stopped)
    return make_finding(FindingKind::Hang,
                        "a loop in a step of the algorithm that belongs to no op (a merge) gave up (its retry budget "
                        "of " + std::to_string(effective_retry_budget(opt, w.spec)) + " or the " +
                            std::to_string(effective_watchdog_ms(opt, w.ops())) +
                            " ms watchdog), so the run was cut short: " + w.impl->family->hang_cause());
  return {};
}

// The ops a finding names, with their operands and what they returned (the
// first few: a finding names one or two).
std::vector<std::string> operand_lines(const Workload& w, const History& h, const std::vector<int64_t>& ops) {
  std::vector<std::string> lines;
  const Entry& e = *w.impl;
  for (int64_t o : ops) {
    if (o < 0 || uint64_t(o) >= w.a.size() || uint64_t(o) >= h.old.size() || lines.size() == 4) continue;
    std::string l = "op #" + std::to_string(o) + " (block " + std::to_string(w.block_of(o)) + ", thread " +
                    std::to_string(w.thread_of(o)) + "): address " + std::to_string(w.addr[o]) + ", ";
    l += operands_text(e, w.a[o], w.b[o]) + ", returned " +
         (e.returns_nothing ? std::string("none (a void update)") : format_value(e.kind, h.old[o]));
    lines.push_back(std::move(l));
  }
  return lines;
}

Outcome refused(Outcome out, FindingKind kind, std::string why) {
  out.verdict = Verdict::Error;
  out.finding = make_finding(kind, std::move(why));
  return out;
}

}  // namespace

std::optional<Setup> setup_trial(const Workload& w, std::string& error) { return w.impl->family->setup(w, error); }

void note_cpu_ignores_stress() {
  // Once per process: a campaign draws stress for most of its specs.
  static std::once_flag once;
  std::call_once(once, [] {
    std::fputs("atomstress: note: the cpu backend ignores the GPU-only stress knobs (extra blocks, shuffle, "
               "pre-test barrier, bank conflicts): its trials run unstressed\n",
               stderr);
  });
}

bool run_workload(const Workload& w, const Setup& s, BackendKind backend, const RunOptions& opt, History& h,
                  std::string& error) {
  if (w.arrays_elsewhere && !(backend == BackendKind::Cuda && h.home == HistoryHome::Device && !w.impl->algo)) {
    error = "a workload expanded without its arrays (expand_shape) runs only resident on the cuda backend";
    return false;
  }
  const RunFn run = backend == BackendKind::Cuda ? w.impl->run_cuda : w.impl->run_cpu;
  if (backend == BackendKind::Cpu && w.spec.stress.any()) note_cpu_ignores_stress();
  if (!run) {
    error = needs_the_cuda_backend(*w.impl);
    return false;
  }
  return run(w, s, opt, h, error);
}

bool run_workload(const Workload& w, BackendKind backend, const RunOptions& opt, History& h, std::string& error) {
  const auto s = setup_trial(w, error);
  return s && run_workload(w, *s, backend, opt, h, error);
}

Finding check_trial(const Workload& w, const Setup& s, const History& h) {
  const Family& family = *w.impl->family;
  // The scope rule for algorithms (single atomics check it per op): a user's
  // atomic that called a block-scope intrinsic, in a form whose targets
  // several blocks update, races whatever this run returned.
  if (w.impl->algo != nullptr && h.block_scope_calls && w.spec.grid > 1 && family.atomic_targets_shared(w, s))
    return make_finding(FindingKind::ScopeViolation,
                        std::string(w.impl->algo->atomic().name) + " called a block-scope atomic intrinsic, and " +
                            w.impl->algo->form +
                            " has threads of several blocks update the same word through it: a data race under "
                            "the PTX memory model (scope violation), whatever this run returned");
  return family.check(w, s, h);
}

void add_retries(const History& h, Outcome& out) {
  for (uint64_t o = 0; o < h.retries.size(); ++o) {
    out.total_retries += h.retries[o];
    out.max_retries = std::max(out.max_retries, h.retries[o]);
  }
}

bool judge_on_host(Workload& w, const Setup& s, const History& h, const RunOptions& opt, Outcome& out) {
  if (Finding f = hang_rule(w, h, opt); !f.ok()) {
    out.verdict = Verdict::Hang;
    out.finding = std::move(f);
    return false;
  }
  // A user's float code on the CPU backend ran on the host's FPU, whose NaN
  // payloads are not the device's: there, every NaN is one state.
  const Entry& entry = *w.impl;
  Entry host_float_entry;
  if (out.backend == BackendKind::Cpu && entry.user_code && vk_is_float(entry.kind) && !entry.algo) {
    host_float_entry = entry;
    host_float_entry.sem.nan_states_equal = true;
    w.impl = &host_float_entry;
  }
  const auto t0 = std::chrono::steady_clock::now();
  ChainsOnDevice chains(entry, out, opt.policy);  // an algorithm's atomics, on the GPU checker
  if (opt.policy.sequential && !entry.algo) {
    // The diagnosis replay: judged op by op (check/sequential.hpp), after
    // the scope rule (a block-scope atomic shared across blocks is a scope
    // bug, whatever one thread alone returns).
    out.finding = check_trial(w, s, h);
    const SequentialReplay replay = judge_sequential(w, s, h);
    if (out.finding.kind != FindingKind::ScopeViolation) out.finding = replay.finding;
    if (opt.policy.trace_rows) out.trace_table = sequential_table(w, replay, opt.policy.trace_rows);
  } else {
    out.finding = check_trial(w, s, h);
    if (!entry.algo && !out.finding.ok()) out.finding.operands = operand_lines(w, h, out.finding.ops);
    // An algorithm that fails alone is wrong in its own logic.
    if (opt.policy.sequential && !out.finding.ok() && out.finding.cls == FailureClass::None)
      out.finding.cls = FailureClass::Semantics;
  }
  out.check_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  w.impl = &entry;
  if (!out.finding.ok()) out.verdict = Verdict::Fail;
  chains.add_to(out);
  return true;
}

namespace {

// Whether a trial is expanded, run and checked on the device (gpu_checked.hpp):
// a single atomic with a device oracle that agrees with its host phi, a
// history the GPU checker takes, nothing asked of the per-op arrays.
// Under auto, only trials of at least kDeviceCheckMinOps ops
// (device_chains.hpp).

bool use_resident(const Entry& entry, BackendKind backend, const RunOptions& opt, size_t hotspots, uint64_t ops) {
  if (backend != BackendKind::Cuda || opt.policy.checker == CheckerKind::Cpu || opt.timing.bench_reps || hotspots ||
      opt.policy.sequential)
    return false;
  if (opt.policy.checker == CheckerKind::Auto && ops < kDeviceCheckMinOps) return false;
  if (entry.algo || !entry.device_edges) return false;
  return gpu_checkable(entry, ops, gpu_check::device_judge());
}

// A trial judged here: its inputs made on the device for a cuda trial of
// kDeviceExpansionMinOps ops or more (the same bytes, device_expansion.hpp),
// else on the host.
bool expand_for_host(Workload& w, BackendKind backend, std::string& error) {
  if (backend == BackendKind::Cuda && w.ops() >= kDeviceExpansionMinOps) return expand_arrays_on_device(w, error);
  expand_arrays(w);
  return true;
}

}  // namespace

void run_on_backend(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, size_t hotspots, RanTrial& r) {
  Outcome& out = r.out;
  out.spec = spec;
  out.knobs = opt.knobs;
  out.backend = backend;
  r.opt = opt;
  r.hotspots = hotspots;
  r.judged = true;  // until a history waits for the host's judging
  auto refuse = [&](FindingKind kind, std::string why) { out = refused(std::move(out), kind, std::move(why)); };
  std::string error;
  r.w = expand_shape(spec, error);
  if (!r.w) return refuse(FindingKind::InvalidTrial, error);
  Workload& w = *r.w;
  out.ops = w.ops();
  const Entry& entry = *w.impl;
  const Family& family = *entry.family;
  if (!(backend == BackendKind::Cuda ? entry.run_cuda : entry.run_cpu))
    return refuse(FindingKind::InvalidTrial, needs_the_cuda_backend(entry));
  // Where the history lives: on the device (expanded, run and checked
  // there), or here.
  History& h = r.h;
  h.home = use_resident(entry, backend, opt, hotspots, w.ops()) ? HistoryHome::Device : HistoryHome::Host;
  if (h.home == HistoryHome::Host && !expand_for_host(w, backend, error))
    return refuse(FindingKind::BackendError, error);
  r.setup = family.setup(w, error);
  if (!r.setup) return refuse(FindingKind::InvalidTrial, error);
  const bool ran = run_workload(w, *r.setup, backend, opt, h, error);
  // A kernel entry's buffers and case table, whatever the run came to: a
  // sanitizer's report of a faulted case names them too.
  out.buffers = h.buffers;
  if (!h.case_table.empty()) out.trace_table = h.case_table;
  if (!ran) {
    // A fault of the code under test is a found failure; anything else is
    // a trial that could not run.
    if (h.fault == RunFault::None) return refuse(FindingKind::BackendError, error);
    const bool hang = h.fault == RunFault::Hang;
    out.verdict = hang ? Verdict::Hang : Verdict::Crash;
    out.finding = make_finding(hang ? FindingKind::Hang : FindingKind::Crash, error);
    out.max_retries = h.stopped_retries;
    return;
  }
  out.run_ms = h.kernel_ms;
  out.run_end_s = h.kernel_end_s;
  // The device's verdict; a trial it cannot pass alone (and every trial
  // under --checker both) is copied back for the host's checker.
  if (h.home == HistoryHome::Device) {
    DeviceVerdict device;
    if (!judge_on_device(w, gpu_check::device_judge(), device, error)) return refuse(FindingKind::BackendError, error);
    out.checked_on_gpu = true;
    out.check_ms = device.check_ms;
    out.device_check_ms = device.device_ms;
    out.device_check_end_s = device.end_s;
    out.total_retries = device.total_retries;
    out.max_retries = device.max_retries;
    if (device.ok && !device.needs_host && opt.policy.checker != CheckerKind::Both) return;
    if (!copy_history_back(w, h, error)) return refuse(FindingKind::BackendError, error);
    r.setup = family.setup(w, error);
    if (!r.setup) return refuse(FindingKind::BackendError, error);
    if (!device.needs_host) r.device_ok = device.ok;
  } else {
    add_retries(h, out);
  }
  r.judged = false;
}

Outcome judge_ran_trial(RanTrial& r) {
  if (r.judged) return std::move(r.out);
  r.judged = true;
  Outcome& out = r.out;
  Workload& w = *r.w;
  if (r.hotspots && w.impl->family->profiles_addresses()) out.hotspots = hottest_addresses(w, r.h, r.hotspots);
  if (!judge_on_host(w, *r.setup, r.h, r.opt, out)) return std::move(out);
  // Where only the trail test decides (no host-only rule applied), both
  // checkers judged the same history: they must agree.
  if (r.device_ok && *r.device_ok != out.finding.ok()) {
    out.verdict = Verdict::Error;
    out.finding = checkers_disagree(*r.device_ok, out.finding);
  }
  return std::move(out);
}

Finding checkers_disagree(bool gpu_ok, const Finding& host) {
  return make_finding(FindingKind::BackendError,
                      std::string("the GPU checker ") + (gpu_ok ? "passed" : "failed") + " a history the host's checker " +
                          (gpu_ok ? "failed" : "passed") +
                          " (a fault of atomstress; please report it with the repro line): " + host.explanation);
}

Outcome run_trial(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, size_t hotspots) {
  RanTrial r;
  run_on_backend(spec, backend, opt, hotspots, r);
  return judge_ran_trial(r);
}

}  // namespace atomstress
