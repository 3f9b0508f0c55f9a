#include "campaign.hpp"

#include <fmt/format.h>
#include <rapidcheck.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <future>
#include <memory>
#include <mutex>
#include <iostream>
#include <map>
#include <sstream>
#include <optional>
#include <vector>

#include "fuzz/at_once_ramp.hpp"
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

bool load_rapidcheck_configuration(std::string& config, std::string& error) {
  // RapidCheck reads RC_PARAMS the first time its configuration is asked
  // for, and on a value it cannot parse prints on std::cerr and exits 1
  // (the status of "a failure found").  Parsed here first, its refusal is
  // one line of ours.
  if (const char* params = std::getenv("RC_PARAMS")) {
    try {
      (void)rc::detail::configFromString(params);
    } catch (const rc::detail::ConfigurationException& e) {
      error = fmt::format("RC_PARAMS '{}' is not a RapidCheck configuration: {}", params, e.what());
      return false;
    }
  }
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
  config = text;
  // Asked for something: the line RapidCheck would have printed, printed.
  if (std::getenv("RC_PARAMS") != nullptr) fmt::print(stderr, "Using configuration: {}\n", config);
  return true;
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

// The time of runs one after another (RapidCheck's, a shrinking's, a
// rate's): nothing overlapped, so the GPU was busy with their sum.
void count_time_alone(CampaignResult& res, double run_ms, double device_check_ms) {
  res.run_ms += run_ms;
  res.gpu_ms += run_ms + device_check_ms;
}

void count_runs(CampaignResult& res, const properties::Evaluation& ev, const TrialSpec& s) {
  res.runs += ev.runs;
  res.ops += ev.runs * s.ops();
  count_time_alone(res, ev.run_ms, ev.device_check_ms);
}

// Launches on the GPU (a packed round's kernels and its judging) into `busy`.
void add_launches(BusyTime& busy, const std::vector<LaunchSpan>& launches) {
  for (const LaunchSpan& k : launches) {
    if (k.own) busy.add_own(k.end_s, k.ms);
    else busy.add(k.end_s, k.ms);
  }
}

// A slice's busy times into its result.
void add_busy(CampaignResult& res, const BusyTime& busy) {
  res.run_ms += busy.ms();
  res.gpu_ms += busy.gpu_ms();
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
  // A property's run uses RapidCheck's process-wide state (its implicit
  // parameters): campaigns at once draw one at a time.
  static std::mutex rapidcheck_properties;
  std::lock_guard lock(rapidcheck_properties);
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
// shrinking, and the runs' kernels go to `busy`.  `runner`: cfg.at_once, at
// the round's width.  The budget, a signal and
// `cut_short` (a packed round up to this one failed) end the round between
// specs (those already started are finished, as one after another
// finishes the spec it is on).
RoundTally run_round_at_once(const CampaignConfig& cfg, ConcurrentTrials& runner, const std::vector<TrialSpec>& specs,
                             const Stopwatch& clock, BusyTime& busy, const std::function<bool()>& cut_short) {
  std::vector<std::vector<TrialSpec>> groups;
  for (const TrialSpec& s : specs) groups.emplace_back(std::max<uint32_t>(1, cfg.reruns), s);
  properties::Evaluation ev;  // the spec being reported (its runs; their time is the round's `busy`)
  RoundTally t;
  const RunAlone alone = [&](const TrialSpec& s) {
    GpuTurns::Alone hold(cfg.turns);
    return execute_trial(s, cfg.gen.backend, cfg.run);
  };
  OrderedSink sink{[&](size_t, Outcome&& out) {
                     ++ev.runs;  // its time goes to `busy`
                     busy.add(out.run_end_s, out.run_ms);
                     busy.add_own(out.device_check_end_s, out.device_check_ms);
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
                     return !stop_requested(cfg) && clock.elapsed() <= cfg.budget_s && !cut_short();
                   }};
  sink.finish_started = true;  // what the GPU already ran is counted, not dropped
  run_ordered(groups, runner, alone, sink);
  return t;
}

// RapidCheck's specs a round draws (fewer where max_specs is near).
inline constexpr uint64_t kRoundSpecs = 20;

// The thread the packed rounds run on beside RapidCheck's rounds, one for
// each campaign at once (CampaignConfig::packed_lane): kept for the process
// (its worker process, started here at once, is kept with it).
TrialThreads& packed_lane(BackendKind backend, unsigned index) {
  static std::mutex mu;
  static std::map<unsigned, TrialThreads*> lanes;
  std::lock_guard lock(mu);
  TrialThreads*& lane = lanes[index];
  if (lane == nullptr) {
    lane = new TrialThreads(1);
    lane->submit([backend] { prepare_isolated_worker(backend); });
  }
  return *lane;
}

// Packed rounds 0, 1, 2, ... in order on the packed lane, each drawn there
// (draw_packed_specs: RapidCheck's generators themselves are pure and their
// counts atomic; only its properties use process-wide state) and run
// packed, while RapidCheck's rounds run on the campaign's thread.  The lane
// starts a round only once allowed to (RapidCheck's side keeps it at most
// kPackedAhead rounds ahead of its own), and not after the budget, a
// signal, its own failure or finish().
class PackedRounds {
 public:
  PackedRounds(const CampaignConfig& cfg, const rc::Gen<TrialSpec>& gen, const Stopwatch& clock)
      : cfg_(cfg), gen_(gen), clock_(clock) {
    auto job = std::make_shared<std::packaged_task<void()>>([this] { run(); });
    done_ = job->get_future();
    packed_lane(cfg.gen.backend, cfg.packed_lane).submit([job] { (*job)(); });
  }
  PackedRounds(const PackedRounds&) = delete;
  PackedRounds& operator=(const PackedRounds&) = delete;
  ~PackedRounds() { finish(0); }
  // Rounds up to `round` may start, each drawing at most `most` specs.
  void allow(uint64_t round, uint64_t most) {
    std::lock_guard lock(mu_);
    if (finishing_) return;
    allowed_ = std::max(allowed_, round + 1);
    most_ = most;
    changed_.notify_all();
  }
  // No round after `last` starts; waits for the lane to stop.
  void finish(uint64_t last) {
    {
      std::lock_guard lock(mu_);
      finishing_ = true;
      allowed_ = std::min(allowed_, last + 1);
      changed_.notify_all();
    }
    if (done_.valid()) done_.wait();
  }
  // Waits until round `round` has ended or will not run.
  void wait_for(uint64_t round) {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [&] { return ended_ > round || stopped_; });
  }
  // The first round that failed (none: UINT64_MAX).
  uint64_t failed_round() const { return failed_round_.load(); }
  // The rounds that ended since the last call, into the ledger.
  void hand_over(RoundLedger& ledger) {
    std::lock_guard lock(mu_);
    for (auto& [round, t] : ended_rounds_) ledger.packed_done(round, std::move(t));
    ended_rounds_.clear();
  }
  // Every kernel the rounds ran (after finish()).
  const std::vector<LaunchSpan>& kernels() const { return kernels_; }

 private:
  void run() {
    for (uint64_t round = 0;; ++round) {
      uint64_t most = 0;
      {
        std::unique_lock lock(mu_);
        changed_.wait(lock, [&] { return allowed_ > round || finishing_; });
        if (allowed_ <= round) break;
        most = most_;
      }
      if (stop_requested(cfg_) || clock_.elapsed() >= cfg_.budget_s) break;
      const auto specs = draw_packed_specs(cfg_, gen_, round, most);
      RoundTally t;
      {
        GpuTurns::Share share(cfg_.turns);  // beside the other campaign's trials, not its runs alone
        t = run_packed_round(cfg_, specs, round, clock_, kernels_);
      }
      const bool failed = t.failed;
      std::lock_guard lock(mu_);
      ended_rounds_.emplace_back(round, std::move(t));
      ended_ = round + 1;
      changed_.notify_all();
      if (failed) {
        failed_round_ = round;
        break;
      }
    }
    std::lock_guard lock(mu_);
    stopped_ = true;
    changed_.notify_all();
  }

  const CampaignConfig& cfg_;
  const rc::Gen<TrialSpec>& gen_;
  const Stopwatch& clock_;
  std::mutex mu_;
  std::condition_variable changed_;
  uint64_t allowed_ = 0, ended_ = 0, most_ = 0;
  bool finishing_ = false, stopped_ = false;
  std::vector<std::pair<uint64_t, RoundTally>> ended_rounds_;
  std::atomic<uint64_t> failed_round_{UINT64_MAX};
  std::vector<LaunchSpan> kernels_;  // the lane's alone until it stops
  std::future<void> done_;
};

// How many rounds the packed lane may run ahead of RapidCheck's: one, so
// that a pack's host work overlaps the next round's larger specs; more
// would only queue packs behind a GPU already kept busy.
inline constexpr uint64_t kPackedAhead = 1;

// RapidCheck's round `round`, drawing at most `most` specs.
rc::detail::TestParams round_params(const CampaignConfig& cfg, uint64_t round, uint64_t most) {
  rc::detail::TestParams params;
  params.seed = cfg.seed * 0x9e3779b97f4a7c15ull + round;
  params.maxSuccess = int(std::min<uint64_t>(kRoundSpecs, most));
  params.maxSize = 100;
  return params;
}

// An error of the generator ends the search as the campaign's verdict.
void generator_failed(CampaignResult& res, const std::string& error) {
  res.found = true;
  res.verdict = Verdict::Error;
  res.why = error;
}

// The search with specs at once: RapidCheck's rounds here, each run through
// cfg.at_once, and the packed rounds (if any) on the packed lane, neither
// waiting for the other, counted in the order of one after the other
// (RoundLedger).  Where max_specs is set, a packed round ends before
// RapidCheck's round of the same number is drawn: how many the packed
// round drew decides how many RapidCheck's draws.  The GPU's busy time is
// the union of all their kernels.  Returns whether a failure was found.
bool search_at_once(const CampaignConfig& cfg, CampaignResult& res, const Stopwatch& clock,
                    const rc::Gen<TrialSpec>& gen, const std::optional<rc::Gen<TrialSpec>>& packed_gen) {
  const bool lockstep = cfg.max_specs != CampaignConfig{}.max_specs;
  std::optional<PackedRounds> packed;
  if (packed_gen) packed.emplace(cfg, *packed_gen, clock);
  RoundLedger ledger(packed.has_value());
  auto packed_failed_by = [&](uint64_t round) { return packed && packed->failed_round() <= round; };
  BusyTime busy;
  const size_t capacity = cfg.at_once->capacity();
  AtOnceRamp ramp(cfg.at_once_from != 0 ? cfg.at_once_from : capacity, capacity, cfg.at_once_start);
  std::string error;
  uint64_t round = 0;
  for (;; ++round) {
    uint64_t left = cfg.max_specs - res.specs - ledger.pending_specs();
    if (left == 0 || stop_requested(cfg) || clock.elapsed() >= cfg.budget_s || packed_failed_by(round)) break;
    if (packed) {
      packed->allow(lockstep ? round : round + kPackedAhead, std::min<uint64_t>(cfg.pack, left));
      if (lockstep) {
        packed->wait_for(round);
        packed->hand_over(ledger);
        left = cfg.max_specs - res.specs - ledger.pending_specs();
        if (left == 0 || packed_failed_by(round)) break;
      }
    }
    const auto specs = draw_round_specs(gen, round_params(cfg, round, left), error);
    if (!specs) break;
    AtMostTrials runner(*cfg.at_once, ramp.width());
    BusyTime round_busy;
    const double round_start_s = steady_seconds();
    RoundTally t = run_round_at_once(cfg, runner, *specs, clock, round_busy, [&] { return packed_failed_by(round); });
    ramp.after_round(1000 * (steady_seconds() - round_start_s), round_busy.gpu_ms());
    busy.add_all(round_busy);
    const bool failed = t.failed;
    ledger.rapidcheck_done(round, std::move(t));
    if (packed) packed->hand_over(ledger);
    if (ledger.take_ready(res, cfg.on_evaluated) || failed) break;
  }
  if (packed) {
    packed->finish(round);  // the rounds up to RapidCheck's last, that one after another would have run
    packed->hand_over(ledger);
    add_launches(busy, packed->kernels());
  }
  add_busy(res, busy);
  res.search_busy.add_all(busy);
  res.widest_at_once = ramp.widest();
  res.next_at_once = ramp.width();
  if (!error.empty()) {
    generator_failed(res, error);
    return false;
  }
  return ledger.take_rest(res, cfg.on_evaluated);
}

// The search one spec after another: each packed round (where the entries
// have packed runners) before RapidCheck's round of the same number.
// Returns whether the failure was found packed (to be shrunk from its spec
// alone: no generation history to walk).
bool search_one_after_another(const CampaignConfig& cfg, CampaignResult& res, const Stopwatch& clock,
                              const rc::Gen<TrialSpec>& gen, const std::optional<rc::Gen<TrialSpec>>& packed_gen) {
  SearchState st{cfg, res, clock, false, std::nullopt};
  auto prop = [&] {
    const TrialSpec s = *gen;
    check_spec(st, s);
  };
  rc::detail::TestMetadata md;
  md.id = "atomstress";
  for (uint64_t round = 0;
       !res.found && !stop_requested(cfg) && clock.elapsed() < cfg.budget_s && res.specs < cfg.max_specs; ++round) {
    std::vector<TrialSpec> packed_specs;
    if (packed_gen) {
      packed_specs = draw_packed_specs(cfg, *packed_gen, round, std::min<uint64_t>(cfg.pack, cfg.max_specs - res.specs));
      std::vector<LaunchSpan> kernels;
      const RoundTally tally = run_packed_round(cfg, packed_specs, round, clock, kernels);
      BusyTime busy;
      add_launches(busy, kernels);
      add_busy(res, busy);
      if (take_round(res, tally, {}, cfg.on_evaluated)) return true;
    }
    const uint64_t left = cfg.max_specs - res.specs;
    if (left == 0) break;
    QuietListener quiet;
    const auto r = rc::detail::checkProperty(rc::detail::toProperty(prop), md, round_params(cfg, round, left), quiet);
    if (!r.template is<rc::detail::Error>()) continue;
    generator_failed(res, r.template get<rc::detail::Error>().description);
    break;
  }
  return false;
}

// The search: packed rounds (where the entries have packed runners) and
// RapidCheck's rounds, until a failure, the budget, max_specs or a signal.
// Returns whether the failure is to be shrunk from its spec alone (found
// packed, or in a round at once: no generation history to walk).
bool search(const CampaignConfig& cfg, CampaignResult& res, const Stopwatch& clock) {
  const auto gen = properties::gen_trial_spec(cfg.gen);
  const auto packed_gen = cfg.pack ? packed_generator(cfg.gen, cfg.gen.backend) : std::nullopt;
  if (runs_at_once(cfg)) return search_at_once(cfg, res, clock, gen, packed_gen);
  return search_one_after_another(cfg, res, clock, gen, packed_gen);
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
  count_time_alone(res, sh.run_ms, sh.device_check_ms);  // as RapidCheck's shrinking counts its runs' (count_runs)
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
  count_time_alone(res, more.run_ms, more.device_check_ms);
}

// Each measurement may take one more budget's time (at least one run): a
// case that hangs costs its watchdog per run.
// A shrunk case that does not reproduce (measure_reported_rate) is not
// reported: the first failure is, with its own rate.  Flaky: the reported
// case did not fail again in its rate's reruns (as for a failure shrunk
// from its spec).
void measure_shrunk_rate(const CampaignConfig& cfg, CampaignResult& res) {
  const properties::TrialRunner run = properties::runner_on(cfg.gen.backend, cfg.run);
  auto measure = [&](const TrialSpec& spec) {
    const ReportedRate r = measure_reported_rate(spec, run, cfg.rate_runs, cfg.budget_s);
    res.runs += r.rate.runs;
    res.ops += r.rate.runs * spec.ops();
    count_time_alone(res, r.rate.run_ms, r.rate.device_check_ms);
    return r;
  };
  ReportedRate r = measure(res.shrunk);
  if (!r.reproduces && !(res.shrunk == res.first)) {
    const ReportedRate first = measure(res.first);
    if (first.rate.failures > 0) {
      res.shrunk = res.first;
      r = first;
    }
  }
  res.rate_failures = r.rate.failures;
  res.rate_runs = r.rate.runs;
  res.flaky = r.rate.failures == 0;
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
  // What follows runs alone, with every other campaign's trials held back.
  std::optional<GpuTurns::Alone> alone;
  if (res.found && res.verdict != Verdict::Error) alone.emplace(cfg.turns);
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
    // A second bug the diagnosis met is reported with its own case and token.
    if (const auto& other = res.diagnosis.distinct)
      res.why += fmt::format("; also, a distinct failure [{}]: {} (repro {})", to_string(other->cls), other->why,
                             encode_token(other->spec, cfg.run.knobs));
  }
  res.total_s = clock.elapsed();
  return res;
}

}  // namespace atomstress::fuzz
