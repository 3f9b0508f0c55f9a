#include "campaign.hpp"

#include <rapidcheck.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <sstream>
#include <optional>

#include "fuzz/shrink_spec.hpp"
#include "harness/pipeline/diagnose.hpp"
#include "harness/pipeline/execute_trial.hpp"
#include "harness/pipeline/run_packed.hpp"

namespace atomstress::fuzz {

std::string classed_why(const Diagnosis& d, const std::string& why) {
  std::string out = std::string(to_string(d.cls)) + ": ";
  const bool sequential = d.cls == FailureClass::Semantics || d.cls == FailureClass::ReturnValue ||
                          d.cls == FailureClass::Neighbour;
  if (sequential && !d.trace.empty())
    out += d.trace.front().starts_with("op #") ? "alone, in program order: " + d.trace.front() : d.trace.front();
  else
    out += why;
  if (!d.inference.empty()) out += " (" + d.inference + ")";
  return out;
}

namespace {
// A listener that says nothing: the campaign reports for itself, and
// RapidCheck's default listener would print its own reproduce hints.
struct QuietListener final : rc::detail::TestListener {
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};
// The packed round's generator: the campaign's entries that have a packed
// runner, in small geometries.  Null when none has.
std::optional<rc::Gen<TrialSpec>> packed_generator(const properties::GenConfig& gen, BackendKind backend) {
  if (backend != BackendKind::Cuda) return std::nullopt;
  properties::GenConfig small = gen;
  std::erase_if(small.impls, [](const Entry* e) { return e->algo != nullptr || e->run_cuda_packed == nullptr; });
  if (small.impls.empty()) return std::nullopt;
  small.max_ops = std::min(small.max_ops, kPackedMaxOps);
  small.max_grid = std::min(small.max_grid, kPackedMaxGrid);
  return properties::gen_trial_spec(small);
}

}  // namespace

uint32_t default_pack(BackendKind backend) { return backend == BackendKind::Cuda ? 2048 : 0; }

std::string load_rapidcheck_configuration() {
  // RapidCheck prints its configuration on std::cerr the first time it is
  // read: caught here, once, and handed to the caller for the log.
  std::ostringstream caught;
  std::streambuf* const old = std::cerr.rdbuf(caught.rdbuf());
  try {
    (void)rc::detail::configuration();
  } catch (...) {
    std::cerr.rdbuf(old);
    throw;
  }
  std::cerr.rdbuf(old);
  std::string text = caught.str();
  const std::string prefix = "Using configuration: ";
  if (text.rfind(prefix, 0) == 0) text = text.substr(prefix.size());
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

CampaignResult run_campaign(const CampaignConfig& cfg) {
  CampaignResult res;
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - t0).count(); };
  const auto gen = properties::gen_trial_spec(cfg.gen);
  auto stopped = [&] { return cfg.stop && cfg.stop(); };
  bool shrinking = false;
  // A bug measured by rate shrinks keeping its rate (shrink_spec.hpp).
  std::optional<RateKeeper> keeper;
  auto count = [&](const properties::Evaluation& ev, const TrialSpec& s) {
    res.runs += ev.runs;
    res.ops += ev.runs * s.ops();
    res.run_ms += ev.run_ms;
  };
  // The property: every generated spec passes.  RapidCheck calls it again
  // for each shrink candidate; the last failing call is the shrunk case.
  auto prop = [&] {
    const TrialSpec s = *gen;
    if (stopped()) return;  // a signal ended the run: the rest passes unseen, the slice is discarded
    if (shrinking && elapsed() > 3 * cfg.budget_s) return;  // stop shrinking: candidates "pass"
    // Out of budget mid-round (a slow or hanging entry): the rest of the
    // round passes unseen, so a time slice ends close to its budget.
    if (!shrinking && elapsed() > cfg.budget_s) return;
    ++res.specs;
    if (keeper) {
      const bool keeps = keeper->accepts(s);
      count(keeper->last(), s);
      if (!keeps) return;
      res.shrunk = s;
      res.why = keeper->last().why;
      RC_FAIL(res.why);
    }
    const auto ev = properties::evaluate(s, cfg.gen.backend, cfg.run, cfg.reruns);
    count(ev, s);
    if (!shrinking && cfg.on_evaluated) cfg.on_evaluated(ev.runs, ev.runs * s.ops());
    if (ev.verdict == Verdict::Pass) return;
    if (!res.found) {
      res.found = true;
      res.first = s;
      res.time_to_catch_s = elapsed();
      shrinking = true;
      // Seen to pass a rerun first (evaluate stops at a failure), or an entry measured by rate.
      const Entry* impl = find_impl(s.impl);
      if (ev.runs > ev.failures || (impl != nullptr && shrinks_by_rate(*impl))) {
        keeper.emplace(s, ev.verdict, cfg.gen.backend, cfg.run, cfg.reruns, 3 * cfg.budget_s - elapsed());
        count(keeper->last(), s);
      }
    }
    res.shrunk = s;
    res.verdict = ev.verdict;
    res.why = ev.why;
    RC_FAIL(ev.why);
  };
  const auto packed_gen = cfg.pack ? packed_generator(cfg.gen, cfg.gen.backend) : std::nullopt;
  // A packed round: its specs drawn from (seed, round), run packed; the
  // first failure is kept with its spec for shrinking.
  auto packed_round = [&](uint64_t round) {
    const uint64_t n = std::min<uint64_t>(cfg.pack, cfg.max_specs - res.specs);
    // Only specs that pack (a spread-out pattern's memory may be too large):
    // the rest of the search draws the others.
    std::vector<TrialSpec> specs;
    for (uint64_t i = 0; specs.size() < n && i < 2 * n; ++i) {
      TrialSpec s = (*packed_gen)(rc::Random(cfg.seed * 0x9e3779b97f4a7c15ull + round * 0x100000001b3ull + i)).value();
      if (packs(s, cfg.gen.backend)) specs.push_back(std::move(s));
    }
    const auto outcomes =
        execute_packed(specs, cfg.gen.backend, cfg.run, cfg.seed ^ (round * 0xd1b54a32d192ed03ull), true);
    uint64_t ran = 0, ops = 0;
    const Outcome* failure = nullptr;
    size_t failing = 0;
    for (size_t i = 0; i < outcomes.size(); ++i) {
      if (!outcomes[i]) continue;  // not run: an earlier one failed
      ++ran;
      ops += specs[i].ops();
      res.run_ms += outcomes[i]->run_ms;
      if (failure == nullptr && outcomes[i]->verdict != Verdict::Pass) {
        failure = &*outcomes[i];
        failing = i;
      }
    }
    res.specs += ran;
    res.runs += ran;
    res.ops += ops;
    if (cfg.on_evaluated) cfg.on_evaluated(ran, ops);
    if (failure == nullptr) return false;
    res.found = true;
    res.first = res.shrunk = specs[failing];
    res.verdict = failure->verdict;
    res.why = failure->why();
    res.time_to_catch_s = elapsed();
    return true;
  };
  bool found_packed = false;
  rc::detail::TestMetadata md;
  md.id = "atomstress";
  for (uint64_t round = 0; !res.found && !stopped() && elapsed() < cfg.budget_s && res.specs < cfg.max_specs;
       ++round) {
    if (packed_gen && (found_packed = packed_round(round))) break;
    if (res.specs >= cfg.max_specs) break;
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
  if (stopped()) {
    res.total_s = elapsed();
    return res;  // not shrunk nor measured: the caller discards an interrupted slice
  }
  if (found_packed && res.verdict != Verdict::Error) {
    // Found packed: shrunk from its spec (no generation history to walk),
    // each candidate run alone, and its rate measured alone.
    ShrinkConfig sc;
    sc.backend = cfg.gen.backend;
    sc.run = cfg.run;
    sc.reruns = std::max<uint32_t>(cfg.reruns, 2);
    sc.rate_runs = cfg.rate_runs;
    sc.max_seconds = std::max(2 * cfg.budget_s, 1.0);
    const reports::ShrunkCase sh = shrink_spec(res.first, res.verdict, res.why, sc);
    res.shrunk = sh.spec;
    if (!sh.why.empty()) res.why = sh.why;
    res.specs += sh.candidates;
    res.rate_failures = sh.rate_failures;
    res.rate_runs = sh.rate_runs;
    res.runs += sh.rate_runs;
    res.ops += sh.rate_runs * res.shrunk.ops();
    res.flaky = sh.rate_failures == 0;
  } else if (res.found && res.verdict != Verdict::Error) {
    // The generator's shrinking stops where its own tree does (a spec's
    // values are not all shrunk through it); then the spec itself shrinks on
    // as check shrinks a failure (shrink_spec.hpp), so that fuzz and check
    // reach the same small case.
    {
      ShrinkConfig sc;
      sc.backend = cfg.gen.backend;
      sc.run = cfg.run;
      sc.reruns = std::max<uint32_t>(cfg.reruns, 2);
      sc.rate_runs = 1;  // the rate is measured below
      sc.max_seconds = std::max(cfg.budget_s, 1.0);
      const reports::ShrunkCase more = shrink_spec(res.shrunk, res.verdict, res.why, sc);
      if (more.rate_failures > 0) {
        res.shrunk = more.spec;
        if (!more.why.empty()) res.why = more.why;
      }
      res.specs += more.candidates;
    }
    // Each measurement may take one more budget's time (at least one run):
    // a case that hangs costs its watchdog per run.
    const auto rate = properties::measure_rate(res.shrunk, cfg.gen.backend, cfg.run, cfg.rate_runs, cfg.budget_s);
    res.rate_failures = rate.failures;
    res.rate_runs = rate.runs;
    res.runs += rate.runs;
    res.ops += rate.runs * res.shrunk.ops();
    res.run_ms += rate.run_ms;
    if (rate.failures == 0) {
      const auto again = properties::measure_rate(res.first, cfg.gen.backend, cfg.run, cfg.rate_runs, cfg.budget_s);
      res.flaky = again.failures == 0;
    }
  }
  if (res.found && res.verdict != Verdict::Error) {
    // The class, and for a sequential bug the op that went wrong alone: one
    // line, as every report carries `why` (pipeline/diagnose.hpp).
    res.diagnosis = diagnose(res.shrunk, res.verdict, Finding{}, cfg.gen.backend, cfg.run);
    res.why = classed_why(res.diagnosis, res.why);
  }
  res.total_s = elapsed();
  return res;
}

}  // namespace atomstress::fuzz
