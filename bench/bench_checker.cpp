// The checker's speed: history operations checked per second on one core,
// 2^16 to 2^24 operations, for the shapes in histories.hpp.
#include <benchmark/benchmark.h>

#include <map>

#include "bench/histories.hpp"

using namespace atomstress;
using namespace atomstress::bench;

namespace {

const Hist& cached(Shape shape, size_t n) {
  static std::map<std::pair<int, size_t>, std::unique_ptr<Hist>> cache;
  auto& p = cache[{shape, n}];
  if (!p) p = make_history(shape, n);
  return *p;
}

void BM_Check(benchmark::State& state, Shape shape) {
  const size_t n = size_t(state.range(0));
  const CheckInput in = cached(shape, n).input();
  // Once untimed: the checker keeps its scratch across checks (as in a run
  // of many trials), so the first check of a size also pays its page faults.
  if (!check_history(in).ok) state.SkipWithError("the checker rejected a valid history");
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
