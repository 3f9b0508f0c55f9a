// atomstress_bench_algos: a Google Benchmark wrapper over `atomstress
// profile`.  Each benchmark is one point of a profile sweep (entry x axis
// values, named as in profile's reports) measured by profile_point
// (harness/pipeline/profile): the same noise-bounded timing pass, checked
// instrumented pass and bare-kernel baseline as `atomstress profile`, so
// there is one way to time things.
//
//   atomstress_bench_algos [profile's axis and measurement options] [--benchmark_...]
//
// With no profile option it runs the default sweeps below.  A benchmark runs
// one iteration, whose manual time is the point's mean time per launch;
// items_per_second and the counters (noise, retries, cycles, ratio to the
// bare kernel...) are the profile's.  Exit status: 0, 1 when an oracle
// failed a point (a benchmark never hides a failure) or a point could not
// run, 2 bad input, 77 no GPU (one line).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "harness/backend/backend.hpp"
#include "harness/cli/options.hpp"
#include "harness/cli/profile_sweep.hpp"

namespace po = boost::program_options;
using namespace atomstress;

namespace {

// The algorithm forms at high and low contention, and the single adds they
// are built on against their bare kernel, on 2^22 elements (4096 blocks of
// 256 threads, 4 each): the cases of docs/performance.md's algorithm tables.
const std::vector<std::string> kDefaultGeometry = {"--grid", "4096", "--block", "256", "--ops-per-thread", "4"};
const std::vector<std::vector<std::string>> kDefaultSweeps = {
    // Sums: one accumulator for the whole grid, or one per block.
    {"--impl", "sum.*@native.add.u32,sum.*@native.add.f32,sum.*@native.add.f64", "--pattern", "single,per_block",
     "--k", "1"},
    // A CAS loop with the whole grid on one word takes seconds per launch: per block only.
    {"--impl", "sum.*@cas.add.f32", "--pattern", "per_block", "--k", "1"},
    {"--impl", "hist.global@native.add.u32", "--k", "16,1024,32768,1048576"},
    // 2^20 privatised bins do not fit a block's shared memory.
    {"--impl", "hist.shared@native.add.u32", "--k", "16,1024,32768"},
    // 16 bins under a CAS loop hit the same wall as one word.
    {"--impl", "hist.global@cas.add.i32,hist.shared@cas.add.i32", "--k", "1024,32768"},
    // Hand-written warp aggregation against the compiler's own.
    {"--impl", "append@native.add.u32,append.warp_agg@native.add.u32"},
    {"--impl", "native.add.u32,native.add.f32,native.add.f64", "--k", "1,1048576", "--baseline"},
};

bool g_failed = false;

void time_point(benchmark::State& st, const TrialSpec& spec, const ProfileSettings& settings) {
  for (auto _ : st) {
    ProfilePoint p;
    std::string error;
    if (!profile_point(spec, settings, p, error)) {
      g_failed = true;
      st.SkipWithError(error.c_str());
      break;
    }
    if (!p.not_applicable.empty()) {
      st.SkipWithError(("not applicable: " + p.not_applicable).c_str());
      break;
    }
    if (p.verdict != Verdict::Pass) {
      g_failed = true;
      st.SkipWithError((std::string(to_string(p.verdict)) + ": " + p.why).c_str());
      break;
    }
    st.SetIterationTime(p.timing.s_per_launch);
    st.SetItemsProcessed(int64_t(p.items));
    auto& c = st.counters;
    c["noise"] = p.timing.noise;
    c["converged"] = p.timing.converged;
    c["launches"] = double(p.timing.launches);
    c["cold"] = p.cold;
    c["retries_mean"] = p.retries_mean;
    c["retries_p50"] = p.retries_p50;
    c["retries_p99"] = p.retries_p99;
    c["retries_max"] = p.retries_max;
    if (p.cycles_per_op) c["cycles_per_op"] = *p.cycles_per_op;
    if (p.ratio_to_baseline) {
      c["baseline_items_per_second"] = *p.baseline_items_per_second;
      c["baseline_noise"] = p.baseline->noise;
      c["ratio_to_baseline"] = *p.ratio_to_baseline;
    }
  }
}

// Profile's options for one sweep; throws Boost's errors on bad input.
bool parse(const std::vector<std::string>& args, cli::Sweep& sweep, std::string& error) {
  cli::SweepOptions o;
  po::options_description desc("atomstress_bench_algos");
  cli::add_sweep_options(desc, o);
  cli::parse_command(args, desc);
  return cli::parse_sweep(o, sweep, error);
}

int refuse(const std::string& why) {
  std::fprintf(stderr, "atomstress_bench_algos: error: %s\n", why.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      cli::SweepOptions o;
      po::options_description desc(
          "atomstress_bench_algos [options] [--benchmark_...]: Google Benchmark over atomstress profile's points "
          "(default: the built-in sweeps of the algorithm forms)");
      cli::add_sweep_options(desc, o);
      std::cout << desc << "\n";
      return 0;
    }
  benchmark::Initialize(&argc, argv);  // takes its --benchmark_* options out of argv
  const std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<cli::Sweep> sweeps;
  std::string error;
  try {
    if (!args.empty()) {
      if (!parse(args, sweeps.emplace_back(), error)) return refuse(error);
    } else {
      for (auto a : kDefaultSweeps) {
        a.insert(a.end(), kDefaultGeometry.begin(), kDefaultGeometry.end());
        if (!parse(a, sweeps.emplace_back(), error)) return refuse(error);
      }
    }
  } catch (const std::exception& e) {  // Boost's option errors
    return refuse(e.what());
  }
  std::string why;
  if (!cuda_available(why)) {
    std::printf("atomstress_bench_algos: no usable GPU (%s): skipped\n", why.c_str());
    return 77;
  }
  for (const auto& sweep : sweeps) {
    cli::SweepPlan plan;
    if (!cli::plan_sweep(sweep, BackendKind::Cuda, plan, error)) return refuse(error);
    for (const auto& s : plan.skipped) std::fprintf(stderr, "not applicable: %s\n", s.c_str());
    for (const auto& spec : plan.specs)
      benchmark::RegisterBenchmark(point_name(spec).c_str(),
                                   [spec, settings = plan.settings](benchmark::State& st) {
                                     time_point(st, spec, settings);
                                   })
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond)
          ->Iterations(1);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return g_failed ? 1 : 0;
}
