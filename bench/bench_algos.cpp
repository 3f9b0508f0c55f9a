// GPU benchmarks of the algorithm forms: each sum form and each histogram
// form at high and low contention, and hand-written warp aggregation against
// the compiler's own (the plain append), all on 2^22 elements.  After the
// run, a table gives every form's time as a ratio to the one-atomic-per-
// element form of its group, measured in the same run.
//
// Time is the kernel alone (CUDA events, memory restored between launches,
// nothing recorded), as Google Benchmark manual time.  Without a GPU the
// program says so in one line and exits 77 (skipped, for CTest and the
// device bundle).  For sweeps over k, patterns and geometry with noise-
// bounded timing, see `atomstress profile`.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "harness/pipeline/run_trial.hpp"
#include "harness/backend/backend.hpp"

using namespace atomstress;

namespace {

struct Case {
  std::string group;  // ratios are taken within a group
  std::string impl;
  Pattern pattern;
  uint32_t k;
  uint32_t keep;  // append: zipf_s, quarters kept
};

// group -> form -> mean ms per launch
std::map<std::string, std::map<std::string, double>>& results() {
  static std::map<std::string, std::map<std::string, double>> r;
  return r;
}
std::vector<std::string>& group_order() {
  static std::vector<std::string> g;
  return g;
}

constexpr uint32_t kGrid = 4096, kBlock = 256, kPerThread = 4;  // 2^22 elements

void run_case(benchmark::State& st, const Case& c) {
  std::string why;
  if (!cuda_available(why)) {
    st.SkipWithError(("no usable GPU: " + why).c_str());
    return;
  }
  TrialSpec spec;
  spec.impl = c.impl;
  spec.grid = kGrid;
  spec.block = kBlock;
  spec.ops_per_thread = kPerThread;
  spec.pattern = c.pattern;
  spec.k = c.k;
  spec.zipf_s = c.keep;
  spec.dist = Dist::Small;
  spec.init = Init::Zero;
  spec.seed = 1;
  std::string err;
  auto w = expand(spec, err);
  std::optional<Setup> s;
  if (w) s = setup_trial(*w, err);
  if (!s) {
    st.SkipWithError(err.c_str());
    return;
  }
  RunOptions opt;
  opt.bench_reps = 3;
  // A CAS loop with a million contenders on one word can take minutes: give
  // up on a launch after 5 s and report the case as pathological instead.
  opt.watchdog_ms = 5000;
  double total = 0;
  uint64_t n = 0;
  for (auto _ : st) {
    History h;
    if (!run_workload(*w, *s, BackendKind::Cuda, opt, h, err)) {
      st.SkipWithError(err.c_str());
      return;
    }
    if (h.kernel_ms > 4500) {
      st.SkipWithError("a launch ran into the 5 s watchdog: too contended to time");
      return;
    }
    st.SetIterationTime(h.kernel_ms / 1e3);
    total += h.kernel_ms;
    ++n;
  }
  const double ms = total / double(n);
  st.counters["Gelem/s"] = benchmark::Counter(double(w->ops()) / (ms / 1e3) / 1e9);
  auto& g = results()[c.group];
  if (g.empty()) group_order().push_back(c.group);
  g[c.impl.substr(0, c.impl.find('@'))] = ms;
}

void add(const Case& c) {
  benchmark::RegisterBenchmark((c.group + "/" + c.impl).c_str(), [c](benchmark::State& st) { run_case(st, c); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->Iterations(2);
}

void register_all() {
  const char* sums[] = {"sum.element", "sum.thread", "sum.block", "sum.warp_down", "sum.warp_xor"};
  for (const char* atomic : {"native.add.u32", "native.add.f32", "native.add.f64", "cas.add.f32"}) {
    for (auto [label, p, k] : {std::tuple{"high contention: 1 accumulator", Pattern::Single, 1u},
                               std::tuple{"low contention: 1 accumulator per block", Pattern::PerBlock, 1u}}) {
      // A CAS loop with every thread of the grid on one word does not finish
      // in useful time: the emulated add is measured at low contention only.
      if (atomic[0] == 'c' && p == Pattern::Single) continue;
      const std::string group = std::string("sum ") + atomic + ", " + label;
      for (const char* f : sums) add({group, std::string(f) + "@" + atomic, p, k, 4});
    }
  }
  for (const char* atomic : {"native.add.u32", "cas.add.i32"}) {
    for (uint32_t bins : {16u, 1024u, 32768u, 1u << 20}) {
      const std::string group = std::string("histogram ") + atomic + ", " + std::to_string(bins) + " bins";
      // The one-atomic-per-element form first: the ratios' base.
      add({group, std::string("hist.global@") + atomic, Pattern::Uniform, bins, 4});
      add({group, std::string("hist.shared@") + atomic, Pattern::Uniform, bins, 4});
    }
  }
  for (uint32_t keep : {4u, 1u}) {
    const std::string group = "append native.add.u32, " + std::to_string(keep * 25) + "% kept";
    add({group, "append@native.add.u32", Pattern::Single, 1, keep});
    add({group, "append.warp_agg@native.add.u32", Pattern::Single, 1, keep});
  }
}

void print_ratios() {
  if (group_order().empty()) return;
  std::printf("\nRatios to the one-atomic-per-element form of each group (same run; <1 is faster):\n");
  for (const auto& gname : group_order()) {
    const auto& g = results()[gname];
    std::string base_name = g.count("sum.element") ? "sum.element" : g.count("hist.global") ? "hist.global" : "append";
    const auto base = g.find(base_name);
    std::printf("  %s\n", gname.c_str());
    for (const auto& [form, ms] : g)
      std::printf("    %-16s %9.3f ms   %7.3fx%s\n", form.c_str(), ms,
                  base != g.end() ? ms / base->second : 0.0, form == base_name ? "  (base)" : "");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string why;
  if (!cuda_available(why)) {
    std::printf("atomstress_bench_algos: no usable GPU (%s): skipped\n", why.c_str());
    return 77;
  }
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  print_ratios();
  return 0;
}
