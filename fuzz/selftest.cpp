// atomstress selftest: the property campaign against every deliberately
// wrong implementation (caught or not, time to catch, shrunk case, repro
// line, mutation score; the weak-memory bugs' failure rates with and
// without stress), the same campaign over the correct catalogue (no
// false failures allowed), and the differential properties.
#include "fuzz/selftest.hpp"

#include <algorithm>
#include <cstdio>

#include "campaign.hpp"
#include "fuzz/stress_rates.hpp"
#include "harness/pipeline/execute_trial.hpp"
#include "reports/repro_command.hpp"

namespace atomstress {

int fuzz::run_selftest(const fuzz::SelftestConfig& cfg, reports::Printer& printer) {
  const BackendKind backend = cfg.backend;
  const bool cuda = backend == BackendKind::Cuda;
  const RunOptions& run = cfg.run;
  const double budget_s = cfg.budget_s;
  const uint32_t reruns = cfg.reruns, rate_runs = cfg.rate_runs;
  const uint64_t seed = cfg.seed, correct_specs = cfg.correct_specs, algo_specs = cfg.algo_specs;
  const auto targets = match_impls(cfg.bugs);
  if (targets.empty()) {
    std::fprintf(stderr, "atomstress: error: no implementation matches '%s'\n", cfg.bugs.c_str());
    return 2;
  }
  std::printf("selftest on %s: %.1f s search budget per bug, %u runs per spec\n\n", to_string(backend), budget_s, reruns);
  std::printf("%-32s %-6s %-5s %-13s %9s %6s  %-26s %s\n", "implementation", "caught", "how", "class", "to catch",
              "specs", "shrunk: grid x block x ops", "rate of shrunk case");
  uint32_t caught = 0;
  std::vector<double> times;
  std::vector<fuzz::StressRate> rates;  // the weak-memory bugs', with and without stress
  size_t counted = 0;
  for (const ImplInfo* impl : targets) {
    if (impl->needs_gpu && !cuda) {
      std::printf("%-32s %-6s (needs a GPU: not counted on the cpu backend)\n", impl->name, "n/a");
      continue;
    }
    if (!impl->rate_only) ++counted;
    fuzz::CampaignConfig bug_cfg;
    bug_cfg.gen = properties::default_config(backend, {impl});
    bug_cfg.run = run;
    bug_cfg.budget_s = budget_s;
    bug_cfg.reruns = reruns;
    bug_cfg.seed = seed;
    bug_cfg.pack = fuzz::default_pack(backend);
    const auto r = fuzz::run_campaign(bug_cfg);
    if (r.verdict == Verdict::Error) {
      std::fprintf(stderr, "atomstress: error: %s: %s\n", impl->name, r.why.c_str());
      return 2;
    }
    char shrunk[64] = "-", rate[64] = "-", when[32] = "-";
    if (r.found && !impl->rate_only) {
      ++caught;
      times.push_back(r.time_to_catch_s);
    }
    if (r.found) {
      std::snprintf(shrunk, sizeof shrunk, "%u x %u x %u = %llu ops", r.shrunk.grid, r.shrunk.block,
                    r.shrunk.ops_per_thread, (unsigned long long)r.shrunk.ops());
      std::snprintf(rate, sizeof rate, "%u/%u%s", r.rate_failures, r.rate_runs, r.flaky ? " (flaky)" : "");
      std::snprintf(when, sizeof when, "%.3f s", r.time_to_catch_s);
    }
    std::printf("%-32s %-6s %-5s %-13s %9s %6llu  %-26s %s\n", impl->name,
                r.found ? "yes" : impl->rate_only ? "unseen" : "NO", r.found ? to_string(r.verdict) : "-",
                r.found ? to_string(r.diagnosis.cls) : "-", when, (unsigned long long)r.specs, shrunk, rate);
    if (r.found) {
      std::printf("      %s\n      repro: %s\n", r.why.c_str(),
                  reports::repro_command(encode_token(r.shrunk, knobs_of(run)), backend).c_str());
      if (r.shrunk.stress.any()) std::printf("      shrunk case's %s\n", describe(r.shrunk.stress).c_str());
    }
    reports::CampaignRecord rec;
    rec.impl = impl;
    rec.backend = backend;
    rec.found = r.found;
    rec.verdict = r.verdict;
    rec.why = r.why;
    rec.shrunk = r.shrunk;
    rec.knobs = knobs_of(run);
    rec.time_to_catch_s = r.time_to_catch_s;
    rec.specs = r.specs;
    rec.rate_failures = r.rate_failures;
    rec.rate_runs = r.rate_runs;
    rec.flaky = r.flaky;
    rec.cls = r.diagnosis.cls;
    printer.campaign(rec);
    if (impl->rate_only || impl->weak_memory)
      rates.push_back(fuzz::measure_stress_rate(*impl, r.found ? std::optional<TrialSpec>(r.shrunk) : std::nullopt,
                                                backend, run, rate_runs, seed));
    std::fflush(stdout);
  }
  fuzz::print_stress_rates(rates);
  std::sort(times.begin(), times.end());
  const double median = times.empty() ? 0 : times[times.size() / 2];
  std::printf("\nmutation score: %u/%zu caught (%.0f%%), median time to catch %.3f s\n", caught, counted,
              counted ? 100.0 * caught / counted : 0.0, median);

  // No false failures: the same campaign over the correct catalogue, its
  // single atomics and its algorithms.
  bool false_failure = false;
  for (const auto& [which, specs] : {std::pair<const char*, uint64_t>{"atomics", correct_specs},
                                     std::pair<const char*, uint64_t>{"algorithms", algo_specs}}) {
    fuzz::CampaignConfig cc;
    cc.gen = properties::default_config(backend, match_impls(which));
    cc.run = run;
    cc.budget_s = 1e9;
    cc.max_specs = specs;
    cc.reruns = 1;
    cc.seed = seed + 1000;
    const auto rc = fuzz::run_campaign(cc);
    std::printf("correct %-10s (%2zu entries): %llu generated specs, %s (%.1f s)\n", which, cc.gen.impls.size(),
                (unsigned long long)rc.specs,
                rc.found ? (rc.verdict == Verdict::Error ? "ERROR (an invalid spec was generated)" : "FALSE FAILURE")
                         : "no failure",
                rc.total_s);
    if (rc.found) {
      false_failure = true;
      std::printf("      %s\n      repro: %s\n", rc.why.c_str(),
                  reports::repro_command(encode_token(rc.shrunk, knobs_of(run)), backend).c_str());
    }
  }

  // Differential properties, both memory spaces, with specials.
  bool diff_ok = true;
  for (const auto& pair : properties::differential_pairs()) {
    uint64_t agreed = 0, predicted = 0;
    for (Space space : {Space::Global, Space::Shared}) {
      for (uint64_t s = 0; s < 8; ++s) {
        const auto d = properties::differential(pair, backend, space, seed * 100 + s, 2048, 300);
        agreed += d.agreed;
        predicted += d.predicted;
        if (!d.ok) {
          diff_ok = false;
          std::printf("differential %s vs %s (%s): MISMATCH: %s\n", pair.emulated, pair.native, to_string(space),
                      d.why.c_str());
          break;
        }
      }
    }
    std::printf("differential %-18s vs %-16s agreed on %6llu ops, differed as the specs predict on %5llu\n",
                pair.emulated, pair.native, (unsigned long long)agreed, (unsigned long long)predicted);
  }
  const bool ok = caught == counted && !false_failure && diff_ok;
  return ok ? 0 : 1;
}

}  // namespace atomstress
