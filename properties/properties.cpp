#include "properties.hpp"

#include <chrono>

#include "harness/pipeline/execute_trial.hpp"

namespace atomstress::properties {

TrialRunner runner_on(BackendKind backend, const RunOptions& opt) {
  return [backend, opt](const TrialSpec& spec) { return execute_trial(spec, backend, opt); };
}

Evaluation evaluate(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, uint32_t reruns) {
  return evaluate(spec, runner_on(backend, opt), reruns);
}

Evaluation evaluate(const TrialSpec& spec, const TrialRunner& run, uint32_t reruns) {
  Evaluation ev;
  for (uint32_t r = 0; r < std::max<uint32_t>(1, reruns); ++r) {
    const Outcome t = run(spec);
    ++ev.runs;
    ev.run_ms += t.run_ms;
    ev.device_check_ms += t.device_check_ms;
    if (t.verdict != Verdict::Pass) {
      ++ev.failures;
      ev.verdict = t.verdict;
      ev.why = t.why();
      break;
    }
  }
  return ev;
}

Evaluation measure_rate(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, uint32_t runs,
                        double max_seconds) {
  return measure_rate(spec, runner_on(backend, opt), runs, max_seconds);
}

Evaluation measure_rate(const TrialSpec& spec, const TrialRunner& run, uint32_t runs, double max_seconds) {
  Evaluation ev;
  const auto t0 = std::chrono::steady_clock::now();
  auto spent = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  for (uint32_t r = 0; r < runs && (r == 0 || spent() < max_seconds); ++r) {
    const Outcome t = run(spec);
    ++ev.runs;
    ev.run_ms += t.run_ms;
    ev.device_check_ms += t.device_check_ms;
    if (t.verdict != Verdict::Pass) {
      if (ev.failures++ == 0) {
        ev.verdict = t.verdict;
        ev.why = t.why();
      }
    }
    if (ev.runs >= kCrashRateRuns && ev.failures == ev.runs && t.verdict == Verdict::Crash) break;
    if (ev.runs == 1 && t.verdict == Verdict::Hang) break;
  }
  return ev;
}

Evaluation seek_failure(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, uint32_t max_runs,
                        double max_seconds) {
  Evaluation ev;
  const auto t0 = std::chrono::steady_clock::now();
  auto spent = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  while (ev.runs < max_runs && spent() < max_seconds) {
    const Outcome t = execute_trial(spec, backend, opt);
    ++ev.runs;
    ev.run_ms += t.run_ms;
    ev.device_check_ms += t.device_check_ms;
    if (t.verdict != Verdict::Pass) {
      ev.failures = 1;
      ev.verdict = t.verdict;
      ev.why = t.why();
      break;
    }
  }
  return ev;
}

const std::vector<DiffPair>& differential_pairs() {
  static const std::vector<DiffPair> pairs = {
      {"cas.add.i32", "native.add.i32"}, {"cas.add.f32", "native.add.f32"}, {"cas.add.f64", "native.add.f64"},
      {"cas.inc.u32", "native.inc.u32"}, {"cas.dec.u32", "native.dec.u32"}, {"intorder.max.f32", "cas.max.f32"},
      {"cas.add.f16", "native.add.f16"}, {"cas.add.bf16", "native.add.bf16"},
  };
  return pairs;
}

DiffResult differential(const DiffPair& pair, BackendKind backend, Space space, uint64_t seed, uint32_t ops,
                        uint32_t special_permille) {
  DiffResult res;
  const Entry* e = find_impl(pair.emulated);
  const Entry* n = find_impl(pair.native);
  TrialSpec s;
  s.impl = e->name;
  s.grid = 1;
  s.block = 1;
  s.ops_per_thread = ops;
  s.space = space;
  s.pattern = Pattern::Single;
  s.dist = Dist::Full;
  s.special_permille = special_permille;
  s.seed = seed;
  std::string err;
  auto we = expand(s, err);
  if (!we) {
    res.ok = false;
    res.why = err;
    return res;
  }
  Workload wn = *we;  // the same bytes, run by the other implementation
  wn.impl = n;
  wn.spec.impl = n->name;
  RunOptions opt;
  opt.knobs.cpu_threads = 1;
  opt.knobs.yield_permille = 0;
  History he, hn;
  if (!run_workload(*we, backend, opt, he, err) || !run_workload(wn, backend, opt, hn, err)) {
    res.ok = false;
    res.why = err;
    return res;
  }
  const bool shared = space == Space::Shared;
  // Walk both sequential histories while they are in the same state.
  for (uint64_t o = 0; o + 1 < he.old.size(); ++o) {
    const uint64_t se = e->canon(he.old[o]), sn = n->canon(hn.old[o]);
    if (se != sn) break;  // diverged after a predicted difference: nothing more to compare
    const uint64_t pe = e->canon(e->phi_in(shared)(he.old[o], we->a[o], we->b[o]));
    const uint64_t pn = n->canon(n->phi_in(shared)(hn.old[o], wn.a[o], wn.b[o]));
    const uint64_t ge = e->canon(he.old[o + 1]), gn = n->canon(hn.old[o + 1]);
    if (ge != pe || gn != pn) {
      res.ok = false;
      res.why = std::string("op #") + std::to_string(o) + " from " + format_value(e->kind, he.old[o]) + " with a = " +
                format_value(e->kind, we->a[o]) + ": " + e->name + " gave " + format_value(e->kind, he.old[o + 1]) +
                " (spec: " + format_value(e->kind, pe) + "), " + n->name + " gave " +
                format_value(n->kind, hn.old[o + 1]) + " (spec: " + format_value(n->kind, pn) + ")";
      return res;
    }
    if (pe == pn) ++res.agreed;
    else ++res.predicted;
  }
  return res;
}

}  // namespace atomstress::properties
