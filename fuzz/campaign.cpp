#include "campaign.hpp"

#include <rapidcheck.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <iostream>
#include <sstream>
#include <optional>
#include <vector>

#include "fuzz/round_pair.hpp"
#include "fuzz/shrink_spec.hpp"
#include "harness/pipeline/diagnose.hpp"
#include "harness/pipeline/execute_trial.hpp"
#include "harness/pipeline/isolated.hpp"
#include "harness/pipeline/run_packed.hpp"
#include "harness/pipeline/trial_threads.hpp"
#include "harness/support/busy_time.hpp"

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
  // A stressed spec never packs (its incantations are launch-wide): drawn,
  // half the specs were stressed and dropped, and the stress drawn for them.
  small.stress = false;
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

namespace {

bool stop_requested(const CampaignConfig& cfg) { return cfg.stop && cfg.stop(); }

// Seconds since the campaign began.
struct Stopwatch {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
};

// What RapidCheck's property carries from one call to the next.
struct SearchState {
  const CampaignConfig& cfg;
  CampaignResult& res;
  const Stopwatch& clock;
  bool shrinking = false;  // a failure was found: each call is a shrink candidate
  // A bug measured by rate shrinks keeping its rate (shrink_spec.hpp).
  std::optional<RateKeeper> keeper;
};

void count_runs(CampaignResult& res, const properties::Evaluation& ev, const TrialSpec& s) {
  res.runs += ev.runs;
  res.ops += ev.runs * s.ops();
  res.run_ms += ev.run_ms;
}

// Whether the property lets a spec pass unseen: a signal ended the run (the
// slice is discarded), shrinking ran out of time (candidates "pass"), or
// the search is out of budget mid-round (a slow or hanging entry: a time
// slice ends close to its budget).
bool passes_unseen(const SearchState& st) {
  if (stop_requested(st.cfg)) return true;
  if (st.shrinking && st.clock.elapsed() > 3 * st.cfg.budget_s) return true;
  return !st.shrinking && st.clock.elapsed() > st.cfg.budget_s;
}

// The first failure: the search turns to shrinking it.
void start_shrinking(SearchState& st, const TrialSpec& s, const properties::Evaluation& ev) {
  const CampaignConfig& cfg = st.cfg;
  st.res.found = true;
  st.res.first = s;
  st.res.time_to_catch_s = st.clock.elapsed();
  st.shrinking = true;
  // Seen to pass a rerun first (evaluate stops at a failure), or an entry measured by rate.
  const Entry* impl = find_impl(s.impl);
  if (ev.runs > ev.failures || (impl != nullptr && shrinks_by_rate(*impl))) {
    st.keeper.emplace(s, ev.verdict, cfg.gen.backend, cfg.run, cfg.reruns, 3 * cfg.budget_s - st.clock.elapsed());
    count_runs(st.res, st.keeper->last(), s);
  }
}

// The property: every generated spec passes.  RapidCheck calls it again
// for each shrink candidate; the last failing call is the shrunk case.
void check_spec(SearchState& st, const TrialSpec& s) {
  CampaignResult& res = st.res;
  if (passes_unseen(st)) return;
  ++res.specs;
  if (st.keeper) {
    const bool keeps = st.keeper->accepts(s);
    count_runs(res, st.keeper->last(), s);
    if (!keeps) return;
    res.shrunk = s;
    res.why = st.keeper->last().why;
    RC_FAIL(res.why);
  }
  const auto ev = properties::evaluate(s, st.cfg.gen.backend, st.cfg.run, st.cfg.reruns);
  count_runs(res, ev, s);
  if (!st.shrinking && st.cfg.on_evaluated) st.cfg.on_evaluated(ev.runs, ev.runs * s.ops());
  if (ev.verdict == Verdict::Pass) return;
  if (!res.found) start_shrinking(st, s, ev);
  res.shrunk = s;
  res.verdict = ev.verdict;
  res.why = ev.why;
  RC_FAIL(ev.why);
}

// A packed round's specs, drawn from (seed, round): only specs that pack (a
// spread-out pattern's memory may be too large, about one in ten): the rest
// of the search draws the others.
std::vector<TrialSpec> draw_packed_specs(const CampaignConfig& cfg, const rc::Gen<TrialSpec>& packed_gen,
                                         uint64_t round, uint64_t n) {
  std::vector<TrialSpec> specs;
  for (uint64_t i = 0; specs.size() < n && i < 2 * n; ++i) {
    TrialSpec s = packed_gen(rc::Random(cfg.seed * 0x9e3779b97f4a7c15ull + round * 0x100000001b3ull + i)).value();
    if (packs(s, cfg.gen.backend)) specs.push_back(std::move(s));
  }
  return specs;
}

// A packed round: its specs run packed (every kernel that ran into
// `kernels`), tallied; the first failure is kept with its spec for
// shrinking.
RoundTally run_packed_round(const CampaignConfig& cfg, const std::vector<TrialSpec>& specs, uint64_t round,
                            const Stopwatch& clock, std::vector<LaunchSpan>& kernels) {
  const auto outcomes = execute_packed(specs, cfg.gen.backend, cfg.run, cfg.seed ^ (round * 0xd1b54a32d192ed03ull),
                                       true, &kernels);
  RoundTally t;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (!outcomes[i]) continue;  // not run: an earlier one failed
    ++t.specs;
    t.ops += specs[i].ops();
    if (!t.failed && outcomes[i]->verdict != Verdict::Pass) {
      t.failed = true;
      t.first = specs[i];
      t.verdict = outcomes[i]->verdict;
      t.why = outcomes[i]->why();
    }
  }
  t.runs = t.specs;
  t.evaluated.emplace_back(t.runs, t.ops);
  t.caught_s = clock.elapsed();
  return t;
}

// Whether a round's specs run several at once (CampaignConfig::at_once).
bool runs_at_once(const CampaignConfig& cfg) { return cfg.at_once != nullptr && cfg.at_once->capacity() > 1; }

// The specs RapidCheck's round with `params` draws, in its order: the round
// run with a property that only collects them (every case passes, so the
// round draws params.maxSuccess specs at the sizes it would draw them).
// Nullopt and `error` when the generator failed.
std::optional<std::vector<TrialSpec>> draw_round_specs(const rc::Gen<TrialSpec>& gen,
                                                       const rc::detail::TestParams& params, std::string& error) {
  std::vector<TrialSpec> specs;
  rc::detail::TestMetadata md;
  md.id = "atomstress";
  QuietListener quiet;
  auto collect = [&] { specs.push_back(*gen); };
  const auto r = rc::detail::checkProperty(rc::detail::toProperty(collect), md, params, quiet);
  if (r.template is<rc::detail::Error>()) {
    error = r.template get<rc::detail::Error>().description;
    return std::nullopt;
  }
  return specs;
}

// A round at once: its specs' runs (each spec's --reruns in order, up to its
// first failure) run several at once through cfg.at_once and are reported
// in the round's order, tallied; the first failing spec is kept for
// shrinking, and the runs' kernels go to `busy`.  The budget, a signal and
// `cut_short` (the packed round beside it failed) end the round between
// specs (those already started are finished, as one after another
// finishes the spec it is on).
RoundTally run_round_at_once(const CampaignConfig& cfg, const std::vector<TrialSpec>& specs, const Stopwatch& clock,
                             BusyTime& busy, const std::atomic<bool>& cut_short) {
  std::vector<std::vector<TrialSpec>> groups;
  for (const TrialSpec& s : specs) groups.emplace_back(std::max<uint32_t>(1, cfg.reruns), s);
  properties::Evaluation ev;  // the spec being reported (its runs; their time is the round's `busy`)
  RoundTally t;
  const RunAlone alone = [&](const TrialSpec& s) { return execute_trial(s, cfg.gen.backend, cfg.run); };
  OrderedSink sink{[&](size_t, Outcome&& out) {
                     ++ev.runs;  // its time goes to `busy`
                     busy.add(out.run_end_s, out.run_ms);
                     if (out.verdict == Verdict::Pass) return;
                     ++ev.failures;
                     ev.verdict = out.verdict;
                     ev.why = out.why();
                   },
                   [&](size_t g, bool failed) {
                     ++t.specs;
                     t.runs += ev.runs;
                     t.ops += ev.runs * specs[g].ops();
                     t.evaluated.emplace_back(ev.runs, ev.runs * specs[g].ops());
                     if (failed) {
                       t.failed = true;
                       t.first = specs[g];
                       t.verdict = ev.verdict;
                       t.why = ev.why;
                       t.caught_s = clock.elapsed();
                       return false;
                     }
                     ev = {};
                     return !stop_requested(cfg) && clock.elapsed() <= cfg.budget_s && !cut_short.load();
                   }};
  sink.finish_started = true;  // what the GPU already ran is counted, not dropped
  run_ordered(groups, *cfg.at_once, alone, sink);
  return t;
}

// RapidCheck's specs a round draws (fewer where max_specs is near).
inline constexpr uint64_t kRoundSpecs = 20;

// The thread a packed round runs on beside RapidCheck's round: kept for the
// process (its worker process, started here at once, is kept with it).
TrialThreads& packed_lane(BackendKind backend) {
  static TrialThreads* lane = [backend] {
    auto* t = new TrialThreads(1);
    t->submit([backend] { prepare_isolated_worker(backend); });
    return t;
  }();
  return *lane;
}

// Waits for a job on the packed lane before the frame it refers to ends.
struct JoinLane {
  std::future<RoundTally>& job;
  ~JoinLane() {
    if (job.valid()) job.wait();
  }
};

// A round's packed half: its specs, or what draws them (draw_packed_specs,
// on the packed lane: RapidCheck's generators themselves are pure and their
// counts atomic; only its properties use process-wide state).
struct PackedHalf {
  const rc::Gen<TrialSpec>* gen = nullptr;  // null: nothing to pack
  uint64_t most = 0;                        // specs to draw (at most)
  std::vector<TrialSpec> specs;
  bool drawn = false;
};

// Round `round` with specs at once: the packed half is drawn (unless it
// was) and run on the packed lane while RapidCheck's specs run here,
// through cfg.at_once, and the halves are counted as one after the other
// (take_round).  The GPU's busy time is the union of both halves' kernels.
// Returns whether one failed.
bool run_rounds_at_once(const CampaignConfig& cfg, CampaignResult& res, PackedHalf& packed,
                        const std::vector<TrialSpec>& specs, uint64_t round, const Stopwatch& clock) {
  std::vector<LaunchSpan> packed_kernels;
  std::atomic<bool> packed_failed{false};
  std::future<RoundTally> packed_done;
  BusyTime busy;
  RoundTally rapidcheck;
  {
    JoinLane join{packed_done};
    if (packed.gen != nullptr) {
      auto job = std::make_shared<std::packaged_task<RoundTally()>>([&] {
        if (!packed.drawn) packed.specs = draw_packed_specs(cfg, *packed.gen, round, packed.most);
        RoundTally t = run_packed_round(cfg, packed.specs, round, clock, packed_kernels);
        packed_failed = t.failed;
        return t;
      });
      packed_done = job->get_future();
      packed_lane(cfg.gen.backend).submit([job] { (*job)(); });
    }
    if (!specs.empty()) rapidcheck = run_round_at_once(cfg, specs, clock, busy, packed_failed);
  }
  const RoundTally packed_tally = packed_done.valid() ? packed_done.get() : RoundTally{};
  for (const LaunchSpan& k : packed_kernels) busy.add(k.end_s, k.ms);
  res.run_ms += busy.ms();
  return take_round(res, packed_tally, rapidcheck, cfg.on_evaluated);
}

// RapidCheck's round `round`, drawing at most `most` specs.
rc::detail::TestParams round_params(const CampaignConfig& cfg, uint64_t round, uint64_t most) {
  rc::detail::TestParams params;
  params.seed = cfg.seed * 0x9e3779b97f4a7c15ull + round;
  params.maxSuccess = int(std::min<uint64_t>(kRoundSpecs, most));
  params.maxSize = 100;
  return params;
}

// The search: packed rounds (where the entries have packed runners) before
// RapidCheck's rounds, until a failure, the budget, max_specs or a signal.
// Returns whether the failure is to be shrunk from its spec alone (found
// packed, or in a round at once: no generation history to walk).
bool search(const CampaignConfig& cfg, CampaignResult& res, const Stopwatch& clock) {
  const auto gen = properties::gen_trial_spec(cfg.gen);
  SearchState st{cfg, res, clock, false, std::nullopt};
  auto prop = [&] {
    const TrialSpec s = *gen;
    check_spec(st, s);
  };
  const auto packed_gen = cfg.pack ? packed_generator(cfg.gen, cfg.gen.backend) : std::nullopt;
  rc::detail::TestMetadata md;
  md.id = "atomstress";
  for (uint64_t round = 0;
       !res.found && !stop_requested(cfg) && clock.elapsed() < cfg.budget_s && res.specs < cfg.max_specs; ++round) {
    PackedHalf packed;
    if (packed_gen) {
      packed.gen = &*packed_gen;
      packed.most = std::min<uint64_t>(cfg.pack, cfg.max_specs - res.specs);
    }
    // RapidCheck's half draws min(kRoundSpecs, what the packed half leaves
    // of max_specs).  Far from max_specs that is kRoundSpecs however many
    // the packed half draws, so with specs at once the packed half is drawn
    // beside; else here, first.
    const bool draw_beside = runs_at_once(cfg) && cfg.max_specs - res.specs - packed.most >= kRoundSpecs;
    if (packed.gen != nullptr && !draw_beside) {
      packed.specs = draw_packed_specs(cfg, *packed.gen, round, packed.most);
      packed.drawn = true;
    }
    const uint64_t left = cfg.max_specs - res.specs - (packed.drawn ? packed.specs.size() : packed.most);
    const rc::detail::TestParams params = round_params(cfg, round, left);
    std::string error;
    if (runs_at_once(cfg)) {
      const auto specs = left > 0 ? draw_round_specs(gen, params, error) : std::optional(std::vector<TrialSpec>{});
      if (specs && run_rounds_at_once(cfg, res, packed, *specs, round, clock)) return true;
      if (specs) continue;
    } else {
      std::vector<LaunchSpan> kernels;
      if (packed_gen) {
        const RoundTally tally = run_packed_round(cfg, packed.specs, round, clock, kernels);
        BusyTime busy;
        for (const LaunchSpan& k : kernels) busy.add(k.end_s, k.ms);
        res.run_ms += busy.ms();
        if (take_round(res, tally, {}, cfg.on_evaluated)) return true;
      }
      if (left == 0) break;
      QuietListener quiet;
      const auto r = rc::detail::checkProperty(rc::detail::toProperty(prop), md, params, quiet);
      if (!r.template is<rc::detail::Error>()) continue;
      error = r.template get<rc::detail::Error>().description;
    }
    res.found = true;
    res.verdict = Verdict::Error;
    res.why = error;
    break;
  }
  return false;
}

// Found packed or in a round at once: shrunk from its spec (no generation
// history to walk), each candidate run alone, and its rate measured alone.
void shrink_failure_from_spec(const CampaignConfig& cfg, CampaignResult& res) {
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
}

// The generator's shrinking stops where its own tree does (a spec's values
// are not all shrunk through it); then the spec itself shrinks on as check
// shrinks a failure (shrink_spec.hpp), so that fuzz and check reach the
// same small case.
void shrink_generated_failure_further(const CampaignConfig& cfg, CampaignResult& res) {
  ShrinkConfig sc;
  sc.backend = cfg.gen.backend;
  sc.run = cfg.run;
  sc.reruns = std::max<uint32_t>(cfg.reruns, 2);
  sc.rate_runs = 1;  // the rate is measured by measure_shrunk_rate
  sc.max_seconds = std::max(cfg.budget_s, 1.0);
  const reports::ShrunkCase more = shrink_spec(res.shrunk, res.verdict, res.why, sc);
  if (more.rate_failures > 0) {
    res.shrunk = more.spec;
    if (!more.why.empty()) res.why = more.why;
  }
  res.specs += more.candidates;
}

// Each measurement may take one more budget's time (at least one run): a
// case that hangs costs its watchdog per run.
void measure_shrunk_rate(const CampaignConfig& cfg, CampaignResult& res) {
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

}  // namespace

CampaignResult run_campaign(const CampaignConfig& cfg) {
  CampaignResult res;
  const Stopwatch clock;
  const bool from_spec = search(cfg, res, clock);
  if (stop_requested(cfg)) {
    res.total_s = clock.elapsed();
    return res;  // not shrunk nor measured: the caller discards an interrupted slice
  }
  if (from_spec && res.verdict != Verdict::Error) {
    shrink_failure_from_spec(cfg, res);
  } else if (res.found && res.verdict != Verdict::Error) {
    shrink_generated_failure_further(cfg, res);
    measure_shrunk_rate(cfg, res);
  }
  if (res.found && res.verdict != Verdict::Error) {
    // The class, and for a sequential bug the op that went wrong alone: one
    // line, as every report carries `why` (pipeline/diagnose.hpp).
    res.diagnosis = diagnose(res.shrunk, res.verdict, Finding{}, cfg.gen.backend, cfg.run);
    res.why = classed_why(res.diagnosis, res.why);
  }
  res.total_s = clock.elapsed();
  return res;
}

}  // namespace atomstress::fuzz
