#include "harness/kernel/kernel_entry.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include "harness/backend/backend.hpp"
#include "harness/kernel/case_phase.hpp"
#include "harness/registry/registry.hpp"

namespace atomstress {

namespace {
std::map<std::string, KernelProperty>& properties() {
  static std::map<std::string, KernelProperty> m;
  return m;
}

// What stands for "the atomic it uses" (an algorithm's AlgoInfo needs one):
// a kernel's atomics are its own, unseen by atomstress.
Entry own_atomics() {
  Entry e;
  e.name = "the kernel's own atomics";
  e.kind = VK::U32;
  e.user_code = true;
  e.sem = Semantics{"the kernel's own", kNA, kNA, kNA, kNA};
  return e;
}
}  // namespace

bool register_kernel(const char* name, KernelProperty property, KernelTraits traits) {
  static uint64_t seq = 0;
  if (traits.needs_sanitizer) {
    const auto tool = parse_sanitize_tool(traits.needs_sanitizer);
    if (!tool || *tool == SanitizeTool::None) {
      std::fputs(fmt::format("atomstress: error: kernel entry '{}': needs_sanitizer '{}' is not memcheck, racecheck or "
                             "synccheck\n", name, traits.needs_sanitizer).c_str(), stderr);
      std::exit(2);
    }
  }
  properties()[name] = std::move(property);
  EntryDraft d;
  d.name = name;
  d.family = "kernel";
  d.is_algorithm = true;
  d.implicit_atomic = own_atomics();
  d.algo.form = "kernel";
  d.order = (uint64_t(1) << 63) | seq++;  // after the catalogue's entries
  Entry& e = d.entry;
  e.user_code = true;
  e.gpu_only = true;
  e.gpu_only_reason = kKernelCpuReason;
  e.needs_gpu = true;
  e.bug = traits.bug;
  e.weak_memory = traits.weak_memory;
  e.needs_sanitizer = traits.needs_sanitizer;
  e.run_cuda = &kernel::run_kernel_entry;
  register_entry(std::move(d));
  return true;
}

namespace kernel {

bool run_kernel_entry(const Workload& w, const Setup&, const RunOptions& o, History& h, std::string& error) {
  const auto it = properties().find(w.impl->name);
  if (it == properties().end()) {
    error = std::string("kernel entry '") + w.impl->name + "' has no property (registered elsewhere?)";
    return false;
  }
  CaseOptions opt;
  opt.watchdog_ms = effective_watchdog_ms(o, w.spec.ops());
  opt.sequential = o.policy.sequential;
  opt.exact_buffers = o.policy.sanitize != SanitizeTool::None;
  opt.entry = w.impl->name;
  // profile's timing runs: each launch timed from a snapshot of the buffers,
  // at the problem size the geometry sets; the oracle still judges the run.
  opt.bench_reps = o.timing.bench_reps;
  opt.flush_l2 = o.timing.flush_l2;
  opt.whole_sizes = o.timing.bench_reps > 0;
  KernelCase c(w.spec, opt);
  // The property's host code runs from here to its return, between its
  // launches (case_phase.hpp: the isolated worker's supervisor is told).
  note_case_phase({opt.entry, CasePhase::HostCode, 0});
  try {
    it->second(c);
  } catch (const CaseStopped&) {
  } catch (const std::exception& ex) {
    note_case_phase({opt.entry, CasePhase::Finished, uint32_t(c.launch_count())});
    error = std::string("the property of ") + w.impl->name + " threw: " + ex.what();
    return false;
  }
  note_case_phase({opt.entry, CasePhase::Finished, uint32_t(c.launch_count())});
  h.kernel_ms = c.kernel_ms();  // timed: the mean of one launch, summed over the property's launches
  h.buffers = c.buffers();
  if (o.policy.trace_rows) h.case_table = case_table(c.record(), o.policy.trace_rows);
  // The diagnosis replay is "alone" only if every launch ran one thread: a
  // property that launches its own geometry (cover(n), a fixed Geometry)
  // still runs threads at once there, and its verdict says nothing of the
  // kernel alone.
  if (o.policy.sequential && c.most_threads() > 1) {
    error = "the property launched " + std::to_string(c.most_threads()) +
            " threads at once (its own geometry, not the case's 1 x 1)";
    return false;
  }
  if (c.fault() != RunFault::None || !c.error().empty()) {
    h.fault = c.fault();
    error = c.error() + (c.drawn().empty() ? "" : " [case: " + c.drawn() + "]");
    return false;
  }
  if (c.failure()) {
    Finding f = to_finding(*c.failure());
    if (!c.drawn().empty()) f.explanation += " [case: " + c.drawn() + "]";
    h.own_finding = std::make_shared<Finding>(std::move(f));
  }
  return true;
}

}  // namespace kernel

}  // namespace atomstress
