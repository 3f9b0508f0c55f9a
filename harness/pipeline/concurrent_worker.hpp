// Several isolated trials at once in one worker process: the worker
// (`worker --jobs N`, harness/cli/cmd_worker.cpp) runs each request that
// carries an "id" on one of N host threads, each with its own CUDA stream
// (the per-thread default stream) and its own device buffers, and answers
// {"id": n, "outcome": ...} as each ends.  Kernels of different processes
// only time-slice on a GPU; streams of one process run at once.
//
// A worker that hangs past the deadline of any trial in flight is killed; a
// worker that dies (a trap ends the whole CUDA context, so it exits rather
// than answer for trials that ran beside the trap) loses every trial in
// flight.  Lost trials come back without an outcome: run_ordered
// (ordered_trials.hpp) runs each again alone, where its Hang or Crash is
// its own.
#pragma once

#include <chrono>
#include <map>

#include "harness/pipeline/ordered_trials.hpp"
#include "harness/pipeline/worker_process.hpp"

namespace atomstress {

class WorkerTrials final : public ConcurrentTrials {
 public:
  WorkerTrials(BackendKind backend, const RunOptions& opt, size_t hotspots, size_t jobs);
  size_t capacity() const override { return jobs_; }
  void start(size_t ticket, const TrialSpec& spec) override;
  std::vector<Ended> collect() override;
  // Sends {"cancel": ticket} (cmd_worker.cpp) for a trial in flight.
  void cancel(size_t ticket) override;
  // Thread-safe: makes the collect() that waits return (an eventfd that
  // the worker's receive polls too).
  void wake() override;
  ~WorkerTrials() override;
  WorkerTrials(const WorkerTrials&) = delete;
  WorkerTrials& operator=(const WorkerTrials&) = delete;

 private:
  // Every trial in flight is lost: the worker is killed (if it still runs).
  std::vector<Ended> lose_all();

  WorkerProcess worker_;
  BackendKind backend_;
  RunOptions opt_;
  size_t hotspots_, jobs_;
  std::map<size_t, WorkerProcess::Clock::time_point> in_flight_;  // deadlines by ticket
  std::vector<Ended> lost_;               // lost before collect() was called
  int wake_fd_ = -1;                      // eventfd: wake() writes, collect() drains
};

}  // namespace atomstress
