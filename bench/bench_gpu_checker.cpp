// Throughput of the GPU checker (harness/check/gpu_checker.hpp) on valid
// histories already in device memory: ops checked per second, the time from
// the call to the verdict on the host (check() synchronises its stream).
// Then whole trials end to end (expansion, run, check; run_trial), with the
// host's checker and the GPU's side by side: verified ops per second for the
// throughput issue's big trial, trials per second for small ones, and the
// share of the wall time the GPU spent running the code under test.
// Without a usable GPU it prints a line and exits 77.
//
//   atomstress_bench_gpu_checker --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "harness/backend/backend.hpp"
#include "harness/check/gpu_checker.hpp"
#include "harness/pipeline/run_packed.hpp"
#include "harness/pipeline/run_sequence.hpp"
#include "harness/pipeline/run_trial.hpp"

namespace gc = atomstress::gpu_check;

namespace {

enum class Shape { I32Add, U64Add };

// n ops over `elems` elements, executed in program order per element, then
// shuffled (the order in which threads record ops is arbitrary; a shuffle is
// the checker's worst case for locality).  I32Add: wrapping 32-bit states,
// operands in [-1000, 1000] (a hot counter).  U64Add: random 64-bit operands
// (full-width states: at several elements, the 96-bit keys).
struct HostHist {
  std::vector<uint32_t> addr;
  std::vector<uint64_t> from, to, init, fin;
};

HostHist make(size_t n, uint32_t elems, Shape shape, uint64_t seed) {
  std::mt19937_64 rng(seed);
  HostHist h;
  h.init.resize(elems);
  for (auto& x : h.init) x = shape == Shape::U64Add ? rng() : uint64_t(uint32_t(rng()));
  h.fin = h.init;
  h.addr.resize(n);
  h.from.resize(n);
  h.to.resize(n);
  for (size_t o = 0; o < n; ++o) {
    const uint32_t a = elems == 1 ? 0 : uint32_t(rng() % elems);
    const uint64_t s = h.fin[a];
    const uint64_t t = shape == Shape::U64Add ? s + rng() : uint64_t(uint32_t(s + uint32_t(int32_t(rng() % 2001) - 1000)));
    h.addr[o] = a;
    h.from[o] = s;
    h.to[o] = t;
    h.fin[a] = t;
  }
  for (size_t i = n; i > 1; --i) {
    const size_t j = rng() % i;
    std::swap(h.addr[i - 1], h.addr[j]);
    std::swap(h.from[i - 1], h.from[j]);
    std::swap(h.to[i - 1], h.to[j]);
  }
  return h;
}

// The history of the last benchmark, on the device (one at a time: the
// largest takes 1.3 GB).
struct DeviceCopy {
  std::tuple<size_t, uint32_t, Shape> key{0, 0, Shape::I32Add};
  void* p[5] = {};
  atomstress::DeviceHistory h;
  void release() {
    for (auto& q : p) {
      if (q) cudaFree(q);
      q = nullptr;
    }
  }
  bool load(size_t n, uint32_t elems, Shape shape, std::string& err) {
    if (p[0] && key == std::make_tuple(n, elems, shape)) return true;
    release();
    const HostHist hh = make(n, elems, shape, 12345 + n + elems);
    const size_t bytes[5] = {n * 4, n * 8, n * 8, size_t(elems) * 8, size_t(elems) * 8};
    const void* src[5] = {hh.addr.data(), hh.from.data(), hh.to.data(), hh.init.data(), hh.fin.data()};
    for (int i = 0; i < 5; ++i) {
      cudaError_t e = cudaMalloc(&p[i], bytes[i]);
      if (e == cudaSuccess) e = cudaMemcpy(p[i], src[i], bytes[i], cudaMemcpyHostToDevice);
      if (e != cudaSuccess) {
        err = cudaGetErrorString(e);
        release();
        return false;
      }
    }
    key = std::make_tuple(n, elems, shape);
    h = atomstress::DeviceHistory{static_cast<const uint32_t*>(p[0]), static_cast<const uint64_t*>(p[1]),
                          static_cast<const uint64_t*>(p[2]), n, static_cast<const uint64_t*>(p[3]),
                          static_cast<const uint64_t*>(p[4]), elems};
    return true;
  }
};

DeviceCopy& device_copy() {
  static DeviceCopy* d = new DeviceCopy;  // leaked: no CUDA calls after main
  return *d;
}
gc::Checker& checker() {
  static gc::Checker* c = new gc::Checker;
  return *c;
}

void run(benchmark::State& state, size_t n, uint32_t elems, Shape shape) {
  if (n > checker().max_ops()) {
    state.SkipWithError("history larger than the checker's max_ops() on this device");
    return;
  }
  std::string err;
  if (!device_copy().load(n, elems, shape, err)) {
    state.SkipWithError(("cannot load the history: " + err).c_str());
    return;
  }
  gc::Verdict v;
  // Warm: the scratch is allocated on the first call.
  if (!checker().check(device_copy().h, v, err) || !v.ok) {
    state.SkipWithError(err.empty() ? "a valid history failed the GPU checker" : err.c_str());
    return;
  }
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const bool ok = checker().check(device_copy().h, v, err);
    const auto t1 = std::chrono::steady_clock::now();
    if (!ok || !v.ok) {
      state.SkipWithError(err.empty() ? "a valid history failed the GPU checker" : err.c_str());
      return;
    }
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
  state.counters["ops"] = double(n);
  state.counters["elems"] = double(elems);
}

// One hot element, i32-like adds.
void BM_GpuCheckHotI32(benchmark::State& state) { run(state, size_t(1) << state.range(0), 1, Shape::I32Add); }
BENCHMARK(BM_GpuCheckHotI32)->Arg(20)->Arg(24)->Arg(26)->UseManualTime()->Unit(benchmark::kMillisecond);

// 2^20 elements, i32-like adds: 2^20 and 2^24 ops.
void BM_GpuCheckSpreadI32(benchmark::State& state) {
  run(state, size_t(1) << state.range(0), uint32_t(1) << 20, Shape::I32Add);
}
BENCHMARK(BM_GpuCheckSpreadI32)->Arg(20)->Arg(24)->UseManualTime()->Unit(benchmark::kMillisecond);

// Full-width 64-bit states: one element (64-bit keys, all 64 bits sorted),
// and 1024 elements (96-bit keys).
void BM_GpuCheckHotU64(benchmark::State& state) { run(state, size_t(1) << state.range(0), 1, Shape::U64Add); }
BENCHMARK(BM_GpuCheckHotU64)->Arg(24)->UseManualTime()->Unit(benchmark::kMillisecond);
void BM_GpuCheckWideU64(benchmark::State& state) {
  run(state, size_t(1) << state.range(0), 1024, Shape::U64Add);
}
BENCHMARK(BM_GpuCheckWideU64)->Arg(24)->UseManualTime()->Unit(benchmark::kMillisecond);

// ------------------------------------------------------------ end to end
using atomstress::CheckerKind;

void run_trials(benchmark::State& st, atomstress::TrialSpec s, CheckerKind checker) {
  atomstress::RunOptions o;
  o.policy.checker = checker;
  uint64_t ops = 0, trials = 0, on_gpu = 0;
  double run_ms = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (auto _ : st) {
    const atomstress::Outcome out = atomstress::run_trial(s, atomstress::BackendKind::Cuda, o);
    if (out.verdict != atomstress::Verdict::Pass) {
      st.SkipWithError(("not a pass: " + out.why()).c_str());
      break;
    }
    ops += out.ops;
    ++trials;
    on_gpu += out.checked_on_gpu;
    run_ms += out.run_ms;
    ++s.seed;
  }
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  st.counters["verified_ops_per_s"] = benchmark::Counter(double(ops), benchmark::Counter::kIsRate);
  st.counters["trials_per_s"] = benchmark::Counter(double(trials), benchmark::Counter::kIsRate);
  st.counters["gpu_busy"] = wall_ms > 0 ? run_ms / wall_ms : 0;
  st.counters["checked_on_gpu"] = trials ? double(on_gpu) / double(trials) : 0;
}

// The throughput issue's big trial: 1056 x 256 threads x 64 ops, 2^20 words.
void BM_BigTrial(benchmark::State& st, const char* impl, CheckerKind checker) {
  atomstress::TrialSpec s;
  s.impl = impl;
  s.grid = 1056;
  s.block = 256;
  s.ops_per_thread = 64;
  s.pattern = atomstress::Pattern::Uniform;
  s.k = 1u << 20;
  s.seed = 1;
  run_trials(st, s, checker);
}
BENCHMARK_CAPTURE(BM_BigTrial, native_add_i32_cpu_checker, "native.add.i32", CheckerKind::Cpu)
    ->Iterations(3)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BigTrial, native_add_i32_gpu_checker, "native.add.i32", CheckerKind::Gpu)
    ->Iterations(20)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BigTrial, cas_add_f64_cpu_checker, "cas.add.f64", CheckerKind::Cpu)
    ->Iterations(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BigTrial, cas_add_f64_gpu_checker, "cas.add.f64", CheckerKind::Gpu)
    ->Iterations(10)->UseRealTime()->Unit(benchmark::kMillisecond);

// Small trials, one per run_trial (not packed): `threads` ops each.
void BM_SmallTrials(benchmark::State& st, CheckerKind checker) {
  atomstress::TrialSpec s;
  s.impl = "native.add.i32";
  s.grid = 1;
  s.block = uint32_t(st.range(0));
  s.pattern = atomstress::Pattern::Uniform;
  s.k = 4;
  s.seed = 1;
  run_trials(st, s, checker);
}
BENCHMARK_CAPTURE(BM_SmallTrials, cpu_checker, CheckerKind::Cpu)->Arg(32)->Arg(256)->MinTime(1.0)->UseRealTime();
BENCHMARK_CAPTURE(BM_SmallTrials, gpu_checker, CheckerKind::Gpu)->Arg(32)->Arg(256)->MinTime(1.0)->UseRealTime();

// Small trials packed (run_packed.hpp): a batch of 4096 instances of
// `threads` ops per iteration, run in few launches and each judged as its own
// trial (this process, not isolated: the benchmark has no worker command),
// on the host's cores (--checker cpu) or on the device (--checker gpu: only
// a failing instance's history comes back), side by side.  gpu_busy: the
// share of the wall time the GPU ran the code under test; gpu_judging: the
// share it spent judging (host-timed, copies included); host_judged: the
// share of instances the host judged; in_call and first_launch_ms: where a
// batch's time goes (below).
void BM_PackedInstances(benchmark::State& st, CheckerKind checker, size_t batch = 4096, uint32_t per_thread = 1,
                        uint32_t words = 4) {
  std::vector<atomstress::TrialSpec> specs(batch);
  atomstress::RunOptions opt;
  opt.policy.checker = checker;
  uint64_t seed = 1, instances = 0, ops = 0, host_judged = 0;
  double run_ms = 0, judging_ms = 0, call_ms = 0, first_launch_ms = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (auto _ : st) {
    for (auto& s : specs) {
      s.impl = "native.add.i32";
      s.grid = 1;
      s.block = uint32_t(st.range(0));
      s.ops_per_thread = per_thread;
      s.pattern = atomstress::Pattern::Uniform;
      s.k = words;
      s.seed = seed++;
    }
    std::string launch_error;
    const auto call = std::chrono::steady_clock::now();
    bool first = true;
    const auto results = atomstress::run_packed_trials(
        specs, atomstress::BackendKind::Cuda, opt, seed,
        [&](size_t, size_t) {
          if (first) first_launch_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - call).count();
          first = false;
        },
        &launch_error);
    call_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - call).count();
    const size_t unjudged = size_t(std::count(results.begin(), results.end(), std::nullopt));
    for (const auto& r : results) {
      if (!r || r->verdict != atomstress::Verdict::Pass) {
        st.SkipWithError(r ? ("not a pass: " + r->why()).c_str()
                           : (std::to_string(unjudged) + " of " + std::to_string(results.size()) +
                              " instances not judged in their pack (they would run alone): " + launch_error)
                                 .c_str());
        return;
      }
      ++instances;
      ops += r->ops;
      run_ms += r->run_ms;  // its share of its launch
      if (r->checked_on_gpu) judging_ms += r->check_ms;  // its share of its launch's judging
      else ++host_judged;
    }
  }
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  st.counters["instances_per_s"] = benchmark::Counter(double(instances), benchmark::Counter::kIsRate);
  st.counters["verified_ops_per_s"] = benchmark::Counter(double(ops), benchmark::Counter::kIsRate);
  st.counters["gpu_busy"] = wall_ms > 0 ? run_ms / wall_ms : 0;
  st.counters["gpu_judging"] = wall_ms > 0 ? judging_ms / wall_ms : 0;
  st.counters["host_judged"] = instances ? double(host_judged) / double(instances) : 0;
  // Where a batch's time goes: inside run_packed_trials (the rest is this
  // loop's spec set-up and results), and until its first launch had ended
  // (expansion, one launch's plan, run and judging).
  st.counters["in_call"] = wall_ms > 0 ? call_ms / wall_ms : 0;
  st.counters["first_launch_ms"] = st.iterations() ? first_launch_ms / double(st.iterations()) : 0;
}
BENCHMARK_CAPTURE(BM_PackedInstances, host_judging, CheckerKind::Cpu)
    ->Arg(32)->Arg(256)->MinTime(1.0)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PackedInstances, gpu_judging, CheckerKind::Gpu)
    ->Arg(32)->Arg(256)->MinTime(1.0)->UseRealTime()->Unit(benchmark::kMillisecond);

// The same, GPU judging, with the pack's launches run N at once
// (run_packed.hpp set_pack_launch_threads; the rows above: the automatic
// choice, half the host's cores up to kPackLaunchThreads).
void BM_PackedInstancesLaunchThreads(benchmark::State& st) {
  atomstress::set_pack_launch_threads(size_t(st.range(1)));
  BM_PackedInstances(st, CheckerKind::Gpu);
  atomstress::set_pack_launch_threads(0);
}
BENCHMARK(BM_PackedInstancesLaunchThreads)
    ->ArgNames({"block", "launch_threads"})->ArgsProduct({{32}, {1, 2, 4, 8}})
    ->MinTime(1.0)->UseRealTime()->Unit(benchmark::kMillisecond);

// The same, GPU judging, `batch` instances a call (the rows above: 4096):
// whether a pack's cost is per call and per launch (bigger batches, larger
// launches, more instances a second) or per instance.
void BM_PackedInstancesBatch(benchmark::State& st) { BM_PackedInstances(st, CheckerKind::Gpu, size_t(st.range(1))); }
BENCHMARK(BM_PackedInstancesBatch)
    ->ArgNames({"block", "batch"})->ArgsProduct({{32}, {1024, 4096, 16384, 65536}})
    ->MinTime(1.0)->UseRealTime()->Unit(benchmark::kMillisecond);

// The largest instances a pack takes (1024 threads of 4 ops: kPackMaxOps),
// over 4 hot words or 4096, GPU judging: a launch of few instances, whose
// judging has a block of threads for each.
void BM_PackedInstancesWide(benchmark::State& st) {
  BM_PackedInstances(st, CheckerKind::Gpu, 256, 4, uint32_t(st.range(1)));
}
BENCHMARK(BM_PackedInstancesWide)
    ->ArgNames({"block", "words"})->ArgsProduct({{1024}, {4, 4096}})
    ->MinTime(1.0)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  std::string why;
  if (!atomstress::cuda_available(why)) {
    std::printf("no usable CUDA device (%s): GPU checker benchmarks skipped\n", why.c_str());
    return 77;
  }
  std::printf("GPU checker benchmarks on %s\n", atomstress::cuda_device_name().c_str());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// Host-checked trials in a row, one run_trial each against one pipelined
// sequence (run_sequence.hpp: each trial judged on the host's cores while
// the next runs), 16 trials per iteration: a single atomic under
// --checker cpu, and an algorithm (always checked on the host).
void BM_HostCheckedTrials(benchmark::State& st, const char* impl, bool pipelined) {
  constexpr size_t kTrials = 16;
  std::vector<atomstress::TrialSpec> specs(kTrials);
  atomstress::RunOptions o;
  o.policy.checker = CheckerKind::Cpu;
  uint64_t seed = 1, trials = 0, ops = 0;
  double run_ms = 0;
  bool failed = false;
  auto tally = [&](const atomstress::Outcome& out) {
    if (out.verdict != atomstress::Verdict::Pass && !failed) {
      failed = true;
      st.SkipWithError(("not a pass: " + out.why()).c_str());
    }
    ++trials;
    ops += out.ops;
    run_ms += out.run_ms;
  };
  const auto t0 = std::chrono::steady_clock::now();
  for (auto _ : st) {
    for (auto& s : specs) {
      s.impl = impl;
      s.grid = 132;
      s.block = 256;
      s.ops_per_thread = 16;
      s.pattern = atomstress::Pattern::Uniform;
      s.k = 4096;
      s.seed = seed++;
    }
    if (pipelined) {
      atomstress::run_trial_sequence(specs, {atomstress::BackendKind::Cuda, o, 0, false}, tally);
    } else {
      for (const auto& s : specs) tally(atomstress::run_trial(s, atomstress::BackendKind::Cuda, o));
    }
    if (failed) return;
  }
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  st.counters["trials_per_s"] = benchmark::Counter(double(trials), benchmark::Counter::kIsRate);
  st.counters["verified_ops_per_s"] = benchmark::Counter(double(ops), benchmark::Counter::kIsRate);
  st.counters["gpu_busy"] = wall_ms > 0 ? run_ms / wall_ms : 0;
}
BENCHMARK_CAPTURE(BM_HostCheckedTrials, add_i32_one_by_one, "native.add.i32", false)
    ->MinTime(2.0)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_HostCheckedTrials, add_i32_pipelined, "native.add.i32", true)
    ->MinTime(2.0)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_HostCheckedTrials, hist_global_one_by_one, "hist.global@native.add.u32", false)
    ->MinTime(2.0)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_HostCheckedTrials, hist_global_pipelined, "hist.global@native.add.u32", true)
    ->MinTime(2.0)->UseRealTime()->Unit(benchmark::kMillisecond);
