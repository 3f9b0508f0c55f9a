#include "harness/pipeline/diagnose.hpp"

#include <cstring>

#include "harness/pipeline/execute_trial.hpp"
#include "harness/registry/registry.hpp"

namespace atomstress {

Diagnosis diagnose(const TrialSpec& failing, Verdict verdict, const Finding& finding, BackendKind backend,
                   const RunOptions& opt) {
  Diagnosis d;
  d.cls = finding.cls;
  if (verdict == Verdict::Hang) d.cls = FailureClass::Hang;
  if (verdict == Verdict::Crash) d.cls = FailureClass::Crash;
  if (verdict != Verdict::Fail || d.cls != FailureClass::None) return d;
  const Entry* e = find_impl(failing.impl);
  if (e == nullptr) return d;
  if (e->weak_memory || e->rate_only) {
    d.cls = FailureClass::MemoryOrder;
    d.trace.push_back("a weak-memory bug: it needs concurrent threads and shows at a rate, most often under stress");
    return d;
  }
  const bool warp_form = e->algo && e->gpu_only_reason && std::strcmp(e->gpu_only_reason, "warp intrinsics") == 0;
  if ((backend == BackendKind::Cpu && !e->run_cpu) || warp_form) {
    d.cls = FailureClass::Atomicity;
    d.trace.push_back("not replayed alone (warp intrinsics need their warp): taken for a concurrency bug");
    return d;
  }
  RunOptions seq = opt;
  seq.sequential = true;
  seq.checker = CheckerKind::Cpu;
  const Outcome alone = execute_trial(failing, backend, seq);
  switch (alone.verdict) {
    case Verdict::Fail:
      d.cls = alone.finding.cls != FailureClass::None ? alone.finding.cls : FailureClass::Semantics;
      d.trace = alone.finding.trace;
      if (d.trace.empty()) d.trace.push_back(alone.why());
      d.inference = alone.finding.inference;
      break;
    case Verdict::Pass:
      d.cls = FailureClass::Atomicity;
      d.trace.push_back("every op does what the spec says: the failure needs concurrent ops");
      break;
    case Verdict::Hang:
    case Verdict::Crash:
      d.cls = FailureClass::Semantics;
      d.trace.push_back(std::string("it ") + (alone.verdict == Verdict::Hang ? "hangs: " : "crashes: ") + alone.why());
      break;
    case Verdict::Error:
      d.cls = FailureClass::Atomicity;
      d.trace.push_back("not replayed alone (" + alone.why() + "): taken for a concurrency bug");
      break;
  }
  return d;
}

}  // namespace atomstress
