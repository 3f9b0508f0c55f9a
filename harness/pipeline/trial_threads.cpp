#include "harness/pipeline/trial_threads.hpp"

namespace atomstress {

TrialThreads::TrialThreads(size_t threads) {
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { serve(); });
}

TrialThreads::~TrialThreads() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  ready_.notify_all();
  for (auto& t : threads_) t.join();
}

void TrialThreads::submit(Job job) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(job));
  }
  ready_.notify_one();
}

void TrialThreads::serve() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mu_);
      ready_.wait(lock, [&] { return closing_ || !queue_.empty(); });
      if (queue_.empty()) return;  // closing, nothing left
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job();
  }
}

}  // namespace atomstress
