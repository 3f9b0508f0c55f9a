// The histories the checker benchmarks use, shared by atomstress_bench and
// the A/B driver (bench/checker_ab.cpp):
//   hot_i32   every op on one address, integer add (wraps 32 bits at 2^24)
//   hot_f32   every op on one address, float add of full-range values
//   hot_u64   every op on one address, 64-bit add
//   spread    2^20 addresses (or fewer, for small n), about 16 ops each
// Each is built by executing a random sequential order, so it passes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "harness/check/checker.hpp"
#include "harness/registry/bits.hpp"

namespace atomstress::bench {

struct Hist {
  const Entry* impl;
  std::vector<uint32_t> addr;
  std::vector<uint64_t> a, b, old, init, fin;

  CheckInput input() const {
    CheckInput in;
    in.impl = impl;
    in.addr = addr;
    in.a = a;
    in.b = b;
    in.old = old;
    in.init = init;
    in.final_mem = fin;
    return in;
  }
};

enum Shape { kHotI32, kHotF32, kHotU64, kSpread };
inline constexpr const char* kShapeNames[] = {"hot_i32", "hot_f32", "hot_u64", "spread"};

inline std::unique_ptr<Hist> make_history(Shape shape, size_t n) {
  auto h = std::make_unique<Hist>();
  const char* name = shape == kHotF32 ? "cas.add.f32" : shape == kHotU64 ? "native.add.u64" : "native.add.i32";
  h->impl = find_impl(name);
  const size_t elems = shape == kSpread ? std::max<size_t>(1, std::min<size_t>(n / 16, 1 << 20)) : 1;
  std::mt19937_64 rng(n * 31 + shape);
  h->addr.resize(n);
  h->a.resize(n);
  h->b.assign(n, 0);
  h->old.resize(n);
  h->init.assign(elems, 0);
  for (size_t o = 0; o < n; ++o) {
    h->addr[o] = uint32_t(rng() % elems);
    const uint64_t r = rng();
    h->a[o] = shape == kHotF32 ? to_bits<float>(float(r % 1000000) * 0.37f) : (r % 1000);
  }
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), rng);
  h->fin = h->init;
  for (uint32_t o : order) {
    h->old[o] = h->fin[h->addr[o]];
    h->fin[h->addr[o]] = h->impl->phi(h->old[o], h->a[o], h->b[o]);
  }
  return h;
}

}  // namespace atomstress::bench
