// Shrinking a failing TrialSpec that was not generated: check's failures and
// `repro --shrink`.  The campaigns shrink through their generator; a spec
// given as a token has no generation history, so its candidates come from
// the spec itself: each field moved towards the value the generators shrink
// to (one block of one thread, one op, one address, global memory, zero
// initial values, no specials, seed 0), by RapidCheck's own integer shrinks,
// and the search is RapidCheck's local-minimum walk.  A candidate counts as
// failing when any of `reruns` runs fails with the same verdict (or, for a
// bug measured by rate, when it keeps the rate: RateKeeper below); the
// result is the smallest accepted case whose failure recurs in `rate_runs`
// reruns (a race that failed once in a tiny case is not what a repro line
// needs: such a case is refused for good, and the walk goes on from the
// case before it).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "properties/properties.hpp"
#include "reports/results.hpp"

namespace atomstress::fuzz {

struct ShrinkConfig {
  BackendKind backend = BackendKind::Cpu;
  RunOptions run;
  uint32_t reruns = 3;       // runs per candidate
  uint32_t rate_runs = 10;   // reruns of the result, for its failure rate
  double max_seconds = 60;   // the walk stops here (the best case so far is kept); the rate may take as long again
  bool by_rate = false;      // judge candidates by rate (RateKeeper) even for an entry shrinks_by_rate does not
                             // name: the caller saw the failing case pass a run
  bool remember_refused = true;  // a candidate refused once is not run again (shrink_spec); off: every
                                 // candidate the walk meets runs, as before (a test compares the two)
  properties::TrialRunner run_trial;  // one run of a candidate; empty: execute_trial on `backend` with `run`
};

// Rate-keeping shrinking (issue 16).  A deterministic bug (its failing case
// failed every run) shrinks as it always did: a smaller candidate replaces
// the current case when any of its reruns fails, the reruns stopping at the
// first failure.  A bug measured by rate (a weak-memory or rate-only entry,
// or a failing case seen to pass a run) would shrink that way to a case
// that fails once in ten: there a smaller candidate replaces the current
// case only when it fails at least about half as often.  Both run
// n = max(reruns, kRateShrinkReruns) times; the current case failed c of
// them (measured once at the start, then each accepted candidate's count);
// a candidate needs failures_needed(c, n) = max(1, ceil(c / 2)) failures
// with the same verdict, and its runs stop once that is out of reach.
inline constexpr uint32_t kRateShrinkReruns = 10;
uint32_t failures_needed(uint32_t current_failures, uint32_t reruns);
bool shrinks_by_rate(const Entry& impl);  // weak-memory and rate-only entries

// The rate a reported case is printed with.  One failure in ten reruns can
// be luck (a race the first failure's case shows and a smaller one hardly
// ever does): a case that failed fewer than half its `runs` reruns is
// rerun kConfirmRuns times as often again before it is printed, and its
// rate is both measurements together.  `reproduces`: it failed in the
// first measurement and, where it was rare, in the second too; a case that
// does not is not printed (the case before it is).
inline constexpr uint32_t kConfirmRuns = 3;
struct ReportedRate {
  properties::Evaluation rate;
  bool reproduces = false;
};
ReportedRate measure_reported_rate(const TrialSpec& spec, const properties::TrialRunner& run, uint32_t runs,
                                   double max_seconds);

class RateKeeper {
 public:
  using Clock = std::chrono::steady_clock;
  // Measures `failing`'s rate (its runs are last()).  No run starts more
  // than `max_seconds` from now.
  RateKeeper(const TrialSpec& failing, Verdict verdict, BackendKind backend, const RunOptions& run, uint32_t reruns,
             double max_seconds, properties::TrialRunner run_trial = {});
  // Runs `candidate`: true when it keeps the rate, and then it is the
  // current case.  False, without a run, once the deadline has passed (a
  // candidate cut by it is refused).
  bool accepts(const TrialSpec& candidate);
  // The last measurement: runs, failures, run_ms, and the first failure's why.
  const properties::Evaluation& last() const { return last_; }
  uint32_t current_failures() const { return current_; }
  // The walk went back to a case that failed `failures` times: it is the current case again.
  void resume(uint32_t failures) { current_ = failures; }
  // The failures a candidate needs now.
  uint32_t needed() const { return failures_needed(current_, reruns_); }
  uint32_t reruns() const { return reruns_; }

 private:
  // Up to reruns_ runs, stopping once `needed` failures are out of reach;
  // false when the deadline cut it short.
  bool measure(const TrialSpec& spec, uint32_t needed);
  Verdict verdict_;
  properties::TrialRunner run_trial_;
  uint32_t reruns_, current_ = 0;
  Clock::time_point deadline_;
  properties::Evaluation last_;
};


// `failing` must have failed with `verdict` (a Fail, Hang or Crash).  The
// result's knobs are left for the caller (the options it ran with).
reports::ShrunkCase shrink_spec(const TrialSpec& failing, Verdict verdict, const std::string& why, const ShrinkConfig& cfg);

}  // namespace atomstress::fuzz
