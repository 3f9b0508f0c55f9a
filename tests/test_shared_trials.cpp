// Two fuzz slices at once share one worker (SharedTrials) and the GPU's
// turns (GpuTurns): each client gets back exactly its own trials, a run
// alone has nothing of any client in flight, and what two clients report
// through run_ordered at once is what each would report alone, one trial
// after another.  A fake runner ends trials in a random order from its own
// thread's collect(), as the worker does.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <random>
#include <thread>

#include "harness/pipeline/gpu_turns.hpp"
#include "harness/pipeline/ordered_trials.hpp"
#include "harness/pipeline/shared_trials.hpp"
#include "random_endings.hpp"

using namespace atomstress;
using namespace std::chrono_literals;

namespace {

// A trial's fate by its seed: 0 passes, 1 fails, 2 is lost beside others
// (alone it passes), 3 fails beside others only.
Verdict alone_verdict(const TrialSpec& s) { return s.seed % 4 == 1 ? Verdict::Fail : Verdict::Pass; }

std::optional<Outcome> concurrent_outcome(const TrialSpec& s) {
  if (s.seed % 4 == 2) return std::nullopt;
  Outcome o;
  o.spec = s;
  o.verdict = s.seed % 4 == 0 ? Verdict::Pass : Verdict::Fail;
  return o;
}

// Thread-safe as the worker is used by SharedTrials: start and collect on
// one thread, wake from any.  collect() ends a random share of the trials
// in flight after a moment, or returns none when woken.
class FakeWorker final : public ConcurrentTrials {
 public:
  explicit FakeWorker(uint32_t seed) : rng_(seed) {}
  size_t capacity() const override { return 64; }
  void start(size_t ticket, const TrialSpec& spec) override {
    std::lock_guard lock(mu_);
    flight_.push_back({ticket, spec});
    most_ = std::max(most_, flight_.size());
  }
  void cancel(size_t ticket) override {
    std::lock_guard lock(mu_);
    cancels_.push_back(ticket);
  }
  std::vector<Ended> collect() override {
    std::unique_lock lock(mu_);
    if (flight_.empty()) return {};
    changed_.wait_for(lock, std::chrono::microseconds(rng_() % 300), [&] { return woken_; });
    if (std::exchange(woken_, false) && rng_() % 2) return {};
    return atomstress::testing::end_some(flight_, rng_, concurrent_outcome);
  }
  void wake() override {
    std::lock_guard lock(mu_);
    woken_ = true;
    changed_.notify_all();
  }
  size_t in_flight() {
    std::lock_guard lock(mu_);
    return flight_.size();
  }
  size_t most() {
    std::lock_guard lock(mu_);
    return most_;
  }
  std::vector<size_t> cancels() {
    std::lock_guard lock(mu_);
    return cancels_;
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::mt19937 rng_;
  atomstress::testing::InFlight flight_;
  std::vector<size_t> cancels_;
  size_t most_ = 0;
  bool woken_ = false;
};

std::vector<std::vector<TrialSpec>> groups_of(uint64_t first_seed, size_t groups, size_t each, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<TrialSpec>> g(groups);
  uint64_t id = first_seed;
  for (auto& group : g)
    for (size_t i = 0; i < each; ++i) {
      TrialSpec s;
      s.impl = "fake";
      // Mostly passes: a failure closes its group.
      const uint64_t fate = rng() % 10 < 7 ? 0 : 1 + rng() % 3;
      s.seed = (id++) * 4 + fate;
      group.push_back(s);
    }
  return g;
}

// What run_ordered reports: "g seed verdict" and "closed g failed" lines.
std::vector<std::string> reference(const std::vector<std::vector<TrialSpec>>& groups) {
  std::vector<std::string> lines;
  for (size_t g = 0; g < groups.size(); ++g) {
    bool failed = false;
    for (const auto& s : groups[g]) {
      lines.push_back(std::to_string(g) + " " + std::to_string(s.seed) + " " + to_string(alone_verdict(s)));
      if ((failed = alone_verdict(s) != Verdict::Pass)) break;
    }
    lines.push_back("closed " + std::to_string(g) + " " + std::to_string(failed));
  }
  return lines;
}

}  // namespace

TEST(GpuTurns, ARunAloneWaitsForTheSharesAndHoldsNewOnesBack) {
  GpuTurns turns;
  turns.share_begin();
  std::atomic<bool> alone{false}, later_share{false};
  std::thread a([&] {
    turns.alone_begin();
    alone = true;
    EXPECT_EQ(turns.shares(), 0u);
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(later_share) << "a share began while the GPU was held alone";
    turns.alone_end();
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(alone) << "alone while a share was held";
  // A share asked for while a run alone waits goes after it.
  std::thread b([&] {
    turns.share_begin();
    later_share = true;
    turns.share_end();
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(later_share) << "a new share overtook the waiting run alone";
  turns.share_end();
  a.join();
  b.join();
  EXPECT_TRUE(alone);
  EXPECT_TRUE(later_share);
  EXPECT_EQ(turns.shares(), 0u);
}

TEST(GpuTurns, TheThreadHoldingTheGpuAloneMayAskAgainAndRunItsOwnShares) {
  GpuTurns turns;
  auto done = std::async(std::launch::async, [&] {
    GpuTurns::Alone outer(&turns);
    GpuTurns::Alone inner(&turns);
    GpuTurns::Share own(&turns);
  });
  ASSERT_EQ(done.wait_for(5s), std::future_status::ready) << "a thread waited for itself";
  // Released: another thread's share begins at once.
  auto other = std::async(std::launch::async, [&] { GpuTurns::Share s(&turns); });
  EXPECT_EQ(other.wait_for(5s), std::future_status::ready);
  GpuTurns::Alone none(nullptr);  // nothing shares the GPU: holds nothing
}

TEST(SharedTrials, EachClientGetsBackItsOwnTicketsOnly) {
  FakeWorker worker(7);
  GpuTurns turns;
  SharedTrials shared(worker, turns);
  auto a = shared.client(4), b = shared.client(4);
  EXPECT_EQ(a->capacity(), 4u);
  TrialSpec s;
  s.impl = "fake";
  for (size_t t = 0; t < 4; ++t) {
    s.seed = 4 * t;  // passes
    a->start(t, s);
    b->start(t, s);  // the same tickets: each client's own
  }
  std::vector<size_t> got_a, got_b;
  while (got_a.size() < 4)
    for (const auto& e : a->collect()) got_a.push_back(e.ticket);
  while (got_b.size() < 4)
    for (const auto& e : b->collect()) got_b.push_back(e.ticket);
  std::sort(got_a.begin(), got_a.end());
  std::sort(got_b.begin(), got_b.end());
  EXPECT_EQ(got_a, (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(got_b, (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(turns.shares(), 0u) << "every trial's share ended with it";
}

TEST(SharedTrials, ACancelReachesTheWorkerUnderTheSharedTicket) {
  FakeWorker worker(3);
  GpuTurns turns;
  auto done = std::async(std::launch::async, [&] {
    SharedTrials shared(worker, turns);
    auto a = shared.client(2), b = shared.client(2);
    TrialSpec s;
    s.impl = "fake";
    a->start(0, s);  // the worker's ticket 0
    b->start(0, s);  // the worker's ticket 1
    b->cancel(0);
    size_t got = 0;
    while (got < 1) got += b->collect().size();
    got = 0;
    while (got < 1) got += a->collect().size();
  });
  ASSERT_EQ(done.wait_for(10s), std::future_status::ready);
  const auto cancels = worker.cancels();
  // Cancelled while in flight, or already ended (then nothing reaches the worker).
  for (size_t c : cancels) EXPECT_EQ(c, 1u);
}

// Two clients' run_ordered at once, with random endings and losses: each
// reports what its trials alone would, one after another, and every run
// alone had nothing of either in flight.
TEST(SharedTrials, TwoClientsAtOnceReportWhatEachAloneWouldAndRunAloneAlone) {
  size_t most = 0;
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    FakeWorker worker(seed);
    GpuTurns turns;
    SharedTrials shared(worker, turns);
    std::atomic<size_t> alone_runs{0}, alone_beside_others{0};
    auto client_run = [&](uint64_t first_seed, size_t width) {
      auto runner = shared.client(width);
      const auto groups = groups_of(first_seed, 12, 3, seed * 31 + uint32_t(first_seed));
      std::vector<std::string> lines;
      const RunAlone alone = [&](const TrialSpec& s) {
        GpuTurns::Alone hold(&turns);
        ++alone_runs;
        if (worker.in_flight() != 0 || turns.shares() != 0) ++alone_beside_others;
        std::this_thread::sleep_for(std::chrono::microseconds(200));  // others would start now if not held back
        if (worker.in_flight() != 0) ++alone_beside_others;
        Outcome o;
        o.spec = s;
        o.verdict = alone_verdict(s);
        return o;
      };
      const OrderedSink sink{[&](size_t g, Outcome&& o) {
                               lines.push_back(std::to_string(g) + " " + std::to_string(o.spec.seed) + " " +
                                               to_string(o.verdict));
                             },
                             [&](size_t g, bool failed) {
                               lines.push_back("closed " + std::to_string(g) + " " + std::to_string(failed));
                               return true;
                             }};
      run_ordered(groups, *runner, alone, sink);
      EXPECT_EQ(lines, reference(groups)) << "seed " << seed << ", client from " << first_seed;
    };
    auto second = std::async(std::launch::async, client_run, 100000, 5);
    client_run(1, 3);
    second.get();
    EXPECT_GT(alone_runs.load(), 0u) << seed;
    EXPECT_EQ(alone_beside_others.load(), 0u) << "seed " << seed << ": a run alone had trials in flight";
    EXPECT_EQ(turns.shares(), 0u);
    most = std::max(most, worker.most());
  }
  EXPECT_GT(most, 5u) << "the two clients' trials were never in flight together";
}
