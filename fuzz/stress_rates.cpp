#include "fuzz/stress_rates.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "harness/pipeline/execute_trial.hpp"

namespace atomstress::fuzz {

TrialSpec contended_trial(const ImplInfo& impl, BackendKind backend) {
  TrialSpec spec;
  spec.impl = impl.name;
  spec.grid = backend == BackendKind::Cuda ? uint32_t(std::max(1, cuda_sm_count())) : 4;
  spec.block = 64;
  spec.ops_per_thread = 1;
  spec.pattern = Pattern::Single;
  spec.k = 1;
  spec.dist = Dist::Full;
  return spec;
}

Stress preset_stress(BackendKind backend) {
  Stress s;
  s.blocks = backend == BackendKind::Cuda ? uint32_t(2 * std::max(1, cuda_sm_count())) : 8;
  s.mem_permille = 1000;
  s.lines = 16;
  s.stride = 32;
  s.access = StressAccess::StoreLoad;
  s.shuffle = true;
  s.barrier_us = 1000;
  return s;
}

double reproducibility_score(uint32_t failures) { return 1.0 - std::exp(-double(failures)); }

namespace {
// Failures of `spec` in `runs` runs (seeds seed, seed + 1, ...); runs that
// hang, crash or cannot run count in `other`.
uint32_t failures_of(TrialSpec spec, BackendKind backend, const RunOptions& run, uint32_t runs,
                     std::optional<uint64_t> seed, uint32_t& other) {
  uint32_t failed = 0;
  for (uint32_t r = 0; r < runs; ++r) {
    if (seed) spec.seed = *seed + r;
    const TrialOutcome t = execute_trial(spec, backend, run);
    if (t.verdict == Verdict::Fail) ++failed;
    else if (t.verdict != Verdict::Pass) ++other;
  }
  return failed;
}
}  // namespace

StressRate measure_stress_rate(const ImplInfo& impl, const std::optional<TrialSpec>& shrunk, BackendKind backend,
                               const RunOptions& run, uint32_t runs, uint64_t seed_base) {
  StressRate r;
  r.impl = &impl;
  r.shrunk = shrunk.has_value();
  r.trial = shrunk ? *shrunk : contended_trial(impl, backend);
  r.trial.stress = {};
  r.runs = runs;
  const std::optional<uint64_t> seed = shrunk ? std::nullopt : std::optional<uint64_t>(seed_base);
  r.unstressed = failures_of(r.trial, backend, run, runs, seed, r.other);
  std::vector<std::pair<Stress, const char*>> candidates;
  if (shrunk && shrunk->stress.any()) candidates.emplace_back(shrunk->stress, "campaign");
  candidates.emplace_back(preset_stress(backend), "preset");
  bool first = true;
  for (const auto& [stress, source] : candidates) {
    TrialSpec s = r.trial;
    s.stress = stress;
    const uint32_t f = failures_of(s, backend, run, runs, seed, r.other);
    if (first || f > r.stressed) {
      r.stressed = f;
      r.best = stress;
      r.best_source = source;
    }
    first = false;
  }
  return r;
}

void print_stress_rates(const std::vector<StressRate>& rows) {
  if (rows.empty()) return;
  const StressRate& any = rows.front();
  std::printf("\nweak-memory failure rates: each bug's shrunk case (or, where its campaign found none, a trial of "
              "one block per SM x 64 threads x 1 op on one lock), %u runs per configuration, without its stress and "
              "under the better of its own and a heavy preset; score 1-e^-x, x = failures per %u runs\n",
              any.runs, any.runs);
  std::printf("%-44s %-18s %11s %11s %15s  %s\n", "implementation", "trial", "unstressed", "stressed", "score",
              "best stress");
  for (const StressRate& r : rows) {
    char un[32], st[32], sc[32];
    std::snprintf(un, sizeof un, "%u/%u", r.unstressed, r.runs);
    std::snprintf(st, sizeof st, "%u/%u", r.stressed, r.runs);
    std::snprintf(sc, sizeof sc, "%.3f -> %.3f", reproducibility_score(r.unstressed), reproducibility_score(r.stressed));
    char trial[48];
    std::snprintf(trial, sizeof trial, "%s %ux%ux%u", r.shrunk ? "shrunk" : "fixed", r.trial.grid, r.trial.block,
                  r.trial.ops_per_thread);
    std::printf("%-44s %-18s %11s %11s %15s  %s (%s)%s\n", r.impl->name, trial, un, st, sc, describe(r.best).c_str(),
                r.best_source.c_str(),
                r.other ? (" [" + std::to_string(r.other) + " runs hung, crashed or could not run]").c_str() : "");
  }
}

}  // namespace atomstress::fuzz
