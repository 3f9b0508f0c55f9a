// The semantics of every catalogue entry on the host: the implementation,
// run sequentially through the host mappings, returns the old value and
// leaves phi(old, a, b) in memory; plus the measured facts each spec states.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "atomics_under_test/buggy/buggy.cuh"
#include "harness/pipeline/run_trial.hpp"
#include "harness/registry/bits.hpp"
#include "harness/workload/workload.hpp"

using namespace atomstress;

namespace {

// One host thread runs 2000 ops of the entry in program order, each on its
// own word (with a neighbour in the same 32-bit word, so 16-bit entries have
// one), through the CPU backend's host mappings.
void sequential_matches_phi(const Entry& info, std::mt19937_64& rng) {
  const auto specials = special_values(info.kind, info.domain);
  constexpr uint32_t kOps = 2000;
  auto pick = [&]() -> uint64_t {
    const uint64_t r = rng();
    if (r % 3 == 0) return specials[(r >> 8) % specials.size()];
    return r & (vk_bytes(info.kind) == 8 ? ~0ull : (1ull << (8 * vk_bytes(info.kind))) - 1);
  };
  Workload w;
  w.impl = &info;
  w.spec.impl = info.name;
  w.spec.grid = 1;
  w.spec.block = 1;
  w.spec.ops_per_thread = kOps;
  w.region_elems = 2 * kOps;
  for (uint32_t i = 0; i < kOps; ++i) {
    const uint64_t init = pick(), nb = pick(), a = pick(), b = pick();
    w.addr.push_back(2 * i);
    w.a.push_back(a);
    w.b.push_back(b);
    w.init.push_back(init);
    w.init.push_back(nb);
  }
  RunOptions opt;
  opt.knobs.cpu_threads = 1;
  opt.knobs.yield_permille = 0;
  History h;
  std::string err;
  ASSERT_TRUE(run_workload(w, BackendKind::Cpu, opt, h, err)) << err;
  for (uint32_t i = 0; i < kOps; ++i) {
    const uint64_t init = w.init[2 * i], nb = w.init[2 * i + 1], a = w.a[i], b = w.b[i];
    ASSERT_EQ(h.old[i], init) << info.name << " must return the old value";
    ASSERT_EQ(h.final_mem[2 * i], info.phi(init, a, b))
        << info.name << ": init " << format_value(info.kind, init) << " a " << format_value(info.kind, a);
    ASSERT_EQ(h.final_mem[2 * i + 1], nb) << info.name << " touched its neighbour";
    ASSERT_EQ(h.gave_up[i] & 0x7f, 0u);
  }
}

}  // namespace

TEST(Semantics, EveryCorrectEntryMatchesItsOracleSequentially) {
  std::mt19937_64 rng(42);
  size_t tested = 0, gpu_only = 0;
  for (const Entry* info : match_impls("atomics")) {
    // An entry whose host side is other code (libcu++'s fetch_max) has no
    // host mapping to hold to its phi; the gpu suite checks it there.
    if (info->gpu_only) {
      ++gpu_only;
      continue;
    }
    ASSERT_NO_FATAL_FAILURE(sequential_matches_phi(*info, rng));
    ++tested;
  }
  EXPECT_EQ(tested + gpu_only, match_impls("atomics").size());
  EXPECT_LE(gpu_only, 4u) << "the host side of most correct entries must be tested here";
}

namespace {
uint64_t phi(const char* name, uint64_t old, uint64_t a, uint64_t b = 0) {
  return find_impl(name)->phi(old, a, b);
}
uint64_t f(float x) { return to_bits(x); }
uint64_t d(double x) { return to_bits(x); }
}  // namespace

TEST(Semantics, NativeFloatAddFlushesSubnormals) {
  EXPECT_EQ(phi("native.add.f32", f(0.0f), f(1e-40f)), f(0.0f));
  EXPECT_EQ(phi("native.add.f32", f(1e-40f), f(0.0f)), f(0.0f));
  EXPECT_EQ(phi("native.add.f32", f(-1e-40f), f(-0.0f)), f(-0.0f));
  EXPECT_EQ(phi("native.add.f32", 0x7fc00001u, f(1.0f)), 0x7fffffffu);
  EXPECT_EQ(phi("native.add.f32", f(-0.0f), f(-0.0f)), f(-0.0f));
  EXPECT_EQ(phi("native.add.f32", f(-0.0f), f(0.0f)), f(0.0f));
  // The CAS-emulated add keeps what the native one flushes.
  EXPECT_EQ(phi("cas.add.f32", f(0.0f), f(1e-40f)), f(1e-40f));
  EXPECT_EQ(phi("native.add.f64", d(0.0), d(1e-310)), d(1e-310));
}

TEST(Semantics, FmaxfRules) {
  EXPECT_EQ(phi("cas.max.f32", f(-0.0f), f(0.0f)), f(0.0f));
  EXPECT_EQ(phi("cas.max.f32", f(0.0f), f(-0.0f)), f(0.0f));
  EXPECT_EQ(phi("cas.min.f32", f(0.0f), f(-0.0f)), f(-0.0f));
  EXPECT_EQ(phi("cas.max.f32", 0x7fc00000u, f(2.0f)), f(2.0f));
  EXPECT_EQ(phi("cas.max.f32", f(2.0f), 0xffc00000u), f(2.0f));
  EXPECT_EQ(phi("cas.max.f32", 0x7fc00000u, 0x7fa00000u), 0x7fffffffu);
  // NaN-propagating max keeps the payload.
  EXPECT_EQ(phi("cas.max_nanprop.f32", f(1.0f), 0x7fa00001u), 0x7fa00001u);
  EXPECT_EQ(phi("cas.max_nanprop.f32", 0xff812345u, f(1.0f)), 0xff812345u);
}

TEST(Semantics, IntegerOrderFloatMax) {
  EXPECT_EQ(phi("intorder.max.f32", f(-0.0f), f(0.0f)), f(0.0f));
  EXPECT_EQ(phi("intorder.max.f32", f(-1.0f), f(-0.0f)), f(-0.0f));
  EXPECT_EQ(phi("intorder.max.f32", f(5.0f), 0x7fc00000u), 0x7fc00000u);
  EXPECT_EQ(phi("intorder.max.f32", f(-5.0f), 0xffc00000u), f(-5.0f));
}

TEST(Semantics, IncDecWraparound) {
  EXPECT_EQ(phi("native.inc.u32", 0, 0), 0u);
  EXPECT_EQ(phi("native.inc.u32", 9, 0), 0u);
  EXPECT_EQ(phi("native.inc.u32", 4, 5), 5u);
  EXPECT_EQ(phi("native.inc.u32", 5, 5), 0u);
  EXPECT_EQ(phi("native.inc.u32", 0xffffffffu, 0xffffffffu), 0u);
  EXPECT_EQ(phi("native.dec.u32", 0, 5), 5u);
  EXPECT_EQ(phi("native.dec.u32", 6, 5), 5u);
  EXPECT_EQ(phi("native.dec.u32", 5, 5), 4u);
  EXPECT_EQ(phi("native.dec.u32", 0, 0), 0u);
}

// Each deliberately wrong entry differs from the spec it claims on an input
// its comment names: evidence that the bug is real, not a relabelled copy.
TEST(Semantics, BuggyEntriesReallyDifferFromTheirSpecs) {
  auto once = [](auto impl, auto init, auto a) {
    decltype(init) mem[2] = {init, init};
    prim::Retry r;
    r.budget = 1000;
    const auto old = impl(&mem[0], a, decltype(a){}, r);
    return std::make_tuple(old, mem[0], mem[1], r.gave_up);
  };
  {
    auto [old, m, nb, g] = once(buggy::ReturnsNew{}, 1.0f, 2.0f);
    EXPECT_EQ(old, 3.0f);  // should be 1
  }
  {
    auto [old, m, nb, g] = once(buggy::FloatCompare{}, prim::bit_cast<float>(0x7fc00000u), 1.0f);
    EXPECT_EQ(g, 1u);  // spins until the budget
  }
  {
    auto [old, m, nb, g] = once(buggy::IntMaxGeZero{}, -1.0f, -0.0f);
    EXPECT_EQ(to_bits(m), to_bits(-1.0f));  // should be -0
  }
  {
    auto [old, m, nb, g] = once(buggy::DropsNan{}, 1.0f, prim::bit_cast<float>(0x7fc00000u));
    EXPECT_EQ(m, 1.0f);  // should be NaN
  }
  {
    auto [old, m, nb, g] = once(buggy::NarrowedMax{}, 1.0, 1.0 + 0x1p-40);
    EXPECT_EQ(m, 1.0);  // should be 1 + 2^-40
  }
  {
    auto [old, m, nb, g] = once(buggy::IncGt{}, 5u, 5u);
    EXPECT_EQ(m, 6u);  // should wrap to 0
  }
  {
    auto [old, m, nb, g] = once(buggy::DecNoAbove{}, 9u, 5u);
    EXPECT_EQ(m, 8u);  // should be the limit 5
  }
  {
    alignas(4) uint16_t mem[2] = {7, 9};
    prim::Retry r;
    buggy::ClobberU16{}(&mem[0], uint16_t(1), uint16_t(0), r);
    EXPECT_EQ(mem[1], 0u);  // should stay 9
  }
}
