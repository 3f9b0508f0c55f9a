#include "campaign.hpp"

#include <rapidcheck.h>

#include <chrono>

namespace atomstress::fuzz {

namespace {
// A listener that says nothing: the campaign reports for itself, and
// RapidCheck's default listener would print its own reproduce hints.
struct QuietListener final : rc::detail::TestListener {
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};
}  // namespace

CampaignResult run_campaign(const CampaignConfig& cfg) {
  CampaignResult res;
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - t0).count(); };
  const auto gen = properties::gen_trial_spec(cfg.gen);
  bool shrinking = false;
  // The property: every generated spec passes.  RapidCheck calls it again
  // for each shrink candidate; the last failing call is the shrunk case.
  auto prop = [&] {
    const TrialSpec s = *gen;
    if (shrinking && elapsed() > 3 * cfg.budget_s) return;  // stop shrinking: candidates "pass"
    // Out of budget mid-round (a slow or hanging entry): the rest of the
    // round passes unseen, so a time slice ends close to its budget.
    if (!shrinking && elapsed() > cfg.budget_s) return;
    ++res.specs;
    const auto ev = properties::evaluate(s, cfg.gen.backend, cfg.run, cfg.reruns);
    res.runs += ev.runs;
    res.ops += ev.runs * s.ops();
    if (!shrinking && cfg.on_evaluated) cfg.on_evaluated(ev.runs, ev.runs * s.ops());
    if (ev.verdict == Verdict::Pass) return;
    if (!res.found) {
      res.found = true;
      res.first = s;
      res.time_to_catch_s = elapsed();
      shrinking = true;
    }
    res.shrunk = s;
    res.verdict = ev.verdict;
    res.why = ev.why;
    RC_FAIL(ev.why);
  };
  rc::detail::TestMetadata md;
  md.id = "atomstress";
  for (uint64_t round = 0; !res.found && elapsed() < cfg.budget_s && res.specs < cfg.max_specs; ++round) {
    rc::detail::TestParams params;
    params.seed = cfg.seed * 0x9e3779b97f4a7c15ull + round;
    params.maxSuccess = int(std::min<uint64_t>(20, cfg.max_specs - res.specs));
    params.maxSize = 100;
    QuietListener quiet;
    const auto r = rc::detail::checkProperty(rc::detail::toProperty(prop), md, params, quiet);
    if (r.template is<rc::detail::Error>()) {
      res.found = true;
      res.verdict = Verdict::Error;
      res.why = r.template get<rc::detail::Error>().description;
      break;
    }
  }
  if (res.found && res.verdict != Verdict::Error) {
    // Each measurement may take one more budget's time (at least one run):
    // a case that hangs costs its watchdog per run.
    const auto rate = properties::measure_rate(res.shrunk, cfg.gen.backend, cfg.run, cfg.rate_runs, cfg.budget_s);
    res.rate_failures = rate.failures;
    res.rate_runs = rate.runs;
    res.runs += rate.runs;
    res.ops += rate.runs * res.shrunk.ops();
    if (rate.failures == 0) {
      const auto again = properties::measure_rate(res.first, cfg.gen.backend, cfg.run, cfg.rate_runs, cfg.budget_s);
      res.flaky = again.failures == 0;
    }
  }
  res.total_s = elapsed();
  return res;
}

}  // namespace atomstress::fuzz
