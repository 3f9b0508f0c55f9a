#include "fuzz/shrink_spec.hpp"

#include <rapidcheck.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "harness/registry/registry.hpp"
#include "harness/trial/token.hpp"
#include "harness/trial/validate.hpp"

namespace atomstress::fuzz {

namespace {

// The spec with field f moved towards target (RapidCheck's integer shrinks:
// the target first, then halving the distance).
rc::Seq<TrialSpec> towards_field(const TrialSpec& s, uint32_t TrialSpec::*f, uint32_t target) {
  return rc::seq::map(rc::shrink::towards<uint32_t>(s.*f, target), [s, f](uint32_t v) {
    TrialSpec c = s;
    c.*f = v;
    return c;
  });
}

rc::Seq<TrialSpec> towards_stress_field(const TrialSpec& s, uint32_t Stress::*f, uint32_t target) {
  return rc::seq::map(rc::shrink::towards<uint32_t>(s.stress.*f, target), [s, f](uint32_t v) {
    TrialSpec c = s;
    c.stress.*f = v;
    return c;
  });
}

// The one spec `set` makes of s.
template <class Set>
rc::Seq<TrialSpec> with(const TrialSpec& s, Set set) {
  TrialSpec c = s;
  set(c);
  return rc::seq::just(c);
}

// Stress first: off altogether, then each incantation off or smaller, so a
// shrunk case keeps only the stress its failure needs.
rc::Seq<TrialSpec> stress_candidates(const TrialSpec& s) {
  const Stress& st = s.stress;
  return rc::seq::concat(
      st != Stress{} ? with(s, [](TrialSpec& c) { c.stress = Stress{}; }) : rc::Seq<TrialSpec>(),
      towards_stress_field(s, &Stress::blocks, 0), towards_stress_field(s, &Stress::barrier_us, 0),
      st.shuffle ? with(s, [](TrialSpec& c) { c.stress.shuffle = false; }) : rc::Seq<TrialSpec>(),
      st.bank_conflicts ? with(s, [](TrialSpec& c) { c.stress.bank_conflicts = false; }) : rc::Seq<TrialSpec>(),
      st.blocks ? towards_stress_field(s, &Stress::lines, 1) : rc::Seq<TrialSpec>(),
      st.blocks ? towards_stress_field(s, &Stress::stride, 1) : rc::Seq<TrialSpec>(),
      st.blocks ? towards_stress_field(s, &Stress::mem_permille, 0) : rc::Seq<TrialSpec>());
}

// The spec's own fields, one at a time, each towards its target.
rc::Seq<TrialSpec> field_candidates(const TrialSpec& s) {
  return rc::seq::concat(
      towards_field(s, &TrialSpec::grid, 1), towards_field(s, &TrialSpec::block, 1),
      towards_field(s, &TrialSpec::ops_per_thread, 1), towards_field(s, &TrialSpec::k, 1),
      s.pattern != Pattern::Single ? with(s, [](TrialSpec& c) { c.pattern = Pattern::Single; }) : rc::Seq<TrialSpec>(),
      s.space != Space::Global ? with(s, [](TrialSpec& c) { c.space = Space::Global; }) : rc::Seq<TrialSpec>(),
      towards_field(s, &TrialSpec::special_permille, 0),
      s.init != Init::Zero ? with(s, [](TrialSpec& c) { c.init = Init::Zero; }) : rc::Seq<TrialSpec>(),
      s.dist != Dist::Small ? with(s, [](TrialSpec& c) { c.dist = Dist::Small; }) : rc::Seq<TrialSpec>(),
      towards_field(s, &TrialSpec::zipf_s, 1),
      s.seed != 0 ? rc::seq::map(rc::shrink::towards<uint64_t>(s.seed, 0),
                                 [s](uint64_t v) {
                                   TrialSpec c = s;
                                   c.seed = v;
                                   return c;
                                 })
                  : rc::Seq<TrialSpec>());
}

// First, one op (and one op each of two threads) on one word, small
// values, with a few other seeds, specials as they are or at half, memory
// as it is or random (one thread first: its failure replays every time): a failure
// pinned to one op of a long case by its seed (a NaN at op #480) is found
// in one op this way, so that a case shrinks as far from a fuzz campaign's
// start as from check's.
std::vector<TrialSpec> tiny_candidates(const TrialSpec& s) {
  std::vector<TrialSpec> tiny;
  if (s.ops() > 1)
    for (uint32_t threads : {1u, 2u})
      for (Init init : {s.init, Init::Random})
        for (uint32_t special : {s.special_permille, s.special_permille ? 500u : 0u})
          for (uint64_t seed = 0; seed < 16; ++seed) {
          TrialSpec c = s;
          c.grid = 1;
          c.block = threads;
          c.ops_per_thread = 1;
          c.pattern = Pattern::Single;
          c.k = 1;
          c.dist = Dist::Small;
          c.init = init;
          c.special_permille = special;
          c.seed = seed;
          if (c.ops() < s.ops() && std::find(tiny.begin(), tiny.end(), c) == tiny.end()) tiny.push_back(c);
        }
  return tiny;
}

// Only the fields that make a case smaller: the launch (grid, block, ops
// per thread) and its stress.
rc::Seq<TrialSpec> size_candidates(const TrialSpec& s) {
  return rc::seq::concat(stress_candidates(s), towards_field(s, &TrialSpec::grid, 1),
                         towards_field(s, &TrialSpec::block, 1), towards_field(s, &TrialSpec::ops_per_thread, 1));
}

// Candidates one field at a time, each towards its target, after the tiny
// ones, made valid for the entry and never larger than the spec they come
// from.  `size_only`: the fields that make the case smaller, none of those
// that only make it plainer (values, addresses, seed).
rc::Seq<TrialSpec> candidates(const TrialSpec& s, const Constraints& limits, bool size_only) {
  rc::Seq<TrialSpec> all =
      size_only ? size_candidates(s) : rc::seq::concat(stress_candidates(s), field_candidates(s));
  all = rc::seq::concat(rc::seq::fromContainer(tiny_candidates(s)), std::move(all));
  const uint64_t max_ops = s.ops();
  return rc::seq::filter(rc::seq::map(std::move(all),
                                      [limits, max_ops](TrialSpec c) {
                                        normalise(c, limits, max_ops);
                                        return c;
                                      }),
                         [s, limits](const TrialSpec& c) {
                           std::string ignored;
                           return c != s && c.ops() <= s.ops() && validate(c, limits, ignored);
                         });
}

// Candidates refused once in a walk.  Each accepted step offers its tiny
// candidates again (the same specs while the case's values and specials
// stay), and a walk meets other specs twice too: a spec met again is
// refused without a run while it would need as many failures as it missed
// (by rate, a case that fails less often asks less of its candidates).  A
// deterministic bug shrinks to the same case, with fewer runs.
class RefusedCandidates {
 public:
  explicit RefusedCandidates(bool remember) : remember_(remember) {}
  bool before(const std::string& key, uint32_t needed) const {
    const auto it = needed_.find(key);
    return it != needed_.end() && (it->second == kForbidden || (remember_ && needed >= it->second));
  }
  void add(std::string key, uint32_t needed) { needed_[std::move(key)] = needed; }
  // Accepted once, then no failure in the rate's reruns: never again (remembered or not).
  void forbid(std::string key) { needed_[std::move(key)] = kForbidden; }

 private:
  static constexpr uint32_t kForbidden = 0;  // a candidate always needs at least one failure
  bool remember_;
  std::unordered_map<std::string, uint32_t> needed_;  // token -> the failures it needed and did not show
};

// One case of the walk's path: its spec, its failure, and (by rate) how
// often it failed when accepted.
struct PathCase {
  TrialSpec spec;
  std::string why;
  uint32_t failures = 1;
};

}  // namespace

uint32_t failures_needed(uint32_t current_failures, uint32_t reruns) {
  return std::max<uint32_t>(1, (std::min(current_failures, reruns) + 1) / 2);
}

bool shrinks_by_rate(const Entry& impl) { return impl.weak_memory || impl.rate_only; }

RateKeeper::RateKeeper(const TrialSpec& failing, Verdict verdict, BackendKind backend, const RunOptions& run,
                       uint32_t reruns, double max_seconds, properties::TrialRunner run_trial)
    : verdict_(verdict),
      run_trial_(run_trial ? std::move(run_trial) : properties::runner_on(backend, run)),
      reruns_(std::max(reruns, kRateShrinkReruns)),
      deadline_(Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(max_seconds))) {
  measure(failing, 0);
  current_ = last_.failures;
}

bool RateKeeper::measure(const TrialSpec& spec, uint32_t needed) {
  last_ = {};
  for (uint32_t r = 0; r < reruns_ && last_.failures + (reruns_ - r) >= needed; ++r) {
    if (Clock::now() > deadline_) return false;
    const Outcome t = run_trial_(spec);
    ++last_.runs;
    last_.run_ms += t.run_ms;
    last_.device_check_ms += t.device_check_ms;
    if (t.verdict != verdict_) continue;
    if (last_.failures++ == 0) {
      last_.verdict = t.verdict;
      last_.why = t.why();
    }
  }
  return true;
}

bool RateKeeper::accepts(const TrialSpec& candidate) {
  const uint32_t needed = this->needed();
  if (!measure(candidate, needed) || last_.failures < needed) return false;
  current_ = last_.failures;
  return true;
}

ReportedRate measure_reported_rate(const TrialSpec& spec, const properties::TrialRunner& run, uint32_t runs,
                                   double max_seconds) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  ReportedRate r;
  r.rate = properties::measure_rate(spec, run, runs, max_seconds);
  r.reproduces = r.rate.failures > 0;
  if (!r.reproduces || 2 * r.rate.failures >= r.rate.runs) return r;
  const double left = max_seconds - std::chrono::duration<double>(clock::now() - t0).count();
  const auto again = properties::measure_rate(spec, run, kConfirmRuns * runs, std::max(left, 1.0));
  r.rate.runs += again.runs;
  r.rate.failures += again.failures;
  r.rate.run_ms += again.run_ms;
  r.rate.device_check_ms += again.device_check_ms;
  r.reproduces = again.failures > 0;
  return r;
}

namespace {

// Runs' time into the shrinking's: the code under test's and the device's
// checking of them.
void add_time(reports::ShrunkCase& res, const properties::Evaluation& ev) {
  res.run_ms += ev.run_ms;
  res.device_check_ms += ev.device_check_ms;
}

}  // namespace

reports::ShrunkCase shrink_spec(const TrialSpec& failing, Verdict verdict, const std::string& why, const ShrinkConfig& cfg) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - t0).count(); };
  const properties::TrialRunner run_trial = cfg.run_trial ? cfg.run_trial : properties::runner_on(cfg.backend, cfg.run);
  reports::ShrunkCase res;
  res.spec = failing;
  res.why = why;
  const Entry* impl = find_impl(failing.impl);
  if (impl == nullptr) {
    const auto rate = properties::measure_rate(res.spec, run_trial, cfg.rate_runs, cfg.max_seconds);
    res.rate_failures = rate.failures;
    res.rate_runs = rate.runs;
    add_time(res, rate);
    res.seconds = elapsed();
    return res;
  }
  const Constraints limits = impl->limits;
  // Every failing run of a crash costs its worker (on the GPU, the CUDA
  // context: 0.2 to 0.4 s), and each accepted candidate is one: a crash
  // shrinks in size only (the tiny candidates first, then the launch and
  // its stress), not towards plainer values or seed, which would cost a
  // lost context per step and leave a case no smaller.
  const bool size_only = verdict == Verdict::Crash;
  std::optional<RateKeeper> keeper;
  if (cfg.by_rate || shrinks_by_rate(*impl))
    keeper.emplace(failing, verdict, cfg.backend, cfg.run, cfg.reruns, cfg.max_seconds, run_trial);
  if (keeper) add_time(res, keeper->last());  // its first measurement
  // Fails the same way: a smaller case that fails differently (a hang
  // where a wrong value was) explains another bug.
  std::vector<PathCase> path{{failing, why, keeper ? keeper->current_failures() : 1}};
  RefusedCandidates refused(cfg.remember_refused);
  auto still_fails = [&](const TrialSpec& c) {
    if (elapsed() > cfg.max_seconds) {
      res.timed_out = true;
      return false;
    }
    const uint32_t needed = keeper ? keeper->needed() : 1;
    std::string key = encode_token(c, cfg.run.knobs);
    if (refused.before(key, needed)) {
      ++res.repeats_skipped;
      return false;
    }
    ++res.candidates;
    const auto ev = keeper ? std::optional<properties::Evaluation>() : properties::evaluate(c, run_trial, cfg.reruns);
    const bool accepted = keeper ? keeper->accepts(c) : ev->verdict == verdict;
    add_time(res, keeper ? keeper->last() : *ev);
    if (!accepted) {
      refused.add(std::move(key), needed);
      return false;
    }
    path.push_back({c, keeper ? keeper->last().why : ev->why, keeper ? keeper->current_failures() : 1});
    return true;
  };
  // A race can fail once in a small case and then hardly ever: the case
  // printed must fail again in its rate's reruns, so that it replays.  A
  // walk's last case that does not is refused for good, and the walk goes
  // on from the case before it (the first failure itself is the last resort).
  for (;;) {
    const auto tree = rc::shrinkable::shrinkRecur(
        path.back().spec, [limits, size_only](const TrialSpec& s) { return candidates(s, limits, size_only); });
    rc::shrinkable::findLocalMin(tree, still_fails);
    const ReportedRate reported =
        measure_reported_rate(path.back().spec, run_trial, cfg.rate_runs, std::max(1.0, cfg.max_seconds - elapsed()));
    res.spec = path.back().spec;
    res.why = path.back().why;
    res.rate_failures = reported.rate.failures;
    res.rate_runs = reported.rate.runs;
    add_time(res, reported.rate);
    if (reported.reproduces || path.size() == 1 || elapsed() > 2 * cfg.max_seconds) break;
    refused.forbid(encode_token(path.back().spec, cfg.run.knobs));
    path.pop_back();
    if (keeper) keeper->resume(path.back().failures);
  }
  res.steps = path.size() - 1;
  res.seconds = elapsed();
  return res;
}

}  // namespace atomstress::fuzz
