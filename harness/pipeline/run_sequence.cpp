#include "harness/pipeline/run_sequence.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

namespace atomstress {

bool worth_overlapping(double last_check_ms, double last_backend_ms) {
  return last_check_ms < 0 || last_backend_ms < 0 || last_check_ms >= kOverlapMinShare * last_backend_ms;
}

size_t judging_depth() {
  const unsigned cores = std::thread::hardware_concurrency();
  return std::clamp<size_t>(cores / 2, 1, 8);
}

namespace {

// The judging threads, started on first use and kept for the process: the
// checker's scratch buffers are per thread (check/checker.cpp), and a
// fresh thread per trial would grow them again (page faults) every time.
class JudgePool {
 public:
  explicit JudgePool(size_t threads) {
    for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { serve(); });
  }
  ~JudgePool() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    ready_.notify_all();
    for (auto& t : threads_) t.join();
  }
  std::future<Outcome> submit(std::unique_ptr<RanTrial> ran) {
    std::packaged_task<Outcome()> task([r = std::move(ran)] { return judge_ran_trial(*r); });
    auto outcome = task.get_future();
    {
      std::lock_guard lock(mu_);
      queue_.push_back(std::move(task));
    }
    ready_.notify_one();
    return outcome;
  }

 private:
  void serve() {
    for (;;) {
      std::packaged_task<Outcome()> task;
      {
        std::unique_lock lock(mu_);
        ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;
        task = std::move(queue_.front());
        queue_.pop_front();
      }
      task();
    }
  }

  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<std::packaged_task<Outcome()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

JudgePool& judge_pool() {
  static JudgePool pool(judging_depth());
  return pool;
}

// A trial between its run and its report: being judged by the pool, or
// judged already (in line).
struct Pending {
  std::future<Outcome> outcome;
  uint64_t ops = 0;
  double device_check_ms = 0;  // of its check_ms, what the backend half spent (the device's checker)
  bool on_host = false;        // judged by the host's checker (not refused, not passed on the device)
  bool overlapped = false;
};

}  // namespace

SequenceStats run_trial_sequence(std::span<const TrialSpec> specs, const SequenceConfig& cfg,
                                 const std::function<void(Outcome&&)>& each, const SequenceProgress& progress) {
  SequenceStats stats;
  std::deque<Pending> pending;  // in order
  uint64_t pending_ops = 0;
  bool stopped = false;
  // The last judged trial's host check and the last backend half, in ms
  // (-1: none yet), for worth_overlapping.
  double last_check_ms = -1, last_backend_ms = -1;
  // Reports the oldest pending trial (waiting for its judging); false once
  // the sequence stops at a failure.
  auto report_oldest = [&] {
    Pending p = std::move(pending.front());
    pending.pop_front();
    if (p.overlapped) pending_ops -= p.ops;
    const auto t0 = std::chrono::steady_clock::now();
    Outcome out = p.outcome.get();
    const double waited = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (p.on_host) last_check_ms = out.check_ms - p.device_check_ms;
    if (p.overlapped) stats.overlapped_ms += std::max(0.0, out.check_ms - p.device_check_ms - waited);
    if (stopped) return false;
    if (cfg.until_failure && out.verdict != Verdict::Pass) stopped = true;
    ++stats.reported;
    each(std::move(out));
    return !stopped;
  };
  auto ready = [](const Pending& p) {
    return p.outcome.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  };
  const size_t depth = judging_depth();
  for (size_t i = 0; i < specs.size(); ++i) {
    if (std::string why; cuda_context_lost(why)) {
      stats.context_lost = true;
      break;
    }
    // What waits for judging, and this trial's run, stay within the memory
    // of kOverlapMaxOps ops besides the trial itself (whose footprint was
    // checked alone).
    while (!pending.empty() && pending_ops + specs[i].ops() > kOverlapMaxOps)
      if (!report_oldest()) return stats;
    if (progress.running) progress.running(i);
    // Heap-held: judging moves to another thread, the workload with it.
    auto ran = std::make_unique<RanTrial>();
    const auto t0 = std::chrono::steady_clock::now();
    run_on_backend(specs[i], cfg.backend, cfg.run, cfg.hotspots, *ran);
    last_backend_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (progress.ran) progress.ran(i);
    Pending p;
    p.ops = ran->out.ops;
    p.on_host = !ran->judged;
    if (!cfg.pipelined || ran->judged || ran->out.ops < kOverlapMinOps || p.ops > kOverlapMaxOps ||
        !worth_overlapping(last_check_ms, last_backend_ms)) {
      p.device_check_ms = ran->out.check_ms;
      std::promise<Outcome> now;
      now.set_value(judge_ran_trial(*ran));
      p.outcome = now.get_future();
    } else {
      while (pending_ops + p.ops > kOverlapMaxOps || pending.size() >= depth)
        if (!report_oldest()) return stats;
      p.overlapped = true;
      p.device_check_ms = ran->out.check_ms;
      pending_ops += p.ops;
      p.outcome = judge_pool().submit(std::move(ran));
    }
    pending.push_back(std::move(p));
    // What is judged is reported now, not after the next run.
    while (!pending.empty() && ready(pending.front()))
      if (!report_oldest()) return stats;
  }
  while (!pending.empty())
    if (!report_oldest()) break;
  return stats;
}

}  // namespace atomstress
