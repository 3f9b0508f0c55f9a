// Packs judged on the GPU (harness/backend/cuda/packed_judge.cu) against
// packs judged on the host, over every packable entry of the catalogue and
// every buggy one: the same verdicts.  Exits 77 (CTest: skipped) where no
// CUDA device is usable.
//
//   ctest --test-dir build -R '^gpu_pack_judging$' --output-on-failure
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "harness/backend/cuda/pack_expansion.hpp"
#include "harness/backend/gpu_checked.hpp"
#include "harness/backend/packed.hpp"
#include "harness/check/gpu_checker.hpp"
#include "harness/pipeline/run_packed.hpp"
#include "harness/pipeline/run_trial.hpp"
#include "harness/workload/workload.hpp"

using namespace atomstress;
namespace gc = atomstress::gpu_check;

namespace {

// The user's loop that never ends (tests/user_entry_packed.cu): every pack
// of it hangs, so it has a test of its own.
constexpr const char* kUserStuck = "test.user_stuck_add.u32";

// Every single atomic with a packed runner, buggy ones included.
std::vector<const Entry*> packable_entries() {
  std::vector<const Entry*> out;
  for (const Entry& e : catalogue())
    if (!e.algo && e.run_cuda && e.run_cuda_packed && e.name != std::string_view(kUserStuck)) out.push_back(&e);
  return out;
}

// Small instances of every entry: every pattern, both spaces, one and two
// blocks, several seeds; those that pack.
std::vector<TrialSpec> pack_specs(const std::vector<const Entry*>& entries, int seeds, uint64_t salt) {
  std::mt19937_64 rng(salt);
  std::vector<TrialSpec> specs;
  for (const Entry* e : entries)
    for (int seed = 0; seed < seeds; ++seed)
      for (int p = 0; p < kNumPatterns; ++p)
        for (const Space space : {Space::Global, Space::Shared})
          for (const uint32_t grid : {1u, 2u}) {
            TrialSpec s;
            s.impl = e->name;
            s.grid = grid;
            s.block = 32 / grid;
            s.ops_per_thread = 1 + uint32_t(rng() % 2);
            s.pattern = Pattern(p);
            s.k = 1 + uint32_t(rng() % 8);
            s.space = space;
            s.dist = rng() % 2 ? Dist::Full : Dist::Small;
            s.special_permille = rng() % 3 == 0 ? 300 : 0;
            s.init = rng() % 4 == 0 ? Init::Zero : Init::Random;
            s.seed = rng();
            if (packs(s, BackendKind::Cuda)) specs.push_back(s);
          }
  return specs;
}

RunOptions with_checker(CheckerKind c) {
  RunOptions o;
  o.policy.checker = c;
  o.knobs.retry_budget = 4096;  // the buggy loops that never settle give up soon
  return o;
}

bool found_failure(const std::optional<Outcome>& r) {
  return r && (r->verdict == Verdict::Fail || r->verdict == Verdict::Hang || r->verdict == Verdict::Crash);
}

// A bug packs of 32 ops must show: not one the hardware may never show, nor
// a weak-memory one (those need stress, which packs never carry).
bool must_be_caught(const Entry& e) { return e.buggy() && !e.rate_only && !e.weak_memory; }

}  // namespace

// --checker both: each instance judged on the device and by the host, on the
// same history; where the device's checker alone decided, a disagreement is
// an Error naming both.  So no Error, and each bug caught.
TEST(PackJudgingOnGpu, BothCheckersJudgeEveryInstanceAlike) {
  const auto entries = packable_entries();
  const auto specs = pack_specs(entries, 3, 41);
  const auto results = run_packed_trials(specs, BackendKind::Cuda, with_checker(CheckerKind::Both), 7);
  std::map<std::string, size_t> caught;
  size_t judged = 0, on_gpu = 0, failing = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    const auto& r = results[i];
    if (!r) continue;  // stopped by another instance's loop: it runs alone
    ++judged;
    on_gpu += r->checked_on_gpu;
    EXPECT_NE(r->verdict, Verdict::Error) << describe(specs[i]) << ": " << r->why();
    if (found_failure(r)) {
      ++failing;
      ++caught[specs[i].impl];
    }
    const Entry* e = find_impl(specs[i].impl);
    if (!e->buggy()) {
      EXPECT_EQ(r->verdict, Verdict::Pass) << describe(specs[i]) << ": " << r->why();
    }
  }
  for (const Entry* e : entries) {
    if (must_be_caught(*e)) {
      EXPECT_GT(caught[e->name], 0u) << e->name << " was not caught packed";
    }
  }
  std::printf("both ways: %zu instances of %zu entries, %zu judged, %zu on the GPU, %zu failing (agreeing)\n",
              specs.size(), entries.size(), judged, on_gpu, failing);
  // (A buggy loop that never settles stops the rest of its entry's launch.)
  EXPECT_GT(judged, specs.size() / 2);
  EXPECT_GT(on_gpu, judged / 2);
}

// --checker gpu against --checker cpu, two runs of the same specs: the
// correct entries pass both ways, every instance the device judged says so,
// and every bug that must show is caught both ways.
TEST(PackJudgingOnGpu, GpuJudgingGivesTheHostsVerdicts) {
  const auto entries = packable_entries();
  const auto specs = pack_specs(entries, 2, 43);
  const auto on_gpu = run_packed_trials(specs, BackendKind::Cuda, with_checker(CheckerKind::Gpu), 11);
  const auto on_host = run_packed_trials(specs, BackendKind::Cuda, with_checker(CheckerKind::Cpu), 11);
  std::map<std::string, std::pair<size_t, size_t>> caught;  // gpu, host
  size_t device_judged = 0, compared = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    const Entry* e = find_impl(specs[i].impl);
    const auto &g = on_gpu[i], &h = on_host[i];
    if (g) {
      EXPECT_EQ(g->checked_on_gpu, e->device_edges != nullptr && gpu_checkable(*e, 1, gpu_check::device_judge())) << describe(specs[i]);
      device_judged += g->checked_on_gpu;
    }
    if (h) {
      EXPECT_FALSE(h->checked_on_gpu) << describe(specs[i]);
    }
    caught[e->name].first += found_failure(g);
    caught[e->name].second += found_failure(h);
    if (!g || !h || e->buggy()) continue;
    EXPECT_EQ(g->verdict, h->verdict) << describe(specs[i]) << ": " << g->why() << " / " << h->why();
    EXPECT_EQ(g->verdict, Verdict::Pass) << describe(specs[i]) << ": " << g->why();
    ++compared;
  }
  for (const Entry* e : entries)
    if (must_be_caught(*e)) {
      EXPECT_GT(caught[e->name].first, 0u) << e->name << " was not caught judged on the GPU";
      EXPECT_GT(caught[e->name].second, 0u) << e->name << " was not caught judged on the host";
    }
  for (const auto& [name, c] : caught)
    if (c.first || c.second)
      std::printf("  %s: %zu caught judged on the GPU, %zu on the host\n", name.c_str(), c.first, c.second);
  std::printf("gpu against cpu judging: %zu correct instances compared, %zu judged on the device\n", compared,
              device_judged);
  EXPECT_GT(compared, 1000u);
  EXPECT_GT(device_judged, compared / 2);
}

// A pack's inputs expanded on the device (PackItem shapes,
// cuda/pack_expansion.cu) are the bytes the host expands from the same
// specs: every packable entry's kind and domain, every pattern (Zipf's
// tables several to a launch), both spaces, special values, zero init.  The
// runner hands each instance's inputs back with its history (here every
// instance's: no device verdict, so the host judges all).
TEST(PackJudgingOnGpu, InputsExpandedOnTheDeviceAreTheHostsBytes) {
  const auto entries = packable_entries();
  const auto specs = pack_specs(entries, 2, 53);
  std::map<const Entry*, std::vector<size_t>> by_entry;
  for (size_t i = 0; i < specs.size(); ++i) by_entry[find_impl(specs[i].impl)].push_back(i);
  size_t compared = 0, ops = 0;
  for (const auto& [entry, members] : by_entry) {
    std::vector<Workload> shapes;
    std::vector<History> histories(members.size());
    std::string error;
    for (const size_t i : members) {
      auto w = expand_shape(specs[i], error);
      ASSERT_TRUE(w) << error;
      shapes.push_back(std::move(*w));
    }
    std::vector<PackItem> items;
    for (size_t j = 0; j < members.size(); ++j) items.push_back(PackItem{&shapes[j], nullptr, &histories[j]});
    ASSERT_TRUE(entry->run_cuda_packed(items.data(), items.size(), with_checker(CheckerKind::Cpu), 3, error))
        << entry->name << ": " << error;
    for (size_t j = 0; j < members.size(); ++j) {
      const TrialSpec& spec = specs[members[j]];
      const auto host = expand(spec, error);
      ASSERT_TRUE(host) << error;
      const Workload& dev = shapes[j];
      ASSERT_FALSE(dev.arrays_elsewhere) << describe(spec) << ": its inputs did not come back";
      EXPECT_EQ(dev.addr, host->addr) << describe(spec);
      EXPECT_EQ(dev.a, host->a) << describe(spec);
      EXPECT_EQ(dev.b, host->b) << describe(spec);
      EXPECT_EQ(dev.init, host->init) << describe(spec);
      EXPECT_EQ(histories[j].final_mem.size(), host->init.size()) << describe(spec);
      ++compared;
      ops += host->addr.size();
    }
  }
  std::printf("inputs expanded on the device: %zu instances of %zu entries, %zu ops, the host's bytes\n", compared,
              by_entry.size(), ops);
  EXPECT_GT(compared, 1000u);
}

// The slots the device fills from a plan's placements are plan_slots' (the
// host's reference, which the CPU tests check: every logical thread once, a
// logical block in one physical block, shared copies apart): blocks of 1 to
// 1024 threads, both spaces, several seeds.
TEST(PackJudgingOnGpu, SlotsPlacedOnTheDeviceAreThePlansSlots) {
  size_t slots_compared = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    std::vector<TrialSpec> specs;
    for (uint32_t i = 0; i < 300; ++i) {
      TrialSpec s;
      s.impl = "native.add.u32";
      s.grid = 1 + i % 4;
      s.block = std::array<uint32_t, 7>{1, 7, 32, 33, 96, 200, 1024}[(i + seed) % 7];
      s.space = i % 3 == 1 ? Space::Shared : Space::Global;
      s.seed = i;
      if (packs(s, BackendKind::Cuda)) specs.push_back(s);
    }
    std::vector<Workload> shapes;
    std::vector<History> hs(specs.size());
    std::vector<PackItem> items;
    std::string error;
    for (const TrialSpec& s : specs) shapes.push_back(*expand_shape(s, error));
    for (size_t i = 0; i < shapes.size(); ++i) items.push_back(PackItem{&shapes[i], nullptr, &hs[i]});
    const auto plan = plan_pack(items, 4, seed, 48 * 1024, error);
    ASSERT_TRUE(plan) << error;
    const std::vector<PackSlot> host = plan_slots(*plan);
    PackSlot* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, host.size() * sizeof(PackSlot)), cudaSuccess);
    ASSERT_TRUE(cuda::place_slots_on_device(*plan, d, error)) << error;
    std::vector<PackSlot> dev(host.size());
    ASSERT_EQ(cudaMemcpy(dev.data(), d, host.size() * sizeof(PackSlot), cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaFree(d), cudaSuccess);
    for (size_t p = 0; p < host.size(); ++p) {
      ASSERT_EQ(dev[p].instance, host[p].instance) << "slot " << p << ", seed " << seed;
      ASSERT_EQ(dev[p].thread, host[p].thread) << "slot " << p << ", seed " << seed;
      ASSERT_EQ(dev[p].smem_elem, host[p].smem_elem) << "slot " << p << ", seed " << seed;
    }
    slots_compared += host.size();
  }
  std::printf("slots placed on the device: %zu compared with the plan's\n", slots_compared);
}

// The checker's per-element verdicts (DeviceHistory::bad_elems), by which a
// pack's instances are judged apart: each element's flag is its verdict
// checked alone.  Random add histories over many elements, some corrupted.
TEST(PackJudgingOnGpu, PerElementVerdictsAreEachElementAlone) {
  static gc::Checker* checker = new gc::Checker;  // leaked: no CUDA calls after main returns
  std::mt19937_64 rng(47);
  size_t bad_seen = 0, elements_seen = 0;
  for (int round = 0; round < 40; ++round) {
    const uint32_t elems = 1 + uint32_t(rng() % 120);
    const size_t ops = rng() % 2000;
    std::vector<uint32_t> addr(ops);
    std::vector<uint64_t> from(ops), to(ops), init(elems), fin(elems);
    for (auto& x : init) x = rng() % 5;
    fin = init;
    for (size_t o = 0; o < ops; ++o) {  // program order per element: explainable
      addr[o] = uint32_t(rng() % elems);
      from[o] = fin[addr[o]];
      to[o] = from[o] + rng() % 3;
      fin[addr[o]] = to[o];
    }
    for (uint32_t k = 0; k < elems / 10 + 1; ++k) {  // some elements made unexplainable, most not
      const uint32_t e = uint32_t(rng() % elems);
      if (rng() % 2) fin[e] += 1000;
      else if (ops) to[rng() % ops] += 1000;
    }
    std::vector<uint8_t> flags;
    gc::Verdict v;
    std::string err;
    ASSERT_TRUE(gc::check_host_arrays(*checker, addr, from, to, init, fin, v, err, &flags)) << err;
    ASSERT_EQ(flags.size(), elems);
    for (uint32_t e = 0; e < elems; ++e) {
      std::vector<uint32_t> a1;
      std::vector<uint64_t> f1, t1;
      for (size_t o = 0; o < ops; ++o)
        if (addr[o] == e) {
          a1.push_back(0);
          f1.push_back(from[o]);
          t1.push_back(to[o]);
        }
      const std::vector<uint64_t> i1{init[e]}, z1{fin[e]};
      gc::Verdict alone;
      ASSERT_TRUE(gc::check_host_arrays(*checker, a1, f1, t1, i1, z1, alone, err)) << err;
      EXPECT_EQ(flags[e] != 0, !alone.ok) << "round " << round << ", element " << e;
      bad_seen += !alone.ok;
      ++elements_seen;
    }
    bool any = false;
    for (uint8_t f : flags) any |= f != 0;
    EXPECT_EQ(any, !v.ok) << "round " << round;
  }
  std::printf("per-element verdicts: %zu of %zu elements unexplainable\n", bad_seen, elements_seen);
  EXPECT_GT(bad_seen, 100u);
}

// A pack whose first launch has a loop that gives up (a CAS loop that never
// ends on a NaN, every instance full of special values) stops there: the
// later launches would each run to their deadline too, so their instances
// come back unjudged (run alone by the caller, as when a pack traps).
TEST(PackJudgingOnGpu, APackStopsAfterALaunchWhoseLoopGaveUp) {
  // Sixteen full launches of 32-op instances, every one with a loop that
  // never ends (NaN in a float-compare CAS loop); up to kPackLaunchThreads
  // launches run at once.  Once one gave up, no further launch of the entry
  // starts: those already running finish with their own HANGs, the rest are
  // left to run alone.
  const size_t per_launch = kPackLaunchOps / 32;
  std::vector<TrialSpec> specs(16 * per_launch);
  uint64_t seed = 1;
  for (auto& s : specs) {
    s.impl = "buggy.float_compare.add.f32";
    s.grid = 1;
    s.block = 32;
    s.pattern = Pattern::Single;
    s.special_permille = 1000;
    s.seed = seed++;
  }
  ASSERT_TRUE(packs(specs[0], BackendKind::Cuda));
  RunOptions opt;
  opt.knobs.retry_budget = 4096;
  opt.knobs.watchdog_ms = 2000;
  const auto results = run_packed_trials(specs, BackendKind::Cuda, opt, 5);
  size_t hangs = 0, judged = 0;
  for (const auto& r : results) {
    judged += r.has_value();
    hangs += r && r->verdict == Verdict::Hang;
  }
  EXPECT_GT(hangs, 0u) << "the launches that ran: their own give-ups are their HANGs";
  EXPECT_LE(judged, kPackLaunchThreads * per_launch) << "a launch started after one had given up";
  std::printf("a pack that hung: %zu HANG in the launches that ran (at most %zu at once), %zu instances left to "
              "run alone\n", hangs, kPackLaunchThreads, specs.size() - judged);
}

// A user's atomic (tests/user_entry_packed.cu) has 8 KiB of static shared
// memory in its kernels: a pack's blocks take the dynamic shared memory
// left beside it.  Eight 32-thread shared-memory instances share each
// 256-thread block: first 44800 bytes a block, past what a kernel may take
// without opting in (48 KiB less its static memory, not 48 KiB); then 4 KiB
// short of the device's limit, more than fits beside the static memory (so
// fewer instances a block).  Every launch starts and every instance passes.
TEST(PackJudgingOnGpu, AUserEntrysPacksLeaveRoomForItsStaticSharedMemory) {
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  for (const uint64_t block_bytes : {uint64_t(44800), uint64_t(prop.sharedMemPerBlockOptin) - 4096}) {
    std::vector<TrialSpec> specs(64);
    uint64_t seed = 1;
    for (auto& s : specs) {
      s.impl = "test.user_cas_add.u32";
      s.grid = 1;
      s.block = 32;
      s.pattern = Pattern::Uniform;
      s.k = uint32_t(block_bytes / 8 / sizeof(uint32_t));
      s.space = Space::Shared;
      s.seed = seed++;
    }
    ASSERT_TRUE(packs(specs[0], BackendKind::Cuda)) << block_bytes;
    std::string launch_error;
    const auto results = run_packed_trials(specs, BackendKind::Cuda, with_checker(CheckerKind::Auto), 7, {},
                                           &launch_error);
    EXPECT_EQ(launch_error, "") << block_bytes << " bytes a block";
    size_t passed = 0;
    for (const auto& r : results) passed += r && r->verdict == Verdict::Pass;
    EXPECT_EQ(passed, specs.size()) << block_bytes << " bytes a block";
  }
}

// A user's loop that never ends, packed, stops at the stall watch (200 ms
// with no op of the launch completing), as it does in a trial of its own,
// not at the launch's watchdog of seconds: its HANG says so.  With an
// explicit --watchdog-ms the watch is off, and the watchdog stops it.  (A
// retry budget the loop never reaches in either.)
TEST(PackJudgingOnGpu, AUserLoopThatNeverEndsStopsAtTheStallWatchInAPack) {
  std::vector<TrialSpec> specs(64);
  uint64_t seed = 1;
  for (auto& s : specs) {
    s.impl = kUserStuck;
    s.grid = 1;
    s.block = 32;
    s.pattern = Pattern::Uniform;
    s.k = 4;
    s.init = Init::Random;
    s.seed = seed++;
  }
  ASSERT_TRUE(packs(specs[0], BackendKind::Cuda));
  for (const bool watched : {true, false}) {
    RunOptions opt;
    opt.knobs.retry_budget = 1u << 30;
    if (!watched) opt.knobs.watchdog_ms = 1000;
    const std::string expected = watched ? "when no op of the trial had completed for 200 ms while it ran"
                                         : "when the 1000 ms watchdog fired";
    const auto results = run_packed_trials(specs, BackendKind::Cuda, opt, 11);
    size_t hangs = 0, worded = 0;
    for (const auto& r : results) {
      if (!r || r->verdict != Verdict::Hang) continue;
      ++hangs;
      worded += r->why().find(expected) != std::string::npos;
    }
    EXPECT_GT(hangs, 0u) << (watched ? "watched" : "not watched");
    EXPECT_EQ(worded, hangs) << "every HANG stopped by " << (watched ? "the stall watch" : "the watchdog");
    std::printf("a user's loop that never ends, packed, %s: %zu HANG\n", watched ? "watched" : "not watched", hangs);
  }
}

// The GPU's time on atomstress's own checking, for the busy share beside
// the code under test's: a trial checked on the device carries its
// checking's event time (within the host's time around it) and when it
// ended (after its run); a pack judged on the device gives its judging as a
// span of its own beside its launches' kernels.
TEST(PackJudgingOnGpu, TheDevicesCheckingIsTimedByItsEvents) {
  TrialSpec big;
  big.impl = "native.add.i32";
  big.grid = 256;
  big.block = 256;
  big.ops_per_thread = 16;
  big.pattern = Pattern::Uniform;
  big.k = 4096;
  big.seed = 3;
  const Outcome one = run_trial(big, BackendKind::Cuda, with_checker(CheckerKind::Gpu));
  ASSERT_EQ(one.verdict, Verdict::Pass) << one.why();
  ASSERT_TRUE(one.checked_on_gpu);
  EXPECT_GT(one.device_check_ms, 0);
  EXPECT_LE(one.device_check_ms, one.check_ms) << "the events lie inside the host's time around them";
  EXPECT_GE(one.device_check_end_s, one.run_end_s) << "checked after it ran";
  std::printf("a trial of %llu ops checked on the device: %.3f ms by its events, %.3f ms by the host's clock\n",
              static_cast<unsigned long long>(one.ops), one.device_check_ms, one.check_ms);

  const auto specs = pack_specs({find_impl("native.add.u32")}, 4, 13);
  ASSERT_FALSE(specs.empty());
  std::vector<LaunchSpan> spans;
  const auto results = run_packed_trials(specs, BackendKind::Cuda, with_checker(CheckerKind::Gpu), 7, {}, nullptr,
                                         &spans);
  double kernels_ms = 0, judging_ms = 0, last_kernel_end = 0, last_judging_end = 0;
  for (const LaunchSpan& k : spans) {
    (k.own ? judging_ms : kernels_ms) += k.ms;
    double& last = k.own ? last_judging_end : last_kernel_end;
    last = std::max(last, k.end_s);
  }
  EXPECT_GT(kernels_ms, 0);
  EXPECT_GT(judging_ms, 0) << "a pack judged on the device gives its judging's span";
  EXPECT_GE(last_judging_end, last_kernel_end) << "a launch is judged after it ran";
  size_t timed = 0, judged = 0;
  for (const auto& r : results) {
    if (!r || !r->checked_on_gpu) continue;
    ++judged;
    timed += r->device_check_ms > 0 && r->device_check_end_s > 0;
  }
  EXPECT_GT(judged, 0u);
  EXPECT_EQ(timed, judged) << "every instance judged on the device carries its share of the judging";
  std::printf("%zu instances judged on the device: kernels %.3f ms, judging %.3f ms by their events\n", judged,
              kernels_ms, judging_ms);
}

int main(int argc, char** argv) {
  std::string why;
  if (!cuda_available(why)) {
    std::printf("no usable CUDA device (%s): packs judged on the GPU skipped\n", why.c_str());
    return 77;
  }
  std::printf("packs judged on the GPU, on %s\n", cuda_device_name().c_str());
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
