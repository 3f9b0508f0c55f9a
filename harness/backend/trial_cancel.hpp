// A trial its supervisor no longer needs can be stopped early.  `check
// --jobs` runs an entry's trials at once; when one fails, the entry's later
// trials still in flight have no use (an entry reports its first failure),
// yet the failing trial must wait for them before it runs again alone, and
// a loop that never ends runs to its watchdog: the float-compare loop of
// examples/byo cost 0.75 s of waiting that way.  A cancel sets the trial's
// abort flag (prim::RetryShared), which every bounded loop polls
// (prim::Retry::check_stop), so its loops give up as stopped by another's
// and the trial ends; its outcome is then no verdict of its own, and
// run_ordered runs any such trial again alone before it reports it.
//
// Host code, for both backends: the thread that runs a trial holds its
// TrialCancel (set_thread_trial_cancel), and each launch registers how its
// loops are stopped (CancelWhileRunning) while it runs.
#pragma once

#include <functional>
#include <mutex>

namespace atomstress {

class TrialCancel {
 public:
  // From any thread: stops the trial's running launch, and each later one as
  // it starts.
  void cancel();
  bool cancelled() const;

 private:
  friend class CancelWhileRunning;
  mutable std::mutex mu_;
  bool cancelled_ = false;
  std::function<void()> stop_;  // the running launch's (none between launches)
};

// The trial that the calling thread runs: the worker's threads set it around
// each trial (nullptr: none, nothing to cancel).
void set_thread_trial_cancel(TrialCancel* cancel);
TrialCancel* thread_trial_cancel();

// While a launch runs (from its construction to its destruction): a cancel
// of the calling thread's trial calls `stop` (under a lock, so never after
// the destructor returned), at once when the trial was already cancelled.
class CancelWhileRunning {
 public:
  explicit CancelWhileRunning(std::function<void()> stop);
  ~CancelWhileRunning();
  CancelWhileRunning(const CancelWhileRunning&) = delete;
  CancelWhileRunning& operator=(const CancelWhileRunning&) = delete;

 private:
  TrialCancel* cancel_;
};

}  // namespace atomstress
