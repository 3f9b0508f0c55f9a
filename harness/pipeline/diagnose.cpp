#include "harness/pipeline/diagnose.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include "harness/pipeline/execute_trial.hpp"
#include "harness/pipeline/geometry_reruns.hpp"
#include "harness/registry/registry.hpp"

namespace atomstress {

namespace {
// What diagnose's steps share: the failing case and how it is replayed alone.
struct Replay {
  const Entry& e;
  const TrialSpec& failing;
  BackendKind backend;
  RunOptions seq;  // the run options, sequential and checked on the cpu
  RunOptions opt;  // the run's own options (a kernel's reruns at other geometries)
};

// Classes known without a replay: a weak-memory bug, or a form that cannot
// run alone.  Returns whether it set one.
bool classed_without_replay(const Entry* e, BackendKind backend, Diagnosis& d) {
  if (e->weak_memory || e->rate_only) {
    d.cls = FailureClass::MemoryOrder;
    d.trace.push_back("a weak-memory bug: it needs concurrent threads and shows at a rate, most often under stress");
    return true;
  }
  const bool warp_form = e->algo && e->gpu_only_reason && std::strcmp(e->gpu_only_reason, "warp intrinsics") == 0;
  if ((backend == BackendKind::Cpu && !e->run_cpu) || warp_form) {
    d.cls = FailureClass::Atomicity;
    d.trace.push_back("not replayed alone (warp intrinsics need their warp): taken for a concurrency bug");
    return true;
  }
  return false;
}

// A longer replay alone, 4096 ops of one thread over 512 words, half of its operands
// and initial values special (NaNs, zeros of both signs, infinities,
// subnormals, limits, extremes): a shrunk case holds few values (a NaN and
// no signed zero, say), and one order of its ops may miss the one that is
// wrong alone (old == limit).  Single atomics only.
std::optional<Outcome> wide_replay(const Replay& r) {
  if (r.e.algo) return std::nullopt;
  TrialSpec probe = r.failing;
  probe.grid = 1;
  probe.block = 1;
  probe.ops_per_thread = 4096;
  probe.space = Space::Global;
  probe.pattern = Pattern::Uniform;
  probe.k = 512;
  probe.init = Init::Random;
  probe.special_permille = 500;
  probe.seed = r.failing.seed ^ 0x5e9e0c1a55d1a9e5ull;
  probe.stress = {};
  return execute_trial(probe, r.backend, r.seq);
}

// The case fails alone: its own finding says how.
void read_failure_alone(const Replay& r, const Outcome& alone, Diagnosis& d) {
  d.cls = alone.finding.cls != FailureClass::None ? alone.finding.cls : FailureClass::Semantics;
  d.trace = alone.finding.trace;
  if (d.trace.empty()) d.trace.push_back(alone.why());
  if (!alone.finding.inference.empty()) d.inference = alone.finding.inference;
  if (d.cls == FailureClass::Semantics || d.cls == FailureClass::ReturnValue) {
    const auto wide = wide_replay(r);
    if (wide && wide->verdict == Verdict::Fail && !wide->finding.inference.empty())
      d.inference = wide->finding.inference;
  }
}

// The first spec under which both the concurrent history and a longer
// replay alone hold, else "": the history fitting another spec is the
// code's rule only if the ops alone follow it as well.
std::string spec_alone_agrees_with(const std::vector<std::string>& history_specs, const std::optional<Outcome>& wide) {
  if (!wide || wide->verdict != Verdict::Fail) return "";
  for (const std::string& name : history_specs) {
    const auto& alone = wide->finding.explaining_specs;
    if (std::find(alone.begin(), alone.end(), name) != alone.end()) return name;
  }
  return "";
}

// The case passes alone: a concurrency bug.  A longer replay alone that
// fails is another bug of the same code, reported apart (Diagnosis::distinct).
void read_pass_alone(const Replay& r, const std::optional<Outcome>& wide, Diagnosis& d) {
  if (wide && wide->verdict == Verdict::Fail && wide->finding.cls != FailureClass::None &&
      wide->finding.cls != FailureClass::Scope) {
    d.cls = FailureClass::Atomicity;
    d.trace.push_back("every op of the case does what the spec says alone: the failure needs concurrent ops");
    d.trace.push_back("a longer replay alone fails another way: a distinct failure, reported apart");
    d.distinct = DistinctFailure{wide->spec, wide->why(), wide->finding.cls, wide->finding.trace,
                                 wide->finding.inference};
  } else if (is_kernel_entry(r.e)) {  // harness/kernel/: the replay alone changed the case
    tell_geometry_reruns(rerun_across_geometries(r.failing, r.backend, r.opt), r.failing, d);
  } else {
    d.cls = FailureClass::Atomicity;
    d.trace.push_back("every op does what the spec says: the failure needs concurrent ops");
  }
}
// The history fits another spec but its ops pass alone: that spec stands
// where a longer replay alone fails and follows it too (ties meet only in
// some orders); else the fit was the chance of one interleaving (a stale
// returned value that another order happens to explain) and the failure is
// a concurrency bug, with any failure alone reported apart.
void read_other_spec_passing_alone(const Replay& r, const Finding& seen, Diagnosis& d) {
  const auto wide = wide_replay(r);
  if (!spec_alone_agrees_with(seen.explaining_specs, wide).empty()) {
    if (!wide->finding.inference.empty()) d.inference = wide->finding.inference;
    return;
  }
  d = Diagnosis{};
  read_pass_alone(r, wide, d);
  // (A finding from an older worker carries no list: its inference names the spec.)
  const std::string other = seen.explaining_specs.empty() ? seen.inference : "\"" + seen.explaining_specs.front() + "\"";
  d.trace.push_back(std::string(kSeenMark) + "the history also fits " + other +
                    ", but the ops alone do not follow it: the fit is one interleaving's, not the code's rule");
}
}  // namespace

Diagnosis diagnose(const TrialSpec& failing, Verdict verdict, const Finding& finding, BackendKind backend,
                   const RunOptions& opt) {
  Diagnosis d;
  d.cls = finding.cls;
  if (verdict == Verdict::Hang) d.cls = FailureClass::Hang;
  if (verdict == Verdict::Crash) d.cls = FailureClass::Crash;
  // The oracle found another known spec explaining the whole history
  // (check/inference.hpp specs_explaining_history): semantics where the
  // replay alone fails, or passes while a longer one alone follows that
  // spec too; the replay adds the op that went wrong.  Given
  // no finding (fuzz), the case is run once as it failed to see one.
  Finding seen = finding;
  if (verdict == Verdict::Fail && seen.kind == FindingKind::None) {
    const Outcome again = execute_trial(failing, backend, opt);
    if (again.verdict == Verdict::Fail) seen = again.finding;
  }
  const bool other_spec = verdict == Verdict::Fail && seen.cls == FailureClass::Semantics && !seen.inference.empty() &&
                          seen.kind == FindingKind::Unexplained;
  if (other_spec) {
    d.cls = FailureClass::Semantics;
    d.trace = seen.trace;
    d.inference = seen.inference;
  }
  if (verdict != Verdict::Fail || (d.cls != FailureClass::None && !other_spec)) return d;
  const Entry* e = find_impl(failing.impl);
  if (e == nullptr) return d;
  if (!other_spec && classed_without_replay(e, backend, d)) return d;
  RunOptions seq = opt;
  seq.policy.sequential = true;
  seq.policy.checker = CheckerKind::Cpu;
  const Replay replay{*e, failing, backend, seq, opt};
  const Outcome alone = execute_trial(failing, backend, replay.seq);
  switch (alone.verdict) {
    case Verdict::Fail:
      read_failure_alone(replay, alone, d);
      break;
    case Verdict::Pass:
      if (other_spec) read_other_spec_passing_alone(replay, seen, d);
      else read_pass_alone(replay, wide_replay(replay), d);
      break;
    case Verdict::Hang:
    case Verdict::Crash:
      d.cls = FailureClass::Semantics;
      d.trace.push_back(std::string("it ") + (alone.verdict == Verdict::Hang ? "hangs: " : "crashes: ") + alone.why());
      break;
    case Verdict::Error:
      if (other_spec) break;
      d.cls = FailureClass::Atomicity;
      d.trace.push_back("not replayed alone (" + alone.why() + "): taken for a concurrency bug");
      break;
  }
  return d;
}

}  // namespace atomstress
