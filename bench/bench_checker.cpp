// The host's side, on one core: the checker's speed (history operations
// checked per second, 2^16 to 2^24 operations, for the shapes in
// histories.hpp), and the host's work per packed instance (no GPU needed).
#include <benchmark/benchmark.h>

#include <chrono>
#include <map>

#include "bench/histories.hpp"
#include "harness/backend/packed.hpp"
#include "harness/pipeline/pack_judging.hpp"
#include "harness/pipeline/run_trial.hpp"
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

// The host's work per trial of an algorithm over a fast atomic (a fuzz
// slice's trial whose kernel runs microseconds on the GPU, its host work
// milliseconds), in its phases, one core: the inputs' expansion
// (expand_arrays), the family's setup, and its oracle over the history
// (check_trial; the chain judged on the host: --checker cpu).  The history
// is one run on the cpu backend, untimed.  Counters: microseconds a trial.
void BM_AlgorithmHostWork(benchmark::State& st, const char* impl) {
  TrialSpec spec;
  spec.impl = impl;
  spec.grid = 64;
  spec.block = 256;
  spec.ops_per_thread = 4;  // 65,536 ops
  const Entry* entry = find_impl(impl);
  if (!entry) return st.SkipWithError("no such entry");
  const bool uniform = entry->family->pattern_mask() & (1u << unsigned(Pattern::Uniform));
  spec.pattern = uniform ? Pattern::Uniform : Pattern::Single;  // append takes one counter
  spec.k = uniform ? 8 : 1;
  spec.dist = Dist::Full;
  spec.seed = 7;
  RunOptions opt;
  opt.policy.isolate = false;
  opt.policy.checker = CheckerKind::Cpu;
  RanTrial r;
  run_on_backend(spec, BackendKind::Cpu, opt, 0, r);
  if (!r.w || !r.setup) return st.SkipWithError(("the trial did not run: " + r.out.why()).c_str());
  if (const Outcome o = judge_ran_trial(r); o.verdict != Verdict::Pass) return st.SkipWithError(o.why().c_str());
  Workload& w = *r.w;
  double expand_s = 0, setup_s = 0, check_s = 0;
  using Clock = std::chrono::steady_clock;
  std::string error;
  for (auto _ : st) {
    auto t0 = Clock::now();
    expand_arrays(w);
    const auto t1 = Clock::now();
    const auto s = w.impl->family->setup(w, error);
    const auto t2 = Clock::now();
    if (!s) return st.SkipWithError(error.c_str());
    const Finding f = check_trial(w, *s, r.h);
    const auto t3 = Clock::now();
    if (!f.ok()) return st.SkipWithError(f.explanation.c_str());
    expand_s += std::chrono::duration<double>(t1 - t0).count();
    setup_s += std::chrono::duration<double>(t2 - t1).count();
    check_s += std::chrono::duration<double>(t3 - t2).count();
  }
  const double per = 1e6 / double(st.iterations());
  st.counters["expand_us"] = expand_s * per;
  st.counters["setup_us"] = setup_s * per;
  st.counters["check_us"] = check_s * per;
  st.counters["ops_per_s"] =
      benchmark::Counter(double(spec.ops()), benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

BENCHMARK(BM_PackHostWork)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AlgorithmHostWork, sum_block_f32, "sum.block@native.add.f32")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AlgorithmHostWork, sum_block_f16, "sum.block@native.add.f16")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AlgorithmHostWork, append_i32, "append@native.add.i32")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AlgorithmHostWork, hist_global_u32, "hist.global@native.add.u32")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Check, hot_i32, kHotI32)->RangeMultiplier(16)->Range(1 << 16, 1 << 24)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Check, hot_f32, kHotF32)->RangeMultiplier(16)->Range(1 << 16, 1 << 24)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Check, hot_u64, kHotU64)->RangeMultiplier(16)->Range(1 << 16, 1 << 24)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Check, spread, kSpread)->RangeMultiplier(16)->Range(1 << 16, 1 << 24)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
