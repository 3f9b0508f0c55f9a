// A user's lock on the GPU (tests/user_entry_packed.cu): a waiter is live
// while its lock passes among others (prim::Retry::lock_slot), and a lock
// never released is still the hang it was, told as a lock never acquired.
// (The correct spin lock that was called a HANG: CTest byo_lock_passing_cuda.)
// Runs in atomstress_gpu_pack_judging_tests, which registers the lock and
// exits 77 where no CUDA device is usable.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "harness/backend/backend.hpp"
#include "harness/pipeline/run_trial.hpp"
#include "harness/registry/registry.hpp"

using namespace atomstress;

TEST(UserLockOnGpu, ALockNeverReleasedIsAHangOfALockNeverAcquiredAtItsWatchdog) {
  TrialSpec spec;
  spec.impl = "test.user_lock_never_released";
  ASSERT_NE(find_impl(spec.impl.c_str()), nullptr);
  spec.grid = 4;
  spec.block = 64;
  spec.ops_per_thread = 1;
  spec.pattern = Pattern::Single;  // every op waits on the one lock
  RunOptions opt;
  opt.policy.isolate = false;
  const auto start = std::chrono::steady_clock::now();
  const Outcome out = run_trial(spec, BackendKind::Cuda, opt);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(out.verdict, Verdict::Hang) << out.why();
  const std::string why = out.why();
  EXPECT_NE(why.find("never acquired"), std::string::npos) << why;
  EXPECT_EQ(why.find("kept passing"), std::string::npos) << why;
  // Its one stamp (the first holder's) is older than a stall at the
  // watchdog, or soon after: no waiter waits out the allowance.
  const double watchdog_s = double(effective_watchdog_ms(opt, spec.ops())) / 1000;
  EXPECT_LT(seconds, watchdog_s + 2.0) << why;
  std::printf("a user's lock never released: %s (%.2f s, watchdog %.2f s)\n", to_string(out.verdict), seconds,
              watchdog_s);
}
