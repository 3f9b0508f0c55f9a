// The catalogue's first use from many threads at once, as run_packed_trials
// makes it (each case of this binary is its own process, so the catalogue is
// built inside the test): a thread that looked an entry up while another was
// still building the table found nothing, and its specs went unjudged.
#include <gtest/gtest.h>

#include <atomic>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "harness/registry/registry.hpp"
#include "harness/trial/spec.hpp"
#include "harness/workload/workload.hpp"

using namespace atomstress;

TEST(Registry, FirstUseFromManyThreadsFindsEveryEntry) {
  constexpr unsigned kThreads = 16, kLookups = 64;
  std::latch start(kThreads);
  std::atomic<unsigned> missed{0}, expanded{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < kThreads; ++t)
    pool.emplace_back([&, t] {
      start.arrive_and_wait();  // every thread asks at once, the catalogue not yet built
      for (unsigned i = 0; i < kLookups; ++i) {
        TrialSpec s;
        s.impl = "native.add.i32";
        s.grid = 1;
        s.block = 32;
        s.k = 4;
        s.seed = uint64_t(t) * kLookups + i;
        std::string error;
        if (expand_shape(s, error)) ++expanded;
        else ++missed;
      }
    });
  for (auto& th : pool) th.join();
  EXPECT_EQ(missed.load(), 0u) << "lookups that found no entry while the catalogue was being built";
  EXPECT_EQ(expanded.load(), kThreads * kLookups);
  // The table every thread saw is the whole one.
  EXPECT_NE(find_impl("native.add.i32"), nullptr);
  EXPECT_GT(catalogue().size(), 1u);
}
