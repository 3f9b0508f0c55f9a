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
uint32_t failures_of(TrialSpec spec, BackendKind backend, const RunOptions& run, uint32_t runs, uint64_t seed,
                     uint32_t& other) {
  uint32_t failed = 0;
  for (uint32_t r = 0; r < runs; ++r) {
    spec.seed = seed + r;
    const TrialOutcome t = execute_trial(spec, backend, run);
    if (t.verdict == Verdict::Fail) ++failed;
    else if (t.verdict != Verdict::Pass) ++other;
  }
  return failed;
}
}  // namespace

StressRate measure_stress_rate(const ImplInfo& impl, const std::optional<Stress>& from_campaign, BackendKind backend,
                               const RunOptions& run, uint32_t runs, uint64_t seed) {
  StressRate r;
  r.impl = &impl;
  r.trial = contended_trial(impl, backend);
  r.runs = runs;
  r.unstressed = failures_of(r.trial, backend, run, runs, seed, r.other);
  std::vector<std::pair<Stress, const char*>> candidates;
  if (from_campaign && from_campaign->any()) candidates.emplace_back(*from_campaign, "campaign");
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
  std::printf("\nweak-memory failure rates: a fixed trial of %u x %u x 1 on one lock (one flag per thread, one "
              "counter), %u runs per configuration; score 1-e^-x, x = failures per %u runs\n",
              any.trial.grid, any.trial.block, any.runs, any.runs);
  std::printf("%-32s %11s %11s %15s  %s\n", "implementation", "unstressed", "stressed", "score", "best stress");
  for (const StressRate& r : rows) {
    char un[32], st[32], sc[32];
    std::snprintf(un, sizeof un, "%u/%u", r.unstressed, r.runs);
    std::snprintf(st, sizeof st, "%u/%u", r.stressed, r.runs);
    std::snprintf(sc, sizeof sc, "%.3f -> %.3f", reproducibility_score(r.unstressed), reproducibility_score(r.stressed));
    std::printf("%-32s %11s %11s %15s  %s (%s)%s\n", r.impl->name, un, st, sc, describe(r.best).c_str(),
                r.best_source.c_str(),
                r.other ? (" [" + std::to_string(r.other) + " runs hung, crashed or could not run]").c_str() : "");
  }
}

}  // namespace atomstress::fuzz
