// The worker's side of concurrent trials (concurrent_worker.hpp): requests
// queued to a fixed set of host threads, each running one trial at a time.
// On the cuda backend each thread has its own stream (the per-thread
// default stream) and its own device buffers (thread_local), so the trials'
// kernels run at once.  The threads live as long as the pool: their device
// buffers are allocated once, not per trial.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace atomstress {

class TrialThreads {
 public:
  using Job = std::function<void()>;
  explicit TrialThreads(size_t threads);
  TrialThreads(const TrialThreads&) = delete;
  TrialThreads& operator=(const TrialThreads&) = delete;
  // Runs what was queued, then joins.
  ~TrialThreads();
  void submit(Job job);

 private:
  void serve();

  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<Job> queue_;
  bool closing_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace atomstress
