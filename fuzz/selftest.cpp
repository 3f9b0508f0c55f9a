// atomstress selftest: the property campaign against every deliberately
// wrong implementation (caught or not, time to catch, shrunk case, repro
// line, mutation score; the weak-memory bugs' failure rates with and
// without stress), the same campaign over the correct catalogue (no
// false failures allowed), and the differential properties.
#include "fuzz/selftest.hpp"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "reports/terminal.hpp"

#include "campaign.hpp"
#include "fuzz/stress_rates.hpp"
#include "harness/pipeline/execute_trial.hpp"
#include "reports/repro_command.hpp"

namespace atomstress {

namespace {

reports::CampaignRecord campaign_record(const Entry& impl, const fuzz::SelftestConfig& cfg,
                                        const fuzz::CampaignResult& r) {
  return {.impl = &impl,
          .backend = cfg.backend,
          .found = r.found,
          .verdict = r.verdict,
          .why = r.why,
          .shrunk = r.shrunk,
          .knobs = cfg.run.knobs,
          .time_to_catch_s = r.time_to_catch_s,
          .specs = r.specs,
          .rate_failures = r.rate_failures,
          .rate_runs = r.rate_runs,
          .flaky = r.flaky,
          .cls = r.diagnosis.cls};
}

// The no-false-failure campaigns over the correct catalogue: false when one failed.
bool correct_catalogue_passes(const fuzz::SelftestConfig& cfg, reports::Printer& printer) {
  bool ok = true;
  for (const auto& [which, specs] : {std::pair<const char*, uint64_t>{"atomics", cfg.correct_specs},
                                     std::pair<const char*, uint64_t>{"algorithms", cfg.algo_specs}}) {
    fuzz::CampaignConfig cc;
    cc.gen = properties::default_config(cfg.backend, match_impls(which));
    cc.run = cfg.run;
    cc.budget_s = 1e9;
    cc.max_specs = specs;
    cc.reruns = 1;
    cc.seed = cfg.seed + 1000;
    const auto rc = fuzz::run_campaign(cc);
    printer.note(fmt::format(
        "correct {:<10} ({:2} entries): {} generated specs, {} ({:.1f} s)", which, cc.gen.impls.size(), rc.specs,
        rc.found ? (rc.verdict == Verdict::Error ? "ERROR (an invalid spec was generated)" : "FALSE FAILURE")
                 : "no failure",
        rc.total_s));
    if (rc.found) {
      ok = false;
      printer.note(fmt::format("      {}\n      repro: {}", rc.why,
                               reports::repro_command(encode_token(rc.shrunk, cfg.run.knobs), cfg.backend)));
    }
  }
  return ok;
}

// The differential properties, both memory spaces, with specials: false on a mismatch.
bool differentials_agree(const fuzz::SelftestConfig& cfg, reports::Printer& printer) {
  bool ok = true;
  for (const auto& pair : properties::differential_pairs()) {
    uint64_t agreed = 0, predicted = 0;
    for (Space space : {Space::Global, Space::Shared}) {
      for (uint64_t s = 0; s < 8; ++s) {
        const auto d = properties::differential(pair, cfg.backend, space, cfg.seed * 100 + s, 2048, 300);
        agreed += d.agreed;
        predicted += d.predicted;
        if (!d.ok) {
          ok = false;
          printer.note(fmt::format("differential {} vs {} ({}): MISMATCH: {}", pair.emulated, pair.native,
                                   to_string(space), d.why));
          break;
        }
      }
    }
    printer.note(fmt::format("differential {:<18} vs {:<16} agreed on {:6} ops, differed as the specs predict on {:5}",
                             pair.emulated, pair.native, agreed, predicted));
  }
  return ok;
}

}  // namespace

std::optional<std::string> fuzz::not_counted_reason(const Entry& bug, BackendKind backend) {
  if (bug.needs_gpu && backend != BackendKind::Cuda) return "needs a GPU: not counted on the cpu backend";
  // selftest's campaigns run no sanitizer: not seen here is not missed.
  if (bug.needs_sanitizer)
    return fmt::format("its bug shows only under --sanitize {}: not counted (check --impl {} --backend cuda --sanitize {})",
                       bug.needs_sanitizer, bug.name, bug.needs_sanitizer);
  return std::nullopt;
}

int fuzz::run_selftest(const fuzz::SelftestConfig& cfg, reports::Printer& printer) {
  const BackendKind backend = cfg.backend;
  const auto targets = match_impls(cfg.bugs);
  if (targets.empty()) {
    reports::print_to(stderr, "atomstress: error: no implementation matches '{}'\n", cfg.bugs);
    return 2;
  }
  printer.note(fmt::format("selftest on {}: {:.1f} s search budget per bug, {} runs per spec\n", to_string(backend),
                           cfg.budget_s, cfg.reruns));
  uint32_t caught = 0;
  std::vector<double> times;
  std::vector<fuzz::StressRate> rates;  // the weak-memory bugs' (or every bug's), with and without stress
  size_t counted = 0;
  for (const Entry* impl : targets) {
    if (const auto why = fuzz::not_counted_reason(*impl, backend)) {
      printer.record(reports::SkippedEntry{impl, backend, *why});
      continue;
    }
    if (!impl->rate_only) ++counted;
    fuzz::CampaignConfig bug_cfg;
    bug_cfg.gen = properties::default_config(backend, {impl});
    bug_cfg.run = cfg.run;
    bug_cfg.budget_s = cfg.budget_s;
    bug_cfg.reruns = cfg.reruns;
    bug_cfg.seed = cfg.seed;
    bug_cfg.pack = fuzz::default_pack(backend);
    const auto r = fuzz::run_campaign(bug_cfg);
    if (r.verdict == Verdict::Error) {
      reports::print_to(stderr, "atomstress: error: {}: {}\n", impl->name, r.why);
      return 2;
    }
    if (r.found && !impl->rate_only) {
      ++caught;
      times.push_back(r.time_to_catch_s);
    }
    printer.record(campaign_record(*impl, cfg, r));
    if (impl->rate_only || impl->weak_memory || cfg.rates_for_every_bug)
      rates.push_back(fuzz::measure_stress_rate(*impl, r.found ? std::optional<TrialSpec>(r.shrunk) : std::nullopt,
                                                backend, cfg.run, cfg.rate_runs, cfg.seed));
  }
  for (const auto& line : stress_rate_lines(rates)) printer.note(line);
  std::sort(times.begin(), times.end());
  const double median = times.empty() ? 0 : times[times.size() / 2];
  printer.note(fmt::format("\nmutation score: {}/{} caught ({:.0f}%), median time to catch {:.3f} s", caught, counted,
                           counted ? 100.0 * caught / counted : 0.0, median));
  const bool no_false_failure = correct_catalogue_passes(cfg, printer);
  const bool diff_ok = differentials_agree(cfg, printer);
  return caught == counted && no_false_failure && diff_ok ? 0 : 1;
}

}  // namespace atomstress
