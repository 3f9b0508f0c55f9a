// One runner of trials at once (the worker of concurrent_worker.hpp: one
// CUDA context, a stream per trial) shared by several threads, each through
// a client of its own: its own tickets, capacity and collect(), as if it
// had the runner to itself.  Two fuzz slices at once (nightly.hpp) use it:
// their trials run on the same worker's streams, at once on the GPU, where
// two workers' contexts would only time-slice.
//
// One thread of its own talks to the runner: it starts what the clients
// asked for, collects what ended and hands each outcome to the client
// whose ticket it was.  A client's start() waking it (ConcurrentTrials::wake)
// means a client never waits for another's trial to end before its own
// starts.
//
// Attribution: every trial in flight holds a share of `turns`
// (gpu_turns.hpp) from its start to its end, so a run alone on another
// thread waits for all of them and holds the next ones back.  A worker that
// dies loses the trials of every client in flight (each runs again alone,
// ordered_trials.hpp): a trap is never pinned on a trial that only ran
// beside it.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "harness/pipeline/gpu_turns.hpp"
#include "harness/pipeline/ordered_trials.hpp"

namespace atomstress {

class SharedTrials {
 public:
  // `inner` and `turns` outlive this; `inner` is used only from its thread.
  SharedTrials(ConcurrentTrials& inner, GpuTurns& turns);
  // Waits for the trials in flight, then stops its thread.
  ~SharedTrials();
  SharedTrials(const SharedTrials&) = delete;
  SharedTrials& operator=(const SharedTrials&) = delete;

  // A client with at most `capacity` trials in flight (its own count); it
  // must not outlive this.
  std::unique_ptr<ConcurrentTrials> client(size_t capacity);

 private:
  class Client;
  using Ended = ConcurrentTrials::Ended;
  struct Request {
    size_t ticket;               // the runner's
    std::optional<TrialSpec> spec;  // none: a cancel
  };
  struct Route {
    size_t client, ticket;  // the client's own ticket
  };
  // The thread: starts and cancels what was asked, collects, routes.
  void serve();
  void start(size_t client, size_t ticket, const TrialSpec& spec);
  void cancel(size_t client, size_t ticket);
  std::vector<ConcurrentTrials::Ended> collect(size_t client);

  ConcurrentTrials& inner_;
  GpuTurns& turns_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Request> requests_;
  std::map<size_t, Route> routes_;                       // by the runner's ticket: in flight
  std::map<size_t, std::vector<Ended>> ended_;           // by client: not yet collected
  size_t next_ticket_ = 0, clients_ = 0, in_flight_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace atomstress
