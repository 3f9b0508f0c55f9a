#include "harness/pipeline/in_order_reports.hpp"

#include <chrono>

namespace atomstress {

InOrderReports::InOrderReports(size_t background)
    : threads_(background > 0 ? std::make_unique<TrialThreads>(background) : nullptr),
      working_(std::make_shared<std::atomic<size_t>>(0)) {}

void InOrderReports::report(Report make) {
  flush();
  if (queue_.empty()) {
    make();
    return;
  }
  queue_.push_back({{}, std::move(make)});
}

void InOrderReports::conclude(std::function<void()> work, Report make, bool beside) {
  if (!threads_ || !beside) {
    work();
    report(std::move(make));
    return;
  }
  // The count drops before the future is ready (when the work returns or
  // throws), so that once a conclusion is seen done, working() no longer
  // counts it: a trial started then must not think it runs beside it.
  auto task = std::make_shared<std::packaged_task<void()>>([work = std::move(work), working = working_] {
    struct Ended {
      std::atomic<size_t>& count;
      ~Ended() { count.fetch_sub(1); }
    } ended{*working};
    work();
  });
  std::shared_future<void> done = task->get_future().share();
  working_->fetch_add(1);
  threads_->submit([task] {
    (*task)();  // an exception lands in the future, rethrown where it is reported
  });
  queue_.push_back({std::move(done), std::move(make)});
  flush();
}

void InOrderReports::flush() {
  while (!queue_.empty()) {
    Queued& front = queue_.front();
    if (front.done.valid()) {
      if (front.done.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
      front.done.get();
    }
    Report make = std::move(front.make);
    queue_.pop_front();
    make();
  }
}

void InOrderReports::finish() {
  while (!queue_.empty()) {
    if (queue_.front().done.valid()) queue_.front().done.wait();
    flush();
  }
}

size_t InOrderReports::working() const { return working_->load(); }

}  // namespace atomstress
