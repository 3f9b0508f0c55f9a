// The GPU checker against the CPU checker (check_history) and a brute-force
// search over every order; the resident path; packed instances.  Exits 77 (CTest: skipped) where no CUDA device
// is usable.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <optional>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "harness/backend/backend.hpp"
#include "harness/backend/cuda/resident.hpp"
#include "harness/backend/device_expansion.hpp"
#include "harness/backend/packed.hpp"
#include "harness/pipeline/run_packed.hpp"
#include "harness/pipeline/run_trial.hpp"
#include "harness/check/checker.hpp"
#include "test_support.hpp"
#include "harness/check/gpu_checker.hpp"
#include "harness/registry/bits.hpp"
#include "harness/workload/workload.hpp"

using namespace atomstress;
namespace gc = atomstress::gpu_check;

namespace {

using Hist = atomstress::testing::ArrayHistory;
using atomstress::testing::input_of;

// A state as the CPU checker compares it: canonical, 32-bit kinds in 32 bits.
uint64_t state(const Entry& impl, uint64_t bits) {
  const uint64_t c = impl.canon(bits);
  return vk_bytes(impl.kind) <= 4 ? uint64_t(uint32_t(c)) : c;
}

// One checker for the whole suite (its scratch grows and is reused: that is
// tested too).  Leaked on purpose: no CUDA calls after main returns.
gc::Checker& gpu() {
  static gc::Checker* c = new gc::Checker;
  return *c;
}

gc::Verdict gpu_verdict(const Hist& h) {
  const Entry& impl = *h.impl;
  const size_t n = h.addr.size();
  std::vector<uint64_t> from(n), to(n), init(h.init.size()), fin(h.fin.size());
  for (size_t o = 0; o < n; ++o) {
    from[o] = state(impl, h.old[o]);
    to[o] = state(impl, impl.phi_in(false)(h.old[o], h.a[o], h.b[o]));
  }
  for (size_t e = 0; e < init.size(); ++e) {
    init[e] = state(impl, h.init[e]);
    fin[e] = state(impl, h.fin[e]);
  }
  gc::Verdict v;
  std::string err;
  EXPECT_TRUE(gc::check_host_arrays(gpu(), h.addr, from, to, init, fin, v, err)) << err;
  return v;
}

// GPU and CPU agree: the verdict, and the failing element (both report the
// smallest one; the CPU walks the elements in order and stops at the first).
// Returns the CPU's verdict.
bool agree(const Hist& h, const std::string& what) {
  const CheckResult cpu = check_history(input_of(h));
  const gc::Verdict g = gpu_verdict(h);
  EXPECT_EQ(g.ok, cpu.ok) << what << " (" << h.impl->name << ", " << h.addr.size() << " ops, " << h.init.size()
                          << " elements): " << cpu.explanation;
  if (!cpu.ok && !g.ok) {
    EXPECT_EQ(g.bad_addr, cpu.bad_addr) << what << " (" << h.impl->name << "): " << cpu.explanation;
  }
  return cpu.ok;
}

uint64_t width_mask(const Entry& impl) {
  const unsigned bytes = vk_bytes(impl.kind);
  return bytes >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * bytes)) - 1;
}

// Values: a small pool (wrong histories are then often nearly right, and
// float adds round differently in different orders), or the kind's full
// width.
uint64_t value(const Entry& impl, std::mt19937_64& rng, bool wide) {
  if (impl.kind == VK::F32) {
    static const float pool[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 3e7f, -3e7f, 1e8f, -1e8f, 1.0f / 3, 1e-40f, INFINITY};
    if (wide && rng() % 2) return rng() & 0xffffffffu;
    return to_bits(pool[rng() % std::size(pool)]);
  }
  if (impl.kind == VK::F64) {
    static const double pool[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e16, -1e16, 1.0 / 3, 1e-310, -INFINITY};
    if (wide && rng() % 2) return rng();
    return to_bits(pool[rng() % std::size(pool)]);
  }
  if (impl.kind == VK::F16 || impl.kind == VK::BF16) {
    if (wide && rng() % 2) return rng() & 0xffffu;
    return atomstress::testing::half_pool_value(impl.kind, rng());
  }
  const auto sv = special_values(impl.kind, impl.domain);
  if (!sv.empty() && rng() % 4 == 0) return sv[rng() % sv.size()] & width_mask(impl);
  if (wide) return rng() & width_mask(impl);
  return impl.domain == Domain::IncDec ? rng() % 4 : (rng() % 5) & width_mask(impl);
}

// A valid history: a random sequential order executed per address.
// last_op[e]: the op that wrote e's final value (-1: untouched).
Hist valid_history(const Entry& impl, std::mt19937_64& rng, size_t n, size_t elems, bool wide,
                   std::vector<int64_t>* last_op = nullptr, bool allow_sparse = true) {
  Hist h;
  h.impl = &impl;
  for (size_t e = 0; e < elems; ++e) h.init.push_back(value(impl, rng, wide));
  h.fin = h.init;
  // Sparse memories: the ops on a few of the elements.
  const size_t span = allow_sparse && elems > 1000 && rng() % 2 ? std::min<size_t>(elems, 1 + rng() % 64) : elems;
  std::vector<uint32_t> targets(span);
  for (auto& t : targets) t = uint32_t(rng() % elems);
  if (span == elems) std::iota(targets.begin(), targets.end(), 0u);
  for (size_t o = 0; o < n; ++o) {
    h.addr.push_back(targets[rng() % span]);
    h.a.push_back(value(impl, rng, wide));
    h.b.push_back(value(impl, rng, wide));
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  h.old.assign(n, 0);
  if (last_op) last_op->assign(elems, -1);
  for (size_t o : order) {
    h.old[o] = h.fin[h.addr[o]];
    h.fin[h.addr[o]] = impl.phi(h.old[o], h.a[o], h.b[o]);
    if (last_op) (*last_op)[h.addr[o]] = int64_t(o);
  }
  return h;
}

// Two ops X -> Y -> X at element e with fresh X, Y, if this kind has a way:
// exchange (a = Y, a = X), wrapping add (d, -d) or xor (d, d).
bool add_unreachable_cycle(Hist& h, std::mt19937_64& rng, uint32_t e) {
  const Entry& impl = *h.impl;
  const uint64_t m = width_mask(impl);
  for (int attempt = 0; attempt < 8; ++attempt) {
    const uint64_t x = rng() & m, d = (rng() | 1) & m, y = (x + d) & m;
    const std::pair<uint64_t, uint64_t> forms[] = {{y, x}, {d, (0 - d) & m}, {d, d}};
    for (const auto& [a1, a2] : forms) {
      const uint64_t s1 = impl.phi(x, a1, 0);
      if (state(impl, s1) == state(impl, x) || state(impl, impl.phi(s1, a2, 0)) != state(impl, x)) continue;
      h.addr.insert(h.addr.end(), {e, e});
      h.a.insert(h.a.end(), {a1, a2});
      h.b.insert(h.b.end(), {0, 0});
      h.old.insert(h.old.end(), {x, s1});
      return true;
    }
  }
  return false;
}

// One of the corruptions a broken atomic leaves.
void corrupt(Hist& h, std::mt19937_64& rng, bool wide, const std::vector<int64_t>& last_op) {
  const size_t n = h.addr.size(), elems = h.init.size();
  const Entry& impl = *h.impl;
  switch (rng() % 7) {
    case 0:  // a wrong returned value
      if (n) h.old[rng() % n] = rng() % 2 ? value(impl, rng, wide) : (h.old[rng() % n] ^ 1) & width_mask(impl);
      return;
    case 1: {  // two returned values swapped, across addresses where possible
      if (n < 2) break;
      size_t x = rng() % n, y = rng() % n;
      for (int t = 0; t < 16 && h.addr[x] == h.addr[y]; ++t) y = rng() % n;
      std::swap(h.old[x], h.old[y]);
      return;
    }
    case 2: {  // the last update dropped: final is what the last op read
      if (!n) break;
      const uint32_t e = h.addr[rng() % n];
      h.fin[e] = h.old[size_t(last_op[e])];
      return;
    }
    case 3: {  // an untouched element changed
      std::vector<bool> touched(elems);
      for (uint32_t a : h.addr) touched[a] = true;
      for (int t = 0; t < 32; ++t) {
        const size_t e = rng() % elems;
        if (!touched[e]) {
          h.fin[e] = (h.fin[e] ^ (uint64_t(1) << (rng() % 8))) & width_mask(impl);
          return;
        }
      }
      h.fin[rng() % elems] = value(impl, rng, wide);
      return;
    }
    case 4: {  // a lost update: one op read what another read
      if (n < 2) break;
      const size_t x = rng() % n;
      size_t y = rng() % n;
      for (int t = 0; t < 16 && h.addr[x] != h.addr[y]; ++t) y = rng() % n;
      h.old[x] = h.old[y];
      return;
    }
    case 5:  // a cycle the initial value never reaches
      if (add_unreachable_cycle(h, rng, n ? h.addr[rng() % n] : uint32_t(rng() % elems))) return;
      break;
    default:  // two elements wrong: the smallest must be named
      if (n < 2) break;
      h.old[rng() % n] = value(impl, rng, wide);
      h.old[rng() % n] = value(impl, rng, wide);
      return;
  }
  h.fin[rng() % elems] = value(impl, rng, wide);
}

const Entry& pick_impl(std::mt19937_64& rng) {
  static const char* named[] = {"native.add.u64", "cas.add.f32",  "native.exch.u64", "native.add.i32",
                                "native.add.f32", "cas.add.f64",  "native.xor.u64",  "native.cas.u64",
                                "native.max.u32", "cas.add.u16",  "native.inc.u32",  "cas.mul.f32",
                                "native.exch.u32", "native.min.i64", "native.and.u64", "cas.max.f32"};
  if (rng() % 4) {
    const Entry* i = find_impl(named[rng() % std::size(named)]);
    EXPECT_NE(i, nullptr);
    if (i) return *i;
  }
  static const auto all = match_impls("everything");
  return *all[rng() % all.size()];
}

// An edge list as a history the CPU checks: native.exch.u64 writes its
// operand, so op (old = from, a = to) is the edge from -> to.
Hist edges(std::vector<uint64_t> init, std::vector<uint64_t> fin,
           const std::vector<std::tuple<uint32_t, uint64_t, uint64_t>>& es) {
  Hist h;
  h.impl = find_impl("native.exch.u64");
  EXPECT_NE(h.impl, nullptr);
  h.init = std::move(init);
  h.fin = std::move(fin);
  for (const auto& [e, f, t] : es) {
    h.addr.push_back(e);
    h.old.push_back(f);
    h.a.push_back(t);
    h.b.push_back(0);
  }
  return h;
}

// Check the history both ways; the verdict must also be the expected one.
void expect_verdict(const Hist& h, bool ok, int64_t bad_addr, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(agree(h, what), ok);
  const gc::Verdict g = gpu_verdict(h);
  EXPECT_EQ(g.ok, ok);
  EXPECT_EQ(g.bad_addr, ok ? -1 : bad_addr);
}

}  // namespace

// 1. Thousands of random histories, valid and corrupted, against the CPU.
TEST(GpuChecker, AgreesWithCpuCheckerOnThousandsOfHistories) {
  std::mt19937_64 rng(20240611);
  size_t compared = 0, valid = 0, invalid = 0, big = 0;
  for (int i = 0; i < 5000; ++i) {
    const Entry& impl = pick_impl(rng);
    const bool wide = rng() % 2;
    const unsigned r = unsigned(rng() % 10);
    const size_t n = r < 4 ? rng() % 17 : r < 8 ? rng() % 301 : rng() % 3001;
    const unsigned s = unsigned(rng() % 10);
    const size_t elems = s == 0 ? 1 + rng() % 100000 : s == 1 ? 1 + rng() % 4 : 1 + rng() % 64;
    std::vector<int64_t> last_op;
    Hist h = valid_history(impl, rng, n, elems, wide, &last_op);
    const bool corrupted = i % 2 == 1;
    if (corrupted) corrupt(h, rng, wide, last_op);
    const bool ok = agree(h, "history " + std::to_string(i) + (corrupted ? " (corrupted)" : " (valid)"));
    if (!corrupted) {
      EXPECT_TRUE(ok) << "a sequential execution must pass";
    }
    (ok ? valid : invalid)++;
    big += n > 300;
    ++compared;
    if (::testing::Test::HasFailure()) break;
  }
  std::printf("GPU and CPU checkers compared on %zu histories (%zu explained, %zu not, %zu of over 300 ops)\n",
              compared, valid, invalid, big);
  EXPECT_GT(valid, 2500u);
  EXPECT_GT(invalid, 1500u);
}

// Random multigraphs on a few states per element (exchange ops): many
// unbalanced ones, many balanced but disconnected ones.
TEST(GpuChecker, AgreesWithCpuCheckerOnRandomGraphs) {
  std::mt19937_64 rng(77);
  size_t compared = 0, valid = 0;
  for (int i = 0; i < 4000; ++i) {
    const size_t elems = 1 + rng() % 4, k = 1 + rng() % 4, m = rng() % 12;
    const bool wide = rng() % 2;
    std::vector<uint64_t> states(k);
    for (auto& x : states) x = wide ? rng() : rng() % 8;
    if (wide && rng() % 3 == 0) states[0] = ~uint64_t(0), states[k - 1] = 0;
    std::vector<uint64_t> init(elems), fin(elems);
    for (size_t e = 0; e < elems; ++e) init[e] = states[rng() % k], fin[e] = states[rng() % k];
    std::vector<std::tuple<uint32_t, uint64_t, uint64_t>> es;
    // Half of them built as a walk from init (then often valid), the rest random.
    for (size_t e = 0; e < elems; ++e) {
      uint64_t cur = init[e];
      const size_t len = rng() % (m + 1);
      for (size_t j = 0; j < len; ++j) {
        const uint64_t nx = states[rng() % k];
        const uint64_t f = rng() % 2 ? cur : states[rng() % k];
        es.emplace_back(uint32_t(e), f, nx);
        cur = nx;
      }
      if (rng() % 2) fin[e] = cur;
    }
    std::shuffle(es.begin(), es.end(), rng);
    valid += agree(edges(init, fin, es), "graph " + std::to_string(i));
    ++compared;
    if (::testing::Test::HasFailure()) break;
  }
  std::printf("GPU and CPU checkers compared on %zu random graphs (%zu explained)\n", compared, valid);
  EXPECT_GT(valid, 300u);
  EXPECT_LT(valid, compared - 300);
}

// 2. Tiny histories against a search over every order.
namespace {
bool brute_force(const Hist& h) { return atomstress::testing::brute_force_explains(input_of(h)); }
}  // namespace

TEST(GpuChecker, AgreesWithBruteForceOnTinyHistories) {
  std::mt19937_64 rng(4242);
  size_t valid = 0, invalid = 0;
  for (int i = 0; i < 3000; ++i) {
    const Entry& impl = pick_impl(rng);
    const bool wide = rng() % 4 == 0;
    std::vector<int64_t> last_op;
    Hist h = valid_history(impl, rng, rng() % 8, 1, wide, &last_op);
    if (i % 2) corrupt(h, rng, wide, last_op);
    if (h.addr.size() > 7) continue;  // a cycle added to 6 or 7 ops
    const bool expect = brute_force(h);
    const gc::Verdict g = gpu_verdict(h);
    ASSERT_EQ(g.ok, expect) << "history " << i << " of " << impl.name << ", " << h.addr.size() << " ops";
    EXPECT_EQ(g.bad_addr, expect ? -1 : 0);
    EXPECT_EQ(check_history(input_of(h)).ok, expect);
    (expect ? valid : invalid)++;
  }
  std::printf("GPU checker against brute force: %zu explained, %zu not\n", valid, invalid);
  EXPECT_GT(valid, 1000u);
  EXPECT_GT(invalid, 700u);
}

// 3. Edge cases.
TEST(GpuChecker, ZeroOps) {
  expect_verdict(edges({}, {}, {}), true, -1, "no memory, no ops");
  expect_verdict(edges({1, 2, 3}, {1, 2, 3}, {}), true, -1, "nothing changed");
  expect_verdict(edges({1, 2, 3, 4}, {1, 9, 3, 5}, {}), false, 1, "untouched elements changed");
}

TEST(GpuChecker, UntouchedElementChanged) {
  expect_verdict(edges({0, 7, 0, 8}, {1, 7, 1, 9}, {{0, 0, 1}, {2, 0, 1}}), false, 3, "element 3 untouched, changed");
  expect_verdict(edges({0, 7, 0}, {1, 6, 2}, {{0, 0, 1}, {2, 0, 1}}), false, 1, "element 1 untouched, changed");
}

TEST(GpuChecker, CircuitsWhereFinalIsInitial) {
  expect_verdict(edges({5}, {5}, {{0, 5, 7}, {0, 7, 5}}), true, -1, "5 -> 7 -> 5");
  expect_verdict(edges({5}, {5}, {{0, 5, 7}, {0, 9, 5}, {0, 7, 5}, {0, 5, 9}}), true, -1, "two loops through 5");
  expect_verdict(edges({5}, {7}, {{0, 5, 7}, {0, 7, 5}}), false, 0, "a circuit, but the final value is 7");
  expect_verdict(edges({5}, {5}, {{0, 7, 8}, {0, 8, 7}}), false, 0, "a circuit that does not pass through 5");
}

TEST(GpuChecker, SelfLoops) {
  expect_verdict(edges({5}, {5}, {{0, 5, 5}}), true, -1, "5 -> 5");
  expect_verdict(edges({5}, {6}, {{0, 5, 5}}), false, 0, "5 -> 5, final 6");
  expect_verdict(edges({5}, {6}, {{0, 5, 6}, {0, 6, 6}, {0, 6, 6}}), true, -1, "self-loops at the final value");
  expect_verdict(edges({5}, {6}, {{0, 5, 6}, {0, 9, 9}}), false, 0, "a self-loop nobody reaches");
  expect_verdict(edges({5, 9}, {6, 9}, {{0, 5, 6}, {1, 9, 9}, {1, 9, 9}}), true, -1, "self-loops at init");
}

TEST(GpuChecker, FinalValueNobodyRead) {
  expect_verdict(edges({1}, {2}, {{0, 1, 2}}), true, -1, "1 -> 2");
  expect_verdict(edges({1}, {3}, {{0, 1, 2}}), false, 0, "1 -> 2, final 3");
  expect_verdict(edges({1}, {2}, {{0, 1, 2}, {0, 1, 2}}), false, 0, "a lost update");
  expect_verdict(edges({1}, {1}, {{0, 1, 2}}), false, 0, "2 never read, final 1");
}

TEST(GpuChecker, FullWidthStates) {
  const uint64_t top = ~uint64_t(0), half = uint64_t(1) << 63;
  // One element: 64-bit packed keys spanning the whole range.
  expect_verdict(edges({top}, {half}, {{0, top, 0}, {0, 0, half}}), true, -1, "~0 -> 0 -> 2^63");
  expect_verdict(edges({top}, {half}, {{0, top, 0}, {0, 0, top}, {0, top, half}}), true, -1, "~0 -> 0 -> ~0 -> 2^63");
  expect_verdict(edges({top}, {half}, {{0, top, 0}, {0, top, half}}), false, 0, "~0 read twice");
  // Several elements: 96-bit keys.
  std::vector<std::tuple<uint32_t, uint64_t, uint64_t>> es;
  std::vector<uint64_t> init, fin;
  for (uint32_t e = 0; e < 40; ++e) {
    init.push_back(e % 2 ? top : 0);
    fin.push_back(e % 3 ? half : init.back());
    if (init.back() != fin.back()) es.emplace_back(e, init.back(), fin.back());
  }
  expect_verdict(edges(init, fin, es), true, -1, "40 elements, states 0, 2^63, ~0");
  auto es2 = es;
  std::get<2>(es2[17]) = top - 1;  // its element's final value never written
  const uint32_t bad = std::get<0>(es2[17]);
  expect_verdict(edges(init, fin, es2), false, bad, "one final value not written");
  // States that agree in the low 32 bits only, and differ only in bit 63.
  expect_verdict(edges({0, 0}, {half, 1}, {{1, 0, 1}, {0, 0, half}}), true, -1, "bit 63");
  expect_verdict(edges({0, 0}, {half, 1}, {{1, 0, 1}, {0, 0, half | 1}}), false, 0, "bit 63 and bit 0");
  expect_verdict(edges({0, 0}, {1, 0}, {{0, 0, uint64_t(1) << 32}, {0, uint64_t(1) << 32, 1}, {1, half, half}}),
                 false, 1, "a self-loop at 2^63 nobody reaches, element 1");
}

TEST(GpuChecker, OpOutsideTheMemory) {
  const Hist h = edges({0}, {1}, {{0, 0, 1}, {3, 0, 1}});
  const gc::Verdict g = gpu_verdict(h);
  EXPECT_FALSE(g.ok);
  EXPECT_EQ(g.bad_addr, -1);
  EXPECT_FALSE(check_history(input_of(h)).ok);
}

TEST(GpuChecker, AMillionAddresses) {
  std::mt19937_64 rng(1);
  const Entry& impl = *find_impl("native.add.u32");
  std::vector<int64_t> last_op;
  Hist h = valid_history(impl, rng, size_t(1) << 21, size_t(1) << 20, true, &last_op, false);
  agree(h, "2^20 elements, valid");
  EXPECT_TRUE(gpu_verdict(h).ok);
  // A lost update at the first element from 777777 on with an op that is no
  // self-loop (x) and one that read another value (y): x then reads what y
  // read, which unbalances the element.  A wrong value above it.
  std::vector<std::vector<size_t>> ops_at(h.init.size());
  for (size_t o = 0; o < h.addr.size(); ++o) ops_at[h.addr[o]].push_back(o);
  size_t e1 = 777777, x = 0, y = 0;
  for (;; ++e1) {
    ASSERT_LT(e1, size_t(900000));
    const auto& v = ops_at[e1];
    const auto ix = std::find_if(v.begin(), v.end(), [&](size_t o) { return impl.phi(h.old[o], h.a[o], h.b[o]) != h.old[o]; });
    if (ix == v.end()) continue;
    const auto iy = std::find_if(v.begin(), v.end(), [&](size_t o) { return h.old[o] != h.old[*ix]; });
    if (iy == v.end()) continue;
    x = *ix;
    y = *iy;
    break;
  }
  size_t e2 = 900001;
  while (ops_at[e2].empty()) ++e2;
  Hist c = h;
  c.old[x] = c.old[y];
  c.old[ops_at[e2].front()] ^= 4;
  agree(c, "2^20 elements, two corrupted");
  EXPECT_EQ(gpu_verdict(c).bad_addr, int64_t(e1));
  // An untouched element changed below them.
  std::vector<bool> touched(h.init.size());
  for (uint32_t a : h.addr) touched[a] = true;
  const size_t u = size_t(std::find(touched.begin(), touched.end(), false) - touched.begin());
  ASSERT_LT(u, touched.size());
  c.fin[u] ^= 1;
  agree(c, "2^20 elements, an untouched one changed");
  EXPECT_EQ(gpu_verdict(c).bad_addr, int64_t(std::min(u, e1)));
}

TEST(GpuChecker, LargeHotHistories) {
  std::mt19937_64 rng(2);
  for (const char* name : {"native.add.i32", "cas.add.f32", "native.exch.u64"}) {
    SCOPED_TRACE(name);
    const Entry& impl = *find_impl(name);
    std::vector<int64_t> last_op;
    Hist h = valid_history(impl, rng, size_t(1) << 22, 1, std::string(name) != "native.add.i32", &last_op);
    EXPECT_TRUE(agree(h, "2^22 ops, one element, valid"));
    EXPECT_TRUE(gpu_verdict(h).ok);
    Hist c = h;  // a lost update
    const size_t x = rng() % c.addr.size(), y = rng() % c.addr.size();
    c.old[x] = c.old[y];
    agree(c, "2^22 ops, one element, a lost update");
    Hist d = h;  // the last update dropped
    d.fin[0] = d.old[size_t(last_op[0])];
    const bool dropped_no_op = d.fin[0] == h.fin[0];
    EXPECT_EQ(agree(d, "2^22 ops, one element, the last update dropped"), dropped_no_op);
  }
}

TEST(GpuChecker, LargeWideHistories) {
  // Full-width 64-bit states at 1000 elements: the 96-bit keys.
  std::mt19937_64 rng(3);
  const Entry& impl = *find_impl("native.add.u64");
  std::vector<int64_t> last_op;
  Hist h = valid_history(impl, rng, size_t(1) << 22, 1000, true, &last_op);
  EXPECT_TRUE(agree(h, "2^22 ops, 1000 elements, 64-bit states, valid"));
  for (int k = 0; k < 4; ++k) {
    Hist c = h;
    corrupt(c, rng, true, last_op);
    agree(c, "2^22 ops, 1000 elements, 64-bit states, corrupted");
  }
  // An unreachable cycle at element 999 and a lost update at element 500.
  Hist c = h;
  ASSERT_TRUE(add_unreachable_cycle(c, rng, 999));
  agree(c, "an unreachable cycle");
  EXPECT_EQ(gpu_verdict(c).bad_addr, 999);
  const size_t none = ~size_t(0);
  size_t x = none, y = none;
  for (size_t o = 0; o < h.addr.size(); ++o) {
    if (h.addr[o] != 500) continue;
    if (x == none) x = o;
    else if (h.old[o] != h.old[x]) y = o;
  }
  ASSERT_TRUE(x != none && y != none);
  c.old[x] = c.old[y];
  agree(c, "an unreachable cycle and a lost update");
  EXPECT_EQ(gpu_verdict(c).bad_addr, 500);
}

TEST(GpuChecker, MaxOps) {
  const uint64_t m = gpu().max_ops();
  EXPECT_GT(m, uint64_t(1) << 22);
  EXPECT_LE(m, uint64_t(1) << 28);
}

// ------------------------------------------------- the resident path
// (harness/backend/cuda/resident.hpp: expanded, run and checked on the device)

// A small random trial of `impl`, or nullopt where its limits refuse it.
std::optional<TrialSpec> random_spec(const Entry& impl, std::mt19937_64& rng) {
  TrialSpec s;
  s.impl = impl.name;
  s.grid = 1 + rng() % 6;
  s.block = 1 + rng() % 256;
  s.ops_per_thread = 1 + rng() % 4;
  s.pattern = Pattern(rng() % kNumPatterns);
  s.k = 1 + rng() % 64;
  s.zipf_s = 1 + rng() % 4;
  s.space = rng() % 3 == 0 ? Space::Shared : Space::Global;
  s.dist = rng() % 2 ? Dist::Full : Dist::Small;
  s.special_permille = std::array<uint32_t, 4>{0, 0, 50, 500}[rng() % 4];
  s.init = rng() % 4 == 0 ? Init::Zero : Init::Random;
  s.seed = rng();
  std::string err;
  if (!expand_shape(s, err)) return std::nullopt;
  return s;
}

std::vector<const Entry*> single_atomics(bool with_buggy) {
  std::vector<const Entry*> out;
  for (const Entry& e : catalogue())
    if (!e.algo && e.run_cuda && (with_buggy || !e.buggy())) out.push_back(&e);
  return out;
}

TEST(Resident, DeviceOracleAgreesWithHostPhi) {
  size_t checked = 0;
  for (const Entry* e : single_atomics(true)) {
    if (!e->device_edges) continue;
    std::string why;
    EXPECT_TRUE(cuda::device_oracle_agrees(*e, why)) << why;
    ++checked;
  }
  EXPECT_GT(checked, 40u);
}

// A workload's inputs, made on the device and copied back, against the
// host's expansion of the same spec.
void expect_same_inputs(const Workload& device, const Workload& host) {
  EXPECT_EQ(device.addr, host.addr) << describe(host.spec);
  EXPECT_EQ(device.a, host.a) << describe(host.spec);
  EXPECT_EQ(device.b, host.b) << describe(host.spec);
  EXPECT_EQ(device.init, host.init) << describe(host.spec);
}

TEST(Resident, DeviceExpansionIsTheHostExpansion) {
  std::mt19937_64 rng(7);
  size_t compared = 0;
  for (const Entry* e : single_atomics(false)) {
    for (int i = 0; i < 12; ++i) {
      const auto spec = random_spec(*e, rng);
      if (!spec) continue;
      std::string err;
      auto shape = expand_shape(*spec, err);
      ASSERT_TRUE(shape) << err;
      auto setup = e->family->setup(*shape, err);
      ASSERT_TRUE(setup) << err;
      RunOptions o;
      History h;
      h.home = HistoryHome::Device;
      ASSERT_TRUE(run_workload(*shape, *setup, BackendKind::Cuda, o, h, err)) << describe(*spec) << ": " << err;
      ASSERT_EQ(h.home, HistoryHome::Device) << describe(*spec);
      ASSERT_TRUE(cuda::copy_back_resident(*shape, h, err)) << err;
      const auto host = expand(*spec, err);
      ASSERT_TRUE(host) << err;
      expect_same_inputs(*shape, *host);
      EXPECT_EQ(h.final_mem.size(), host->init.size());
      ++compared;
    }
  }
  std::printf("device expansion compared with the host's on %zu specs\n", compared);
  EXPECT_GT(compared, 300u);
}

// A host-judged trial's inputs made on the device (device_expansion.hpp,
// every cuda trial of kDeviceExpansionMinOps ops or more: algorithms
// above all) are the host's bytes, for every entry the cuda backend runs.
TEST(Resident, InputsExpandedOnTheDeviceForTheHostAreTheHostsBytes) {
  std::mt19937_64 rng(13);
  size_t compared = 0, algorithms = 0;
  for (const Entry& e : catalogue()) {
    if (!e.run_cuda) continue;
    for (int i = 0; i < 4; ++i) {
      auto spec = random_spec(e, rng);
      if (!spec) continue;
      if (i == 3) spec->ops_per_thread = 64;  // one of tens of thousands of ops
      std::string err;
      auto shape = expand_shape(*spec, err);
      if (!shape) continue;  // the wider spec does not fit the entry
      ASSERT_TRUE(expand_arrays_on_device(*shape, err)) << describe(*spec) << ": " << err;
      EXPECT_FALSE(shape->arrays_elsewhere);
      const auto host = expand(*spec, err);
      ASSERT_TRUE(host) << err;
      expect_same_inputs(*shape, *host);
      ++compared;
      if (e.algo) ++algorithms;
    }
  }
  std::printf("inputs expanded on the device for the host compared on %zu specs, %zu of algorithms\n", compared,
              algorithms);
  EXPECT_GT(algorithms, 100u);
}

// --checker both: each history judged by the GPU checker and the host's; a
// disagreement is an Error verdict.  Buggy atomics give failing histories.
TEST(Resident, BothCheckersJudgeEveryHistoryAlike) {
  std::mt19937_64 rng(11);
  RunOptions o;
  o.policy.checker = CheckerKind::Both;
  o.knobs.retry_budget = 4096;  // the buggy loops that never settle give up soon
  size_t pass = 0, fail = 0, other = 0, gpu = 0;
  for (const Entry* e : single_atomics(true)) {
    for (int i = 0; i < 30; ++i) {
      const auto spec = random_spec(*e, rng);
      if (!spec) continue;
      const Outcome out = run_trial(*spec, BackendKind::Cuda, o);
      ASSERT_NE(out.verdict, Verdict::Error) << describe(*spec) << ": " << out.why();
      gpu += out.checked_on_gpu;
      if (out.verdict == Verdict::Pass) ++pass;
      else if (out.verdict == Verdict::Fail) ++fail;
      else ++other;
    }
  }
  std::printf("both checkers on %zu histories: %zu pass, %zu fail (agreeing), %zu hang or crash; %zu on the GPU\n",
              pass + fail + other, pass, fail, other, gpu);
  EXPECT_GT(pass, 1000u);
  EXPECT_GT(fail, 50u);
  EXPECT_GT(gpu, 1000u);
}

TEST(Resident, LargeTrialsAgreeAndPass) {
  for (const char* impl : {"native.add.u32", "cas.add.f32", "native.max.u64", "cas.add.f16"}) {
    TrialSpec s;
    s.impl = impl;
    s.grid = 264;
    s.block = 256;
    s.ops_per_thread = 16;
    s.pattern = Pattern::Uniform;
    s.k = 4096;
    s.seed = 3;
    RunOptions o;
    o.policy.checker = CheckerKind::Both;
    const Outcome out = run_trial(s, BackendKind::Cuda, o);
    EXPECT_EQ(out.verdict, Verdict::Pass) << impl << ": " << out.why();
    EXPECT_TRUE(out.checked_on_gpu) << impl;
  }
}

// ------------------------------------------------- packed instances
// (harness/backend/packed.hpp: many small trials in one launch)

std::vector<const Entry*> packed_atomics(bool with_buggy) {
  std::vector<const Entry*> out;
  for (const Entry* e : single_atomics(with_buggy))
    if (e->run_cuda_packed) out.push_back(e);
  return out;
}

// A one-thread instance runs its ops in order on its own memory, so its
// packed history must be, word for word, the one it has alone; and its
// verdict too.  Buggy entries included: their wrong results are their own.
TEST(Packed, OneThreadInstancesHaveTheirOwnHistory) {
  std::mt19937_64 rng(21);
  RunOptions o;
  o.knobs.retry_budget = 4096;
  size_t compared = 0, entries = 0;
  for (const Entry* e : packed_atomics(true)) {
    std::vector<std::optional<Workload>> ws;
    std::vector<atomstress::Setup> ss;
    std::vector<TrialSpec> specs;
    for (int i = 0; i < 40; ++i) {
      auto spec = random_spec(*e, rng);
      if (!spec) continue;
      spec->grid = spec->block = 1;
      spec->ops_per_thread = 1 + rng() % 24;
      std::string err;
      auto w = expand(*spec, err);
      if (!w || !packable(*w)) continue;
      auto st = e->family->setup(*w, err);
      ASSERT_TRUE(st) << err;
      ws.push_back(std::move(w));
      ss.push_back(std::move(*st));
      specs.push_back(*spec);
    }
    std::vector<History> alone(ws.size()), packed(ws.size());
    std::vector<PackItem> items;
    bool gave_up = false;
    for (size_t i = 0; i < ws.size(); ++i) {
      std::string err;
      ASSERT_TRUE(run_workload(*ws[i], ss[i], BackendKind::Cuda, o, alone[i], err)) << describe(specs[i]) << ": " << err;
      for (uint8_t g : alone[i].gave_up) gave_up |= (g & ~kBlockScopeBit) != 0;
      items.push_back(PackItem{&*ws[i], &ss[i], &packed[i]});
    }
    if (gave_up || items.empty()) continue;  // a loop that gave up stops its whole launch: not comparable
    std::string err;
    ASSERT_TRUE(e->run_cuda_packed(items.data(), items.size(), o, rng(), err)) << e->name << ": " << err;
    ++entries;
    for (size_t i = 0; i < ws.size(); ++i) {
      EXPECT_EQ(packed[i].old, alone[i].old) << describe(specs[i]);
      EXPECT_EQ(packed[i].final_mem, alone[i].final_mem) << describe(specs[i]);
      EXPECT_EQ(packed[i].gave_up, alone[i].gave_up) << describe(specs[i]);
      Outcome a, p;
      a.backend = p.backend = BackendKind::Cuda;
      judge_on_host(*ws[i], ss[i], alone[i], o, a);
      judge_on_host(*ws[i], ss[i], packed[i], o, p);
      EXPECT_EQ(a.verdict, p.verdict) << describe(specs[i]) << ": " << a.why() << " / " << p.why();
      ++compared;
    }
  }
  std::printf("packed one-thread instances compared with their runs alone: %zu, over %zu entries\n", compared,
              entries);
  EXPECT_GT(compared, 1000u);
}

// Many-thread instances of the correct catalogue, packed by the thousand:
// every one judged in the pack, and none fails.
TEST(Packed, CorrectCatalogueFailsNothingPacked) {
  std::mt19937_64 rng(23);
  RunOptions o;
  std::vector<TrialSpec> specs;
  for (const Entry* e : packed_atomics(false))
    for (int i = 0; i < 60; ++i)
      if (auto s = random_spec(*e, rng); s && s->ops() <= kPackMaxOps && packs(*s, BackendKind::Cuda))
        specs.push_back(*s);
  const auto results = run_packed_trials(specs, BackendKind::Cuda, o, 99);
  size_t judged = 0, shared = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    ASSERT_TRUE(results[i]) << describe(specs[i]) << " was not judged in its pack";
    EXPECT_EQ(results[i]->verdict, Verdict::Pass) << describe(specs[i]) << ": " << results[i]->why();
    ++judged;
    shared += specs[i].space == Space::Shared;
  }
  std::printf("packed instances of the correct catalogue: %zu judged (%zu in shared memory), all pass\n", judged,
              shared);
  EXPECT_GT(judged, 2000u);
}

// A buggy atomic's racy failures show packed too: many-thread instances of
// the lost-update bugs fail (not necessarily every one).
TEST(Packed, RacyBugsFailPacked) {
  std::mt19937_64 rng(29);
  RunOptions o;
  o.knobs.retry_budget = 4096;
  size_t failing = 0, judged = 0;
  for (const char* name : {"buggy.exch_store.add.i32", "buggy.plain_rmw.add.i32"}) {
    const Entry* e = find_impl(name);
    if (e == nullptr) continue;
    std::vector<TrialSpec> specs;
    for (int i = 0; i < 200; ++i) {
      TrialSpec s;
      s.impl = name;
      s.grid = 1 + rng() % 4;
      s.block = 32 + rng() % 200;
      s.ops_per_thread = 1 + rng() % 4;
      s.pattern = Pattern::Single;
      s.seed = rng();
      specs.push_back(s);
    }
    for (const auto& r : run_packed_trials(specs, BackendKind::Cuda, o, 5)) {
      if (!r) continue;
      ++judged;
      failing += r->verdict == Verdict::Fail;
    }
  }
  std::printf("packed racy-bug instances: %zu of %zu fail\n", failing, judged);
  EXPECT_GT(judged, 0u);
  EXPECT_GT(failing, 0u);
}

int main(int argc, char** argv) {
  std::string why;
  if (!cuda_available(why)) {
    std::printf("no usable CUDA device (%s): GPU checker suite skipped\n", why.c_str());
    return 77;
  }
  std::printf("GPU checker suite on %s\n", cuda_device_name().c_str());
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
