// Reports made in plan order while slow conclusions run in the background.
//
// check concludes a failing entry by shrinking it and diagnosing the shrunk
// case: trials of its own, which used to hold every later entry's trials
// back (examples/byo's crash: a lost CUDA context per shrink step, one after
// another).  Here a conclusion's work runs on a kept thread beside the
// caller's (each such thread runs isolated trials in its own worker process:
// isolated.cpp), while the caller goes on with the later entries; every
// report (a trial line, an entry's summary) is still made on the caller's
// thread, in the order it was given, so the reports come out in the order
// and with the content of a run that concluded each entry before the next.
#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <memory>

#include "harness/pipeline/trial_threads.hpp"

namespace atomstress {

class InOrderReports {
 public:
  using Report = std::function<void()>;
  // `background` conclusions work at once (0: each on the caller's thread,
  // when it is given).
  explicit InOrderReports(size_t background);
  InOrderReports(const InOrderReports&) = delete;
  InOrderReports& operator=(const InOrderReports&) = delete;
  // Waits for the conclusions at work; makes no report (the reports may
  // refer to what is gone by then: call finish()).
  ~InOrderReports() = default;

  // A report ready now: made at once when nothing given before it waits.
  void report(Report make);
  // `work` (in the background when `beside` and there is one; else now, on
  // the caller's thread), then `make` in its place in the order.
  void conclude(std::function<void()> work, Report make, bool beside = true);
  // Makes the reports whose turn came (their conclusions done).
  void flush();
  // Waits for every conclusion and makes every report.
  void finish();
  // Conclusions given and not yet done.
  size_t working() const;

 private:
  struct Queued {
    std::shared_future<void> done;  // invalid: ready
    Report make;
  };
  std::deque<Queued> queue_;
  std::unique_ptr<TrialThreads> threads_;
  std::shared_ptr<std::atomic<size_t>> working_;
};

}  // namespace atomstress
