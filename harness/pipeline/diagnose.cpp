#include "harness/pipeline/diagnose.hpp"

#include <cstring>
#include <optional>

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
  seq.policy.sequential = true;
  seq.policy.checker = CheckerKind::Cpu;
  const Outcome alone = execute_trial(failing, backend, seq);
  // A longer replay alone, 4096 ops of one thread over 512 words, half of its operands
  // and initial values special (NaNs, zeros of both signs, infinities,
  // subnormals, limits, extremes): a shrunk case holds few values (a NaN and
  // no signed zero, say), and one order of its ops may miss the one that is
  // wrong alone (old == limit).  Single atomics only.
  auto wide_replay = [&]() -> std::optional<Outcome> {
    if (e->algo) return std::nullopt;
    TrialSpec probe = failing;
    probe.grid = 1;
    probe.block = 1;
    probe.ops_per_thread = 4096;
    probe.space = Space::Global;
    probe.pattern = Pattern::Uniform;
    probe.k = 512;
    probe.init = Init::Random;
    probe.special_permille = 500;
    probe.seed = failing.seed ^ 0x5e9e0c1a55d1a9e5ull;
    probe.stress = {};
    return execute_trial(probe, backend, seq);
  };
  switch (alone.verdict) {
    case Verdict::Fail: {
      d.cls = alone.finding.cls != FailureClass::None ? alone.finding.cls : FailureClass::Semantics;
      d.trace = alone.finding.trace;
      if (d.trace.empty()) d.trace.push_back(alone.why());
      d.inference = alone.finding.inference;
      if (d.cls == FailureClass::Semantics || d.cls == FailureClass::ReturnValue) {
        const auto wide = wide_replay();
        if (wide && wide->verdict == Verdict::Fail && !wide->finding.inference.empty())
          d.inference = wide->finding.inference;
      }
      break;
    }
    case Verdict::Pass: {
      const auto wide = wide_replay();
      if (wide && wide->verdict == Verdict::Fail && wide->finding.cls != FailureClass::None &&
          wide->finding.cls != FailureClass::Scope) {
        d.cls = wide->finding.cls;
        d.trace.push_back("the case's own ops pass alone, but a longer replay alone (" + describe(wide->spec) +
                          ") does not: " + (wide->finding.trace.empty() ? wide->why() : wide->finding.trace.front()));
        d.inference = wide->finding.inference;
      } else {
        d.cls = FailureClass::Atomicity;
        const bool kernel = e->family && std::strcmp(e->family->name(), "kernel") == 0;  // harness/kernel/
        d.trace.push_back(kernel ? "the case passes alone (one block of one thread): the failure needs concurrent threads"
                                 : "every op does what the spec says: the failure needs concurrent ops");
      }
      break;
    }
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
