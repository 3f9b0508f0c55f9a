// The Eulerian checker against a brute-force search over every order, on
// thousands of small random histories, both valid and corrupted.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "harness/backend/pack_circuit.cuh"
#include "harness/check/checker.hpp"
#include "harness/check/value_bins.hpp"
#include "test_support.hpp"
#include "harness/registry/bits.hpp"
#include "harness/workload/workload.hpp"

using namespace atomstress;

namespace {

using SmallHistory = atomstress::testing::ArrayHistory;
using atomstress::testing::input_of;

bool brute_force(const SmallHistory& h) { return atomstress::testing::brute_force_explains(input_of(h)); }

bool checker(const SmallHistory& h) { return check_history(input_of(h)).ok; }

// Values from a pool small enough that wrong histories are often nearly
// right, with the specials that make float states interesting.
uint64_t pool_value(const Entry& impl, std::mt19937_64& rng) {
  if (impl.kind == VK::F32) {
    static const float pool[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 3e7f, -3e7f, 1.0f / 3, 1e-40f, INFINITY};
    return to_bits(pool[rng() % std::size(pool)]);
  }
  if (impl.kind == VK::F64) {
    static const double pool[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e16, -1e16, 1.0 / 3, 1e-310, -INFINITY};
    return to_bits(pool[rng() % std::size(pool)]);
  }
  if (impl.kind == VK::F16 || impl.kind == VK::BF16) return atomstress::testing::half_pool_value(impl.kind, rng());
  const auto sv = special_values(impl.kind, impl.domain);
  if (rng() % 4 == 0) return sv[rng() % sv.size()];
  return impl.domain == Domain::IncDec ? rng() % 4 : (rng() % 5) & (vk_bytes(impl.kind) == 2 ? 0xffff : ~0ull);
}

SmallHistory random_history(const Entry& impl, std::mt19937_64& rng, bool corrupt, size_t max_elems = 2,
                            size_t max_ops = 6) {
  SmallHistory h;
  h.impl = &impl;
  const size_t elems = 1 + rng() % max_elems, n = 1 + rng() % max_ops;
  for (size_t e = 0; e < elems; ++e) h.init.push_back(pool_value(impl, rng));
  h.fin = h.init;
  for (size_t o = 0; o < n; ++o) {
    h.addr.push_back(uint32_t(rng() % elems));
    h.a.push_back(pool_value(impl, rng));
    h.b.push_back(pool_value(impl, rng));
  }
  // A valid history: execute a random sequential order.
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  h.old.assign(n, 0);
  for (size_t o : order) {
    h.old[o] = h.fin[h.addr[o]];
    h.fin[h.addr[o]] = impl.phi(h.old[o], h.a[o], h.b[o]);
  }
  if (corrupt) {
    switch (rng() % 4) {
      case 0: h.old[rng() % n] = pool_value(impl, rng); break;
      case 1: std::swap(h.old[rng() % n], h.old[rng() % n]); break;
      case 2: h.fin[rng() % elems] = pool_value(impl, rng); break;
      default: {  // a lost update: one op reads what another read
        const size_t x = rng() % n, y = rng() % n;
        if (h.addr[x] == h.addr[y]) h.old[x] = h.old[y];
        else h.old[x] = pool_value(impl, rng);
      }
    }
  }
  return h;
}

}  // namespace

// The fast path exists twice (portable, x86-64-v3): run f on each copy the
// CPU can run.
template <class F>
void on_both_fast_paths(F f) {
  const bool v3 = checker_fast_path_v3();
  checker_pin_portable(true);
  EXPECT_FALSE(checker_fast_path_v3());
  f("portable");
  checker_pin_portable(false);
  if (v3) f("x86-64-v3");
}

TEST(Checker, AgreesWithBruteForceOnThousandsOfHistories) {
  on_both_fast_paths([](const char* path) {
  SCOPED_TRACE(path);
  std::mt19937_64 rng(12345);
  const auto impls = match_impls("everything");
  size_t valid = 0, invalid = 0;
  for (int i = 0; i < 6000; ++i) {
    const Entry& impl = *impls[rng() % impls.size()];
    const auto h = random_history(impl, rng, i % 2 == 1);
    const bool expect = brute_force(h);
    ASSERT_EQ(checker(h), expect) << "history " << i << " of " << impl.name;
    (expect ? valid : invalid)++;
  }
  // Both kinds must be well represented, or the comparison proves little.
  EXPECT_GT(valid, 3000u);
  EXPECT_GT(invalid, 1500u);
  });
}

// The circuit test a packed instance judged on the device runs
// (backend/pack_circuit.cuh), on the host: `lanes` lanes taking turns at
// each step, as a warp's lanes run each step before the next.
bool pack_circuit_explains(const SmallHistory& h, uint32_t lanes) {
  const Entry& impl = *h.impl;
  const size_t n = h.old.size(), words = h.init.size();
  std::vector<uint64_t> from(n), to(n), init(words), fin(words);
  for (size_t o = 0; o < n; ++o) {
    from[o] = impl.canon(h.old[o]);
    to[o] = impl.canon(impl.phi(h.old[o], h.a[o], h.b[o]));
  }
  for (size_t e = 0; e < words; ++e) {
    init[e] = impl.canon(h.init[e]);
    fin[e] = impl.canon(h.fin[e]);
  }
  const pack_circuit::Edges edges{n, uint32_t(words), h.addr.data(), from.data(), to.data(), init.data(), fin.data()};
  const uint64_t slots = pack_circuit::slots(n, words);
  std::vector<uint32_t> owner(slots), parent(slots), vertex(pack_circuit::endpoints(n, words));
  std::vector<int32_t> balance(slots);
  const pack_circuit::Scratch s{owner.data(), parent.data(), balance.data(), vertex.data(), uint32_t(slots)};
  for (uint32_t lane = 0; lane < lanes; ++lane) pack_circuit::clear(s, lane, lanes);
  for (uint32_t lane = 0; lane < lanes; ++lane) EXPECT_TRUE(pack_circuit::place(edges, s, lane, lanes));
  for (uint32_t lane = 0; lane < lanes; ++lane) EXPECT_TRUE(pack_circuit::join(edges, s, lane, lanes));
  bool unexplained = false;
  for (uint32_t lane = 0; lane < lanes; ++lane) unexplained |= pack_circuit::any_unexplained(edges, s, lane, lanes);
  return !unexplained;
}

TEST(PackCircuit, AgreesWithTheCheckerOnThousandsOfHistories) {
  std::mt19937_64 rng(2026);
  const auto impls = match_impls("everything");
  size_t valid = 0, invalid = 0;
  for (int i = 0; i < 20000; ++i) {
    const Entry& impl = *impls[rng() % impls.size()];
    const auto h = random_history(impl, rng, i % 2 == 1, 1 + i % 6, 1 + i % 48);
    const bool expect = checker(h);
    ASSERT_EQ(pack_circuit_explains(h, 1), expect) << "history " << i << " of " << impl.name;
    ASSERT_EQ(pack_circuit_explains(h, 1 + uint32_t(i) % 32), expect) << "history " << i << " of " << impl.name;
    (expect ? valid : invalid)++;
  }
  EXPECT_GT(valid, 8000u);
  EXPECT_GT(invalid, 5000u);
}

RC_GTEST_PROP(Checker, ValidSequentialHistoriesAlwaysPass, (uint64_t seed)) {
  std::mt19937_64 rng(seed);
  const auto impls = match_impls("atomics");
  const Entry& impl = *impls[rng() % impls.size()];
  const auto h = random_history(impl, rng, false);
  RC_ASSERT(checker(h));
}

TEST(Checker, ExplainsALostUpdate) {
  const Entry& impl = *find_impl("native.add.i32");
  // Two ops both read 0 (a lost update): 0 -> 1 twice, final 1.
  std::vector<uint32_t> addr{0, 0};
  std::vector<uint64_t> a{1, 1}, b{0, 0}, old{0, 0}, init{0}, fin{1};
  CheckInput in{&impl, addr, a, b, old, init, fin, false, 2};
  const auto r = check_history(in);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.explanation.find("lost"), std::string::npos) << r.explanation;
}

TEST(Checker, ExplainsAValueNobodyProduced) {
  const Entry& impl = *find_impl("native.add.i32");
  std::vector<uint32_t> addr{0, 0};
  std::vector<uint64_t> a{1, 1}, b{0, 0}, old{0, 5}, init{0}, fin{2};
  CheckInput in{&impl, addr, a, b, old, init, fin, false, 2};
  const auto r = check_history(in);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.explanation.find("no operation produced"), std::string::npos) << r.explanation;
  EXPECT_EQ(r.bad_op, 1);
}

TEST(Checker, UntouchedAddressMustKeepItsValue) {
  const Entry& impl = *find_impl("cas.add.u16");
  std::vector<uint32_t> addr{0};
  std::vector<uint64_t> a{1}, b{0}, old{7}, init{7, 9}, fin{8, 0};
  CheckInput in{&impl, addr, a, b, old, init, fin, false, 1};
  const auto r = check_history(in);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.bad_addr, 1);
  EXPECT_NE(r.explanation.find("no operation targeted it"), std::string::npos);
}

TEST(Checker, FloatAddInAnyOrderIsExplained) {
  // 1e8 + 1 + -1e8 rounds differently in different orders; the history of
  // whatever order happened must pass, and one mixing two orders must not.
  const Entry& impl = *find_impl("cas.add.f32");
  const float x = 1e8f, y = 1.0f, z = -1e8f;
  std::vector<uint32_t> addr{0, 0, 0};
  std::vector<uint64_t> a{to_bits(x), to_bits(y), to_bits(z)}, b(3, 0), init{to_bits(0.0f)};
  // Order z, y, x: 0 -> -1e8 -> -1e8+1 (= -99999999 rounds to -1e8) -> 0.
  const float s1 = 0.0f + z, s2 = s1 + y, s3 = s2 + x;
  std::vector<uint64_t> old{to_bits(s2), to_bits(s1), to_bits(0.0f)}, fin{to_bits(s3)};
  CheckInput ok_in{&impl, addr, a, b, old, init, fin, false, 3};
  EXPECT_TRUE(check_history(ok_in).ok);
  std::vector<uint64_t> bad_fin{to_bits(1.0f)};
  CheckInput bad_in{&impl, addr, a, b, old, init, bad_fin, false, 3};
  EXPECT_FALSE(check_history(bad_in).ok);
}

TEST(Checker, DisconnectedCycleIsRejected) {
  // exch: 0 -> 1 (init 0, final 1), plus a cycle 5 -> 6 -> 5 never reached.
  const Entry& impl = *find_impl("native.exch.u32");
  std::vector<uint32_t> addr{0, 0, 0};
  std::vector<uint64_t> a{1, 6, 5}, b(3, 0), old{0, 5, 6}, init{0}, fin{1};
  CheckInput in{&impl, addr, a, b, old, init, fin, false, 3};
  const auto r = check_history(in);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.explanation.find("cycle"), std::string::npos) << r.explanation;
}

TEST(Checker, LargeSingleAddressHistoryPasses) {
  // 2^16 adds on one address in a scrambled order: exercises the radix sort.
  const Entry& impl = *find_impl("native.add.u32");
  const size_t n = 1 << 16;
  std::vector<uint32_t> addr(n, 0);
  std::vector<uint64_t> a(n), b(n, 0), old(n), init{100}, fin{0};
  std::mt19937_64 rng(7);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  uint32_t state = 100;
  for (size_t i = 0; i < n; ++i) a[i] = rng() % 1000;
  for (size_t o : order) {
    old[o] = state;
    state += uint32_t(a[o]);
  }
  fin[0] = state;
  CheckInput in{&impl, addr, a, b, old, init, fin, false, uint32_t(n)};
  EXPECT_TRUE(check_history(in).ok);
  old[order[n / 2]] = old[order[n / 2 + 1]];
  EXPECT_FALSE(check_history(in).ok);
}

// One word whose values lie at or above 2^63 (negative i64 and f64
// patterns), a narrow band of them first: the fast path's value bins once
// placed their window 2^63 too low there (its midpoint wrapped), and when
// the range then widened, moving the window wrote far outside its array
// (a SIGSEGV, or glibc's "free(): invalid next size": the rare worker
// deaths of native.min.i64, cas.min.f64 and sum.element@cas.add.f64 on the
// H100).
TEST(Checker, LargeSingleWordHistoriesOfTopHalfValuesPassAndCorruptionsFail) {
  on_both_fast_paths([](const char* path) {
    SCOPED_TRACE(path);
    const Entry& impl = *find_impl("native.add.u64");
    for (const uint64_t start : {0xff9ba2578a7d7000ull, 0x8000000000000000ull, 0xfffffffffff00000ull}) {
      SCOPED_TRACE(start);
      // In op order (the first pass reads it so): a narrow band of states
      // first, then steps that widen the range 2^12 and 2^16 times over.
      const size_t n = size_t(1) << 17;
      std::vector<uint32_t> addr(n, 0);
      std::vector<uint64_t> a(n), b(n, 0), old(n), init{start}, fin{0};
      for (size_t o = 0; o < n; ++o) a[o] = o % 64 == 0 ? 1 : 0;
      a[5000] = uint64_t(1) << 12;
      a[20000] = uint64_t(1) << 16;
      uint64_t state = start;
      for (size_t o = 0; o < n; ++o) {
        old[o] = state;
        state += a[o];
      }
      fin[0] = state;
      CheckInput in{&impl, addr, a, b, old, init, fin, false, uint32_t(n)};
      EXPECT_TRUE(check_history(in).ok);
      old[n / 2] = state + 1000;  // a state no op reached
      EXPECT_FALSE(check_history(in).ok);
    }
  });
}

// Whatever the values, and however the window moves as their range widens,
// every value seen falls in it, and moving it keeps every count.
RC_GTEST_PROP(ValueBins, EveryValueFallsInTheWindowAndMovingItKeepsTheCounts, (uint64_t seed)) {
  std::mt19937_64 rng(seed);
  ValueBins vb;
  const size_t n = (size_t(1) << 16) + rng() % (size_t(1) << 22);
  vb.start(n);
  // Values around a base anywhere in 64 bits (half of them at or above 2^63),
  // their spread widening block by block.
  const uint64_t base = rng();
  const unsigned first_bits = unsigned(rng() % 16), step = 1 + unsigned(rng() % 12);
  uint64_t vmin = ~uint64_t(0), vmax = 0;
  std::vector<uint64_t> seen;
  for (unsigned block = 0; block < 8; ++block) {
    const unsigned bits = std::min(63u, first_bits + block * step);
    std::vector<uint64_t> values(1 + rng() % 32);
    for (auto& v : values) {
      v = base + (rng() & ((uint64_t(1) << bits) - 1)) - (uint64_t(1) << bits) / 2;
      vmin = std::min(vmin, v);
      vmax = std::max(vmax, v);
    }
    if (block > 0 && !vb.on) break;  // (as in the fast path: once off, for good)
    vb.cover(vmin, vmax);
    if (!vb.on) break;
    RC_ASSERT(vb.cnt.size() == vb.bins);
    for (const uint64_t v : values) {
      const uint64_t i = (v >> vb.shift) - vb.lo;
      RC_ASSERT(i < vb.bins);
      ++vb.cnt[i];
      seen.push_back(v);
    }
  }
  if (!vb.on) return;
  std::vector<uint32_t> want(vb.bins, 0);
  for (const uint64_t v : seen) ++want[(v >> vb.shift) - vb.lo];
  RC_ASSERT(vb.cnt == want);
}

// The fast path's multi-bucket code (scatter, per-bucket sort, cross-bucket
// targets) only runs on large histories: valid ones of up to 2^20 ops over
// 1 to 4096 addresses must pass, and each corruption must be caught.
TEST(Checker, LargeHistoriesAcrossBucketsPassAndCorruptionsFail) {
  on_both_fast_paths([](const char* path) {
  SCOPED_TRACE(path);
  std::mt19937_64 rng(2026);
  for (const char* name : {"native.add.u32", "native.add.u64", "native.add.f32", "cas.add.f64", "native.add.i32"}) {
    const Entry& impl = *find_impl(name);
    for (auto [n, addrs] : {std::pair<size_t, uint32_t>{1 << 18, 1}, std::pair<size_t, uint32_t>{1 << 18, 64},
                            std::pair<size_t, uint32_t>{1 << 20, 4096}}) {
      std::vector<uint32_t> addr(n);
      std::vector<uint64_t> a(n), b(n, 0), old(n), init(addrs), fin(addrs);
      const bool fl = vk_is_float(impl.kind);
      for (auto& v : init) v = fl ? (impl.kind == VK::F32 ? to_bits<float>(1.0f) : to_bits<double>(1.0)) : rng() % 1000;
      for (size_t o = 0; o < n; ++o) {
        addr[o] = uint32_t(rng() % addrs);
        const double x = 1.0 + double(rng() % 100000) / 7.0;  // never zero: every state is new
        a[o] = impl.kind == VK::F32 ? to_bits<float>(float(x)) : impl.kind == VK::F64 ? to_bits<double>(x) : 1 + rng() % 1000;
      }
      // A sequential execution in a random order.
      std::vector<size_t> order(n);
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), rng);
      std::vector<uint64_t> state = init;
      for (size_t o : order) {
        old[o] = state[addr[o]];
        state[addr[o]] = impl.phi(old[o], a[o], 0);
      }
      fin = state;
      CheckInput in{&impl, addr, a, b, old, init, fin, false, uint32_t(n)};
      ASSERT_TRUE(check_history(in).ok) << name << " n=" << n << " addrs=" << addrs << ": " << check_history(in).explanation;
      // A lost update: one op read what another op at its address read.
      const size_t o1 = order[n / 3];
      size_t o2 = o1 + 1;
      while (addr[o2 % n] != addr[o1]) ++o2;
      o2 %= n;
      std::vector<uint64_t> bad = old;
      bad[o2] = old[o1];
      in.old = bad;
      EXPECT_FALSE(check_history(in).ok) << name << " lost update, n=" << n << " addrs=" << addrs;
      // A value nobody produced.
      bad = old;
      bad[order[n - 7]] ^= 0x10;
      EXPECT_FALSE(check_history(in).ok) << name << " stray value, n=" << n << " addrs=" << addrs;
      // A wrong final value.
      in.old = old;
      std::vector<uint64_t> bad_fin = fin;
      bad_fin[addrs - 1] ^= 1;
      in.final_mem = bad_fin;
      EXPECT_FALSE(check_history(in).ok) << name << " final value, n=" << n << " addrs=" << addrs;
    }
  }
  });
}

namespace {

// Histories of up to a few thousand ops, too long for the brute force, shaped
// for the fast path's shortcuts: monotone chains (adds of non-negative
// values, max, inc), self-loops (adds of zero), interleaved and non-monotone
// ones, then corrupted in ways that touch a chain's inside.
// Where a history's ops go and the order they ran in: addresses uniform over
// [lo, lo + span) of a memory of words words, but hot percent of them on lo;
// order 0 random, 1 the ops' own order, 2 its reverse.  far: the initial
// values far from the operands.
struct Spread {
  uint32_t words, lo = 0, span = words;
  unsigned hot = 0, order = 0;
  bool far = false;
};

SmallHistory medium_history(const Entry& impl, std::mt19937_64& rng, size_t n, const Spread& sp) {
  SmallHistory h;
  h.impl = &impl;
  const uint32_t elems = sp.words;
  const unsigned mode = rng() % 4;  // 0 small >= 0, 1 with many zeros, 2 signed, 3 wide
  auto operand = [&]() -> uint64_t {
    int64_t x = int64_t(rng() % 100);
    if (mode == 1 && rng() % 3 == 0) x = 0;
    if (mode == 2) x -= 50;
    if (mode == 3) x = int64_t(rng() % 1000000);
    switch (impl.kind) {
      case VK::F32: return to_bits<float>(float(x) * 0.25f);
      case VK::F64: return to_bits<double>(double(x) * 0.25);
      case VK::I32: case VK::U32: return uint64_t(uint32_t(int32_t(x)));
      default: return uint64_t(x);
    }
  };
  for (uint32_t e = 0; e < elems; ++e)
    h.init.push_back(sp.far ? operand() ^ (uint64_t(1) << (vk_bytes(impl.kind) * 8 - 2)) : operand());
  for (size_t o = 0; o < n; ++o) {
    h.addr.push_back(rng() % 100 < sp.hot ? sp.lo : sp.lo + uint32_t(rng() % sp.span));
    h.a.push_back(operand());
    h.b.push_back(operand());
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (sp.order == 0) std::shuffle(order.begin(), order.end(), rng);
  if (sp.order == 2) std::reverse(order.begin(), order.end());
  h.fin = h.init;
  h.old.assign(n, 0);
  for (size_t o : order) {
    h.old[o] = h.fin[h.addr[o]];
    h.fin[h.addr[o]] = impl.phi(h.old[o], h.a[o], h.b[o]);
  }
  const size_t x = rng() % n, y = rng() % n;
  switch (rng() % 6) {
    case 0: break;  // valid
    case 1: h.old[x] = h.old[y]; break;  // a lost update (or a no-op)
    case 2: h.old[x] ^= uint64_t(1) << (rng() % 3); break;  // a value nobody produced
    case 3: std::swap(h.old[x], h.old[y]); break;
    case 4: h.fin[h.addr[y]] = h.old[x]; break;  // a wrong final value, if it differs
    default:  // one more op reads a value from inside a chain
      h.addr.push_back(h.addr[x]);
      h.a.push_back(h.a[y]);
      h.b.push_back(h.b[y]);
      h.old.push_back(h.old[x]);
  }
  return h;
}

// The fast path against the message-producing checker, each alone, on
// history i: they must agree on every history the fast path covers (every
// state within 60 bits), and check_history must give the latter's verdict.
// valid: the reference's verdict.
void fast_agrees_with_reference(const SmallHistory& h, int i, bool& valid) {
  const Entry& impl = *h.impl;
  const CheckInput in = input_of(h);
  const CheckResult ref = check_history_reference(in);
  const bool fast = check_history_fast(in);
  const bool covered =
      vk_bytes(impl.kind) <= 4 || std::all_of(h.old.begin(), h.old.end(), [](uint64_t v) { return v >> 60 == 0; });
  valid = ref.ok;
  ASSERT_EQ(check_history(in).ok, ref.ok) << "history " << i << " of " << impl.name;
  if (fast) {
    ASSERT_TRUE(ref.ok) << "fast path accepts history " << i << " of " << impl.name;
  }
  if (covered && ref.ok) {
    ASSERT_TRUE(fast) << "fast path rejects valid history " << i << " of " << impl.name;
  }
}

}  // namespace

// The fast path against the message-producing checker on thousands of
// medium histories, a few long enough to cross its buckets.
TEST(Checker, FastPathAgreesWithReferenceOnMediumHistories) {
  on_both_fast_paths([](const char* path) {
    SCOPED_TRACE(path);
    std::mt19937_64 rng(4242);
    const char* names[] = {"native.add.u32", "native.add.i32", "native.add.u64", "cas.add.f32", "cas.add.f64",
                           "native.max.u32", "native.inc.u32", "native.exch.u32", "native.or.u32", "cas.mul.i32"};
    size_t valid = 0, invalid = 0;
    for (int i = 0; i < 4000; ++i) {
      const Entry& impl = *find_impl(names[rng() % std::size(names)]);
      // A few long ones: chains across the fast path's buckets.
      const size_t n = i % 200 == 0 ? 20000 + rng() % 60000 : 1 + rng() % 600;
      const uint32_t elems = i % 3 == 0 ? 1 + uint32_t(rng() % 40) : 1 + uint32_t(rng() % 3);
      const SmallHistory h = medium_history(impl, rng, n, Spread{elems});
      bool ok = false;
      ASSERT_NO_FATAL_FAILURE(fast_agrees_with_reference(h, i, ok));
      (ok ? valid : invalid)++;
    }
    EXPECT_GT(valid, 1000u);
    EXPECT_GT(invalid, 1000u);
  });
}

// The fast path finds the address range in its first pass and leaves an op
// outside memory to check_history, which names the first such op.
TEST(Checker, OpOutsideMemoryIsNamed) {
  const Entry& impl = *find_impl("native.add.u32");
  std::vector<uint32_t> addr{0, 1, 0, 7, 9};
  std::vector<uint64_t> a{1, 1, 1, 1, 1}, b(5, 0), old{0, 0, 1, 0, 0}, init{0, 0}, fin{2, 1};
  CheckInput in{&impl, addr, a, b, old, init, fin, false, 0};
  EXPECT_FALSE(check_history_fast(in));
  const CheckResult r = check_history(in);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.bad_op, 3);
  EXPECT_NE(r.explanation.find("op #3 targets element 7 outside the trial's memory"), std::string::npos) << r.explanation;
  addr[3] = 1;
  addr[4] = 1;
  old = {0, 0, 1, 1, 2};
  fin = {2, 3};
  in.addr = addr;
  in.old = old;
  in.final_mem = fin;
  EXPECT_TRUE(check_history(in).ok);
  EXPECT_TRUE(check_history_fast(in));
}

// The fast path's first pass counts ops per address bin (many words) or per
// value bin (one word) and lets them stand in for its fine histogram: ranges
// that start off a bin's edge, values that widen the window block by block
// (ops in their own order, or reversed), initial values far from the ops, a
// hot address that overfills its bin.  The verdicts must not change.
TEST(Checker, FastPathFirstPassBinsAgreeWithReference) {
  on_both_fast_paths([](const char* path) {
    SCOPED_TRACE(path);
    std::mt19937_64 rng(77);
    const char* names[] = {"native.add.u32", "native.add.i32", "native.add.u64", "cas.add.f32",
                           "cas.add.f64",    "native.max.u32", "native.inc.u32", "native.exch.u64"};
    size_t valid = 0, invalid = 0;
    for (int i = 0; i < 32; ++i) {
      const Entry& impl = *find_impl(names[rng() % std::size(names)]);
      const size_t n = 65536 + rng() % 70000;
      Spread sp{1};
      sp.order = unsigned(i / 4 % 3);
      if (i % 4 == 1) sp.far = true;
      if (i % 4 >= 2) {
        sp.words = 3000 + uint32_t(rng() % 100000);
        sp.lo = 1 + uint32_t(rng() % (sp.words / 2));
        sp.span = 1 + uint32_t(rng() % (sp.words - sp.lo));
        sp.hot = i % 4 == 3 ? 60 : 0;
      }
      const SmallHistory h = medium_history(impl, rng, n, sp);
      bool ok = false;
      ASSERT_NO_FATAL_FAILURE(fast_agrees_with_reference(h, i, ok));
      (ok ? valid : invalid)++;
    }
    EXPECT_GT(valid, 8u);
    EXPECT_GT(invalid, 8u);
  });
}
