// The CPU backend's watchdog clock (prim::now_ns on the host): a worker's own
// CPU time since it started, so that a host too busy to run it is not taken
// for a hang in the code under test.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "harness/prim/retry.cuh"

namespace {

using namespace std::chrono_literals;
constexpr uint64_t kMs = 1000000;

TEST(HostClock, AWorkerWaitingForACoreSpendsNoWatchdogTime) {
  std::thread([] {
    prim::set_host_interleave(0, false, 1);
    const uint64_t t0 = prim::now_ns();
    std::this_thread::sleep_for(300ms);  // off the CPU, as a starved worker is
    EXPECT_LT(prim::now_ns() - t0, 100 * kMs);
  }).join();
}

TEST(HostClock, AWorkerThatRunsSpendsIt) {
  std::thread([] {
    prim::set_host_interleave(0, false, 1);
    const uint64_t t0 = prim::now_ns();
    EXPECT_LT(t0, 50 * kMs);  // counted from the worker's start
    const auto wall_end = std::chrono::steady_clock::now() + 20s;
    volatile uint64_t sink = 0;
    while (prim::now_ns() - t0 < 30 * kMs && std::chrono::steady_clock::now() < wall_end) sink = sink + 1;
    EXPECT_GE(prim::now_ns() - t0, 30 * kMs) << "a spinning worker's clock did not advance in 20 s";
  }).join();
}

}  // namespace
