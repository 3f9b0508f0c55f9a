// The checker's speed: history operations checked per second on one core,
// 2^16 to 2^24 operations, for the shapes that matter:
//   hot_i32   every op on one address, integer add (2-3 significant key bytes)
//   hot_f32   every op on one address, float add of full-range values
//   hot_u64   every op on one address, 64-bit add
//   spread    2^20 addresses (or fewer, for small n), about 16 ops each
// Histories are built by executing a random sequential order, so they pass.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <numeric>
#include <random>

#include "harness/checker.hpp"
#include "harness/values.hpp"
#include "harness/workload.hpp"

using namespace atomstress;

namespace {

struct Hist {
  const ImplInfo* impl;
  std::vector<uint32_t> addr;
  std::vector<uint64_t> a, b, old, init, fin;
};

enum Shape { kHotI32, kHotF32, kHotU64, kSpread };

std::unique_ptr<Hist> make(Shape shape, size_t n) {
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

const Hist& cached(Shape shape, size_t n) {
  static std::map<std::pair<int, size_t>, std::unique_ptr<Hist>> cache;
  auto& p = cache[{shape, n}];
  if (!p) p = make(shape, n);
  return *p;
}

void BM_Check(benchmark::State& state, Shape shape) {
  const size_t n = size_t(state.range(0));
  const Hist& h = cached(shape, n);
  CheckInput in;
  in.impl = h.impl;
  in.addr = h.addr;
  in.a = h.a;
  in.b = h.b;
  in.old = h.old;
  in.init = h.init;
  in.final_mem = h.fin;
  for (auto _ : state) {
    const auto r = check_history(in);
    if (!r.ok) state.SkipWithError(r.explanation.c_str());
    benchmark::DoNotOptimize(r.ok);
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
}

}  // namespace

BENCHMARK_CAPTURE(BM_Check, hot_i32, kHotI32)->RangeMultiplier(16)->Range(1 << 16, 1 << 24)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Check, hot_f32, kHotF32)->RangeMultiplier(16)->Range(1 << 16, 1 << 24)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Check, hot_u64, kHotU64)->RangeMultiplier(16)->Range(1 << 16, 1 << 24)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Check, spread, kSpread)->RangeMultiplier(16)->Range(1 << 16, 1 << 24)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
