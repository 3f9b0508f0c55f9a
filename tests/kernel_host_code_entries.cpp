// Two kernel-family entries whose "kernel" runs on the host (as
// test_kernel_host.cpp's test.kernel.host does), registered into
// atomstress_outside_entry only.  Each says a kernel case's phases as
// run_kernel_entry and KernelCase say them (kernel/case_phase.hpp): its
// host code, its one launch, its host code after it; then its property's
// host code (its "oracle") runs on:
//   kernel_test.host_code_never_ends  for ever: the trial must end as an
//       ERROR naming the entry and the phase (the kernel had finished: not
//       the kernel's HANG);
//   kernel_test.host_code_slow  past the watchdog and the isolation grace,
//       well within the kernel family's host-code allowance: it must PASS
//       (a deadline of the watchdog alone would have killed it);
//   kernel_test.launch_never_ends  its launch never ends (a host stand-in
//       for a kernel that spins): HANG at the launch's own bound, the
//       watchdog and the grace, without the host-code allowance.
// (Named outside `test.*`, which other isolation tests fuzz as a glob.)
// So the supervisor's side of the host-code deadline is tested on the CPU;
// a real kernel entry's notes need the GPU (examples/kernels/unbounded.cu's
// kernels.oracle_never_ends).
#include <chrono>
#include <string>
#include <thread>

#include "harness/backend/backend.hpp"
#include "harness/kernel/case_phase.hpp"
#include "harness/pipeline/isolated.hpp"
#include "harness/registry/registry.hpp"
#include "harness/workload/workload.hpp"

namespace host_code {

using namespace atomstress;
using kernel::CasePhase;

// The case's phases up to the host code after its one launch.
void launch_once(const std::string& entry) {
  kernel::note_case_phase({entry, CasePhase::HostCode, 0});
  kernel::note_case_phase({entry, CasePhase::Launch, 1});
  kernel::note_case_phase({entry, CasePhase::HostCode, 1});
}

bool never_ends(const Workload& w, const Setup&, const RunOptions&, History&, std::string&) {
  launch_once(w.impl->name);
  for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(20));  // an oracle that never returns
}

bool slow(const Workload& w, const Setup&, const RunOptions& o, History&, std::string&) {
  launch_once(w.impl->name);
  // One second past where a deadline of the watchdog and the grace alone ends.
  const uint64_t past_ms = effective_watchdog_ms(o, w.spec.ops()) + isolation_grace_ms(w.spec.ops()) + 1000;
  std::this_thread::sleep_for(std::chrono::milliseconds(past_ms));
  kernel::note_case_phase({w.impl->name, CasePhase::Finished, 1});
  return true;
}

bool launch_never_ends(const Workload& w, const Setup&, const RunOptions&, History&, std::string&) {
  kernel::note_case_phase({w.impl->name, CasePhase::HostCode, 0});
  kernel::note_case_phase({w.impl->name, CasePhase::Launch, 1});
  for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a kernel that never ends
}

void register_host_entry(const char* name, const char* bug, RunFn run) {
  EntryDraft d;
  d.name = name;
  d.family = "kernel";
  d.is_algorithm = true;
  Entry own;
  own.name = "own";
  d.implicit_atomic = own;
  d.algo.form = "kernel";
  d.order = ~uint64_t(0);
  d.entry.bug = bug;
  d.entry.run_cpu = run;
  register_entry(std::move(d));
}

const bool registered = [] {
  register_host_entry("kernel_test.host_code_never_ends",
                      "its property's host code never ends (a test of the trial's deadline)", &never_ends);
  register_host_entry("kernel_test.host_code_slow", nullptr, &slow);
  register_host_entry("kernel_test.launch_never_ends", "its one launch never ends (a test of a launch's bound)",
                      &launch_never_ends);
  return true;
}();

}  // namespace host_code
