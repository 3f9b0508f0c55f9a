// The host's side, on one core: the checker's speed (history operations
// checked per second, 2^16 to 2^24 operations, for the shapes in
// histories.hpp), and the host's work per packed instance (no GPU needed).
#include <benchmark/benchmark.h>

#include <chrono>
#include <map>

#include "bench/histories.hpp"
#include "harness/backend/packed.hpp"
#include "harness/pipeline/pack_judging.hpp"
#include "harness/registry/registry.hpp"
#include "harness/workload/workload.hpp"

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

// The host's work per packed instance of 32 ops (BM_PackedInstances'
// instances in bench_gpu_checker.cpp: native.add.i32, one block of 32
// threads, uniform over 4 words), in the phases run_packed_trials runs on
// the host, one core, 2048 instances (one launch) an iteration: the shape
// (expand_shape: all a pack judged on the device needs, its inputs made on
// the device), the host's expansion (expand_arrays, the family's setup: a
// pack judged on the host; both spread over the host's cores there), the
// pack's plan (plan_pack, one thread), an instance the
// device passed turned into its Outcome (judge_packed_trial, one thread),
// and freeing its arrays and outcome.  Counters: microseconds per instance.
void BM_PackHostWork(benchmark::State& st) {
  constexpr size_t kInstances = 2048;
  std::vector<TrialSpec> specs(kInstances);
  const RunOptions opt;
  uint64_t seed = 1;
  double shape_s = 0, expand_s = 0, plan_s = 0, outcome_s = 0, free_s = 0;
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point& t) {
    const auto now = Clock::now();
    const double s = std::chrono::duration<double>(now - t).count();
    t = now;
    return s;
  };
  for (auto _ : st) {
    for (auto& s : specs) {
      s.impl = "native.add.i32";
      s.grid = 1;
      s.block = 32;
      s.pattern = Pattern::Uniform;
      s.k = 4;
      s.seed = seed++;
    }
    std::vector<PackedTrial> trials(kInstances);
    std::string error;
    auto t = Clock::now();
    for (size_t i = 0; i < kInstances; ++i) {
      trials[i].w = expand_shape(specs[i], error);
      if (!trials[i].w) return st.SkipWithError(error.c_str());
    }
    shape_s += since(t);
    for (size_t i = 0; i < kInstances; ++i) {
      expand_arrays(*trials[i].w);
      trials[i].s = trials[i].w->impl->family->setup(*trials[i].w, error);
      if (!trials[i].s) return st.SkipWithError(error.c_str());
    }
    expand_s += since(t);
    std::vector<PackItem> items;
    for (auto& p : trials) items.push_back(PackItem{&*p.w, &*p.s, &p.h, &p.device});
    const auto plan = plan_pack(items, 4, seed, 48 * 1024, error);
    if (!plan) return st.SkipWithError(error.c_str());
    plan_s += since(t);
    std::vector<std::optional<Outcome>> results(kInstances);
    for (size_t i = 0; i < kInstances; ++i) {
      trials[i].device_judged = true;  // passed on the device: no flag
      results[i] = judge_packed_trial(specs[i], trials[i], BackendKind::Cuda, opt);
      if (!results[i] || results[i]->verdict != Verdict::Pass)
        return st.SkipWithError("a device-passed instance did not pass");
    }
    outcome_s += since(t);
    trials.clear();
    results.clear();
    free_s += since(t);
  }
  const double per = 1e6 / (double(st.iterations()) * kInstances);
  st.counters["shape_us"] = shape_s * per;
  st.counters["expand_us"] = expand_s * per;
  st.counters["plan_us"] = plan_s * per;
  st.counters["outcome_us"] = outcome_s * per;
  st.counters["free_us"] = free_s * per;
  st.counters["instances_per_s"] =
      benchmark::Counter(double(kInstances), benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

BENCHMARK(BM_PackHostWork)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Check, hot_i32, kHotI32)->RangeMultiplier(16)->Range(1 << 16, 1 << 24)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Check, hot_f32, kHotF32)->RangeMultiplier(16)->Range(1 << 16, 1 << 24)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Check, hot_u64, kHotU64)->RangeMultiplier(16)->Range(1 << 16, 1 << 24)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Check, spread, kSpread)->RangeMultiplier(16)->Range(1 << 16, 1 << 24)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
