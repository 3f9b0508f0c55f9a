// The CPU backend's hand-over (prim::host_hand_over): a worker that yields at
// an interleaving point waits, briefly, until another worker of its trial has
// passed one.  Without it a loaded host (CI's two busy cores) may run a
// trial's workers one after another and a race never shows: a fuzz corpus's
// plain read-add-write race failed 10 of 10 runs when it was recorded and 0
// of 10 when it was replayed on the same CI machine.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "harness/backend/cpu/host_workers.hpp"
#include "harness/trial/token.hpp"
#include "properties/properties.hpp"

using namespace atomstress;

namespace {

// Busy threads on every core (and one more) for as long as it lives.
class BusyHost {
 public:
  BusyHost() {
    const unsigned n = std::max(2u, std::thread::hardware_concurrency()) + 1;
    for (unsigned i = 0; i < n; ++i)
      spinners_.emplace_back([this] {
        volatile uint64_t sink = 0;
        while (!stop_.load(std::memory_order_relaxed)) sink = sink + 1;
      });
  }
  ~BusyHost() {
    stop_ = true;
    for (auto& t : spinners_) t.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> spinners_;
};

// A yield at an interleaving point hands over: the worker goes on only once
// another worker of its trial has passed an interleaving point (or the
// bound, kHandOverUs, has passed).  A plain yield would go on at once.
TEST(HostSchedule, AYieldWaitsUntilAnotherWorkerSteps) {
  RunOptions opt;
  opt.knobs.yield_permille = 1000;  // every interleaving point yields
  for (uint32_t run = 0; run < 20; ++run) {
    std::atomic<bool> other_about_to_step{false};
    bool seen = false;
    double waited_us = 0, ms = 0;
    std::string error;
    ASSERT_TRUE(run_host_workers(
        2, opt, run, 0, false,
        [&](uint32_t wid) {
          if (wid == 1) {
            std::this_thread::sleep_for(std::chrono::microseconds(100));
            other_about_to_step = true;
            prim::interleave_point();
            return;
          }
          const auto t0 = std::chrono::steady_clock::now();
          prim::interleave_point();
          seen = other_about_to_step.load();
          waited_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
        },
        ms, error))
        << error;
    // (A host too busy to run worker 1 within the bound lets worker 0 go on.)
    EXPECT_TRUE(seen || waited_us >= prim::kHandOverUs) << "run " << run << ": worker 0 went on after "
                                                        << waited_us << " us, before worker 1 stepped";
  }
}

// The shrunk token of that corpus case, exactly as CI recorded it: it fails
// most runs on a busy host too.
TEST(HostSchedule, TheCorpusRaceCiCalledFixedFailsOnABusyHost) {
  std::string why;
  const auto spec =
      decode_token("as2.0_1_0.buggy.plain_rmw.add.i32.1.2.1.0.0.1.1.0.0.0.6.20.4.0.1048576.119d8827", why);
  ASSERT_TRUE(spec) << why;
  const BusyHost busy;
  RunOptions opt;
  opt.knobs.yield_permille = 20;  // the token's
  opt.knobs.cpu_threads = 4;
  const auto ev = properties::measure_rate(*spec, BackendKind::Cpu, opt, 40);
  EXPECT_GE(ev.failures, 20u) << ev.failures << " of " << ev.runs << " runs failed";
}

// A worker waiting for another to step is not running the code under test:
// the watchdog's clock (prim::now_ns) does not count the wait, even where
// the other never steps and each wait runs to its end (kHandOverUs).
TEST(HostSchedule, AWaitForAnotherWorkerSpendsNoWatchdogTime) {
  RunOptions opt;
  opt.knobs.yield_permille = 1000;
  std::atomic<bool> done{false};
  uint64_t spent_ns = 0;
  double wall_ms = 0, ms = 0;
  std::string error;
  ASSERT_TRUE(run_host_workers(
      2, opt, 1, 0, false,
      [&](uint32_t wid) {
        if (wid == 1) {  // passes no interleaving point until worker 0 is done
          while (!done.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
          return;
        }
        const auto t0 = std::chrono::steady_clock::now();
        const uint64_t c0 = prim::now_ns();
        for (int i = 0; i < 200; ++i) prim::interleave_point();
        spent_ns = prim::now_ns() - c0;
        wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        done = true;
      },
      ms, error))
      << error;
  EXPECT_GE(wall_ms, 200 * prim::kHandOverUs / 1000.0 * 0.9) << "each yield waited its whole hand-over";
  EXPECT_LT(spent_ns, 20'000'000u) << "the watchdog counted " << spent_ns / 1e6 << " ms of waiting";
}

}  // namespace
