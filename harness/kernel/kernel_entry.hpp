// Kernel entries in the registry: a user's property over their own kernel
// (ATOMSTRESS_KERNEL, <atomstress/kernel.cuh>) registered as an Entry of the
// "kernel" family, so list, check, fuzz, repro, isolation, per-entry tests
// and shrinking take it like any other entry.  Its cuda runner runs the
// property on a KernelCase drawn from the trial's spec; the cpu backend
// skips it (a CUDA kernel has no host build).
#pragma once

#include <functional>

#include "harness/kernel/kernel_case.hpp"

namespace atomstress {

struct Workload;
struct Setup;
struct History;
struct RunOptions;

using KernelProperty = std::function<void(KernelCase&)>;

// What a deliberately wrong example says of itself (ATOMSTRESS_KERNEL_BUGGY).
struct KernelTraits {
  const char* bug = nullptr;  // the bug, in words; null for a correct kernel
  bool weak_memory = false;   // a missing fence: shows at a rate, its class is memory-order
  // The compute-sanitizer tool without which the bug cannot be seen
  // ("memcheck": a read, or a write-back of unchanged bytes, outside a
  // buffer leaves the canaries intact), or null.  selftest does not count
  // such a twin (it runs no sanitizer), and check's PASS of it says so.
  const char* needs_sanitizer = nullptr;
};

// Registers the entry (at static initialisation); true, for the macro's variable.
bool register_kernel(const char* name, KernelProperty property, KernelTraits traits = {});

// The host-code allowance of a kernel trial's deadline, beyond 10 us per op
// (the kernel family's Family::host_code_ms).
inline constexpr uint64_t kKernelHostCodeBaseMs = 5000;

// The cpu backend's reason.
inline constexpr const char* kKernelCpuReason = "a CUDA kernel: kernel entries run on the cuda backend only";

namespace kernel {
// The entry's cuda runner (registry.hpp RunFn): the property, run once on
// the case of w.spec.  A fault or hang returns false with h.fault set; the
// property's verdict goes to h.own_finding.  With RunOptions::timing.bench_reps
// (profile's timing runs) each launch is timed from a snapshot of the buffers
// (CaseOptions::bench_reps) and h.kernel_ms is the mean time of one launch.
bool run_kernel_entry(const Workload& w, const Setup& s, const RunOptions& o, History& h, std::string& error);
}  // namespace kernel

}  // namespace atomstress
