// Concurrent trials reported in plan order.  Groups of trials (check's: one
// group per entry, stopping at its first failure) run up to a runner's
// capacity at once, in plan order, and are reported in plan order, each
// group closed before the next, exactly as one trial after another would
// report them.
//
// Attribution: only a Pass is taken from a concurrent run.  A trial that
// was lost (its worker died or was killed with it in flight) or that came
// back anything but a Pass may owe that to another trial in flight beside
// it (a trap ends the whole CUDA context; a kernel that waited for the GPU
// can pass its deadline; a stray write lands in the same address space), so
// it runs again alone, with nothing else in flight, and that run's outcome
// is its verdict: every reported failure comes from a trial run alone.
// Before it runs, the group's later trials still in flight are cancelled:
// the run alone waits for them, and when it fails they are of no use (when
// it passes, each comes back and, unless a Pass, runs alone in its turn).
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "harness/pipeline/run_trial.hpp"

namespace atomstress {

// The seam: something that runs several trials at once (a worker process
// with a stream per trial, harness/pipeline/concurrent_worker.hpp; a fake in
// the tests).
class ConcurrentTrials {
 public:
  struct Ended {
    size_t ticket = 0;
    std::optional<Outcome> outcome;  // nullopt: lost, no verdict
  };
  virtual ~ConcurrentTrials() = default;
  // How many trials may be in flight at once (at least 1).
  virtual size_t capacity() const = 0;
  // Starts `spec`; `ticket` names it in what collect() returns.
  virtual void start(size_t ticket, const TrialSpec& spec) = 0;
  // Waits until at least one started trial ended and returns those that
  // did, each once.  Called only with trials in flight.  After a wake() it
  // may return none.
  virtual std::vector<Ended> collect() = 0;
  // Asks a started trial to end early (backend/trial_cancel.hpp): it still
  // comes back from collect(), with whatever outcome it ended with.
  virtual void cancel(size_t ticket) { (void)ticket; }
  // From another thread: a collect() waiting now (or the next one) returns
  // at once, with whatever ended (SharedTrials starts its clients' trials
  // between collects, shared_trials.hpp).
  virtual void wake() {}
};

// A runner seen with fewer trials in flight: `inner`'s, at most `most` of
// them (fuzz's rounds widen and narrow theirs, fuzz/at_once_ramp.hpp).
class AtMostTrials final : public ConcurrentTrials {
 public:
  AtMostTrials(ConcurrentTrials& inner, size_t most) : inner_(inner), most_(most) {}
  size_t capacity() const override { return std::max<size_t>(1, std::min(most_, inner_.capacity())); }
  void start(size_t ticket, const TrialSpec& spec) override { inner_.start(ticket, spec); }
  std::vector<Ended> collect() override { return inner_.collect(); }
  void cancel(size_t ticket) override { inner_.cancel(ticket); }

 private:
  ConcurrentTrials& inner_;
  size_t most_;
};

// Runs a trial alone (nothing else in flight): its exact verdict.
using RunAlone = std::function<Outcome(const TrialSpec&)>;

struct OrderedSink {
  // Every reported outcome, in plan order.
  std::function<void(size_t group, Outcome&&)> trial;
  // A group is closed: after its last reported trial.  When it ended in a
  // failure nothing is in flight (the caller may run trials of its own:
  // shrinking).  False stops the run: no later trial is reported.
  std::function<bool(size_t group, bool failed)> closed;
  // False after a group that passed: with this set, the groups already
  // started still run to their end and are reported (a time budget: what
  // the GPU already ran is not thrown away); no other group starts.
  bool finish_started = false;
};

// A trial that cannot keep its concurrent outcome (above).
bool needs_alone_run(const std::optional<Outcome>& ended);

// Runs every group, each up to its first trial that is not a Pass.
void run_ordered(std::span<const std::vector<TrialSpec>> groups, ConcurrentTrials& runner, const RunAlone& alone,
                 const OrderedSink& sink);

}  // namespace atomstress
