// `profile` of kernel entries on the CPU (issue #30, item 5): the sweep
// plans a kernel entry's points over its axes; a point is timed per launch
// and judged by the entry's own oracle on its timed runs (the host-run
// stand-in test.kernel.host of test_kernel_host.cpp, whose histogram loses
// increments when threads race); the reports give time per launch in
// microseconds; on the cpu backend a CUDA kernel entry is a SKIP with its
// reason; a KernelCase in timing mode sizes every buffer by the geometry.
// The device half (snapshots, timed launches) is tested on the GPU by CTest
// kernels_gpu.profile (tests/kernel_profile_gpu.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "harness/cli/profile_sweep.hpp"
#include "harness/kernel/draws.hpp"
#include "harness/kernel/kernel_case.hpp"
#include "harness/pipeline/profile.hpp"
#include "harness/registry/registry.hpp"
#include "reports/csv_printer.hpp"
#include "reports/gbench_json_printer.hpp"
#include "reports/profile_html.hpp"
#include "reports/profile_markdown.hpp"
#include "reports/profile_table.hpp"
#include "run_program.hpp"
#include "scratch.hpp"

namespace fs = std::filesystem;
using namespace atomstress;

namespace {

atomstress::testing::Scratch* const scratch_env = atomstress::testing::add_scratch("atomstress_kernel_profile");

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

cli::Sweep parsed(cli::SweepOptions o) {
  cli::Sweep sweep;
  std::string error;
  EXPECT_TRUE(cli::parse_sweep(o, sweep, error)) << error;
  return sweep;
}

ProfileSettings quick_cpu_settings() {
  ProfileSettings s;
  s.backend = BackendKind::Cpu;
  s.max_time_s = 0.05;
  s.target_batch_s = 0.001;
  return s;
}

TrialSpec host_kernel_spec(uint32_t grid, uint32_t block, uint64_t seed) {
  TrialSpec s;
  s.impl = "test.kernel.host";
  s.grid = grid;
  s.block = block;
  s.ops_per_thread = 4;
  s.pattern = Pattern::Uniform;
  s.k = 40;
  s.seed = seed;
  return s;
}

// A seed whose case draws at least `least` keys (the stand-in loses an
// increment only with 3 keys or more).
uint64_t seed_with_size(uint32_t grid, uint32_t block, uint64_t least) {
  for (uint64_t seed = 1; seed < 200; ++seed)
    if (kernel::draw_size(host_kernel_spec(grid, block, seed), "n") >= least) return seed;
  ADD_FAILURE() << "no seed draws " << least << " keys";
  return 1;
}

// A kernel entry's point as a GPU sweep gives it: 12.5 us per launch.
ProfilePoint kernel_point(const char* pattern_name, Verdict verdict) {
  ProfilePoint p;
  p.impl = find_impl("test.kernel.real");
  p.per_launch = true;
  p.items = 1;
  p.backend = BackendKind::Cuda;
  p.spec.impl = "test.kernel.real";
  p.spec.k = 64;
  p.spec.pattern = *parse_pattern(pattern_name);
  p.timing.launches = 40;
  p.timing.batches = 4;
  p.timing.s_per_launch = 12.5e-6;
  p.timing.noise = 0.01;
  p.timing.converged = true;
  p.items_per_second = 1 / p.timing.s_per_launch;
  p.verdict = verdict;
  if (verdict != Verdict::Pass) p.why = "bins[3] holds 7 but 8 keys are 3";
  return p;
}

}  // namespace

TEST(KernelProfile, TheSweepPlansAKernelEntryOverItsAxes) {
  cli::SweepOptions o;
  o.impl = "test.kernel.real";
  o.k = "16,256";
  o.pattern = "uniform,zipf";
  o.grid = "2,8";
  o.block = "64";
  o.ops = "1,4";
  o.dist = "small,full";
  o.space = "global,shared";
  cli::SweepPlan plan;
  std::string error;
  ASSERT_TRUE(cli::plan_sweep(parsed(o), BackendKind::Cuda, plan, error)) << error;
  // k x pattern x grid x ops x dist at global; every shared point skipped with the reason.
  EXPECT_EQ(plan.specs.size(), 2u * 2 * 2 * 2 * 2);
  EXPECT_TRUE(plan.skipped_impls.empty());
  ASSERT_EQ(plan.skipped.size(), plan.specs.size());
  for (const auto& line : plan.skipped) EXPECT_NE(line.find("global memory"), std::string::npos) << line;
  std::set<std::string> names;
  for (const auto& spec : plan.specs) {
    EXPECT_EQ(spec.space, Space::Global);
    names.insert(point_name(spec));
  }
  EXPECT_EQ(names.size(), plan.specs.size());
  EXPECT_TRUE(names.count("test.kernel.real/k:256/pattern:zipf/grid:8/block:64/ops:4/space:global/dist:full"));
}

TEST(KernelProfile, OnTheCpuBackendAKernelEntryIsSkippedWithItsReason) {
  cli::SweepOptions o;
  o.impl = "test.kernel.real,test.kernel.host";
  o.k = "16";
  o.grid = "2";
  o.block = "32";
  cli::SweepPlan plan;
  std::string error;
  ASSERT_TRUE(cli::plan_sweep(parsed(o), BackendKind::Cpu, plan, error)) << error;
  ASSERT_EQ(plan.skipped_impls.size(), 1u);
  EXPECT_STREQ(plan.skipped_impls[0].impl->name, "test.kernel.real");
  EXPECT_EQ(plan.skipped_impls[0].why, "gpu only: a CUDA kernel: kernel entries run on the cuda backend only");
  ASSERT_EQ(plan.specs.size(), 1u);  // the host-run stand-in runs on the cpu
  EXPECT_EQ(plan.specs[0].impl, "test.kernel.host");
}

TEST(KernelProfile, APointIsTimedPerLaunchAndPassesWhenItsOracleHolds) {
  // One thread never races: the stand-in's histogram is right.
  ProfilePoint p;
  std::string error;
  ASSERT_TRUE(profile_point(host_kernel_spec(1, 1, seed_with_size(1, 1, 3)), quick_cpu_settings(), p, error))
      << error;
  EXPECT_TRUE(p.per_launch);
  EXPECT_STREQ(p.item_unit(), "launch");
  EXPECT_EQ(p.items, 1u);
  EXPECT_EQ(p.verdict, Verdict::Pass) << p.why;
  EXPECT_GT(p.timing.launches, 0u);
  EXPECT_GT(p.us_per_launch(), 0);
  EXPECT_NEAR(p.items_per_second * p.timing.s_per_launch, 1.0, 1e-9);  // launches per second
  // No instrumented pass: nothing counted per op.
  EXPECT_TRUE(p.hotspots.empty());
  EXPECT_EQ(p.retries_max, 0u);
  EXPECT_FALSE(p.cycles_per_op);
}

TEST(KernelProfile, APointWhoseOracleFailsReportsTheFailure) {
  ProfilePoint p;
  std::string error;
  const TrialSpec spec = host_kernel_spec(4, 64, seed_with_size(4, 64, 100));
  ASSERT_TRUE(profile_point(spec, quick_cpu_settings(), p, error)) << error;
  EXPECT_EQ(p.verdict, Verdict::Fail);
  EXPECT_NE(p.why.find("increment"), std::string::npos) << p.why;
  EXPECT_FALSE(p.timed());  // the timing stops at the first failure: a wrong kernel's time is not reported
  EXPECT_EQ(p.us_per_launch(), 0);
}

TEST(KernelProfile, TheReportsGiveTimePerLaunchInMicroseconds) {
  const fs::path dir = scratch_env->dir("reports");
  {
    reports::GbenchJsonPrinter json((dir / "p.json").string());
    reports::CsvPrinter csv((dir / "p.csv").string());
    reports::ProfileMarkdownPrinter md((dir / "p.md").string());
    reports::ProfileHtmlPrinter html((dir / "p.html").string());
    for (reports::Printer* printer : std::initializer_list<reports::Printer*>{&json, &csv, &md, &html}) {
      printer->record(kernel_point("uniform", Verdict::Pass));
      printer->record(kernel_point("zipf", Verdict::Fail));
      ASSERT_TRUE(printer->finish()) << printer->error();
    }
  }
  const auto doc = nlohmann::json::parse(slurp(dir / "p.json"));
  ASSERT_EQ(doc["benchmarks"].size(), 2u);
  for (const auto& b : doc["benchmarks"]) {
    EXPECT_EQ(b["time_unit"], "us");
    EXPECT_DOUBLE_EQ(b["real_time"].get<double>(), 12.5);
    EXPECT_DOUBLE_EQ(b["cpu_time"].get<double>(), 12.5);
    EXPECT_EQ(b["items_per_launch"], 1);
    EXPECT_FALSE(b.contains("retries_p50"));  // not counted for a kernel's own atomics
  }
  EXPECT_EQ(doc["benchmarks"][1]["label"], "FAIL");

  std::istringstream csv(slurp(dir / "p.csv"));
  std::string header, row;
  ASSERT_TRUE(std::getline(csv, header) && std::getline(csv, row));
  EXPECT_NE(row.find(",launch,1,40,1.25e-05,80000,"), std::string::npos) << row;  // unit, items, launches, s, per s
  EXPECT_NE(row.find(",,,,"), std::string::npos) << row;  // retries: empty, not 0

  const std::string md = slurp(dir / "p.md");
  EXPECT_EQ(md.find("| items/s |"), std::string::npos) << md;  // no per-op table without per-op points
  EXPECT_NE(md.find("| point | us/launch | noise | verdict |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 12.5 | 1.0% | PASS |"), std::string::npos) << md;
  EXPECT_NE(md.find("FAIL: bins[3] holds 7"), std::string::npos) << md;

  const std::string html = slurp(dir / "p.html");
  EXPECT_NE(html.find("Time per launch against k"), std::string::npos);
  EXPECT_EQ(html.find("Throughput against k"), std::string::npos);
  EXPECT_NE(html.find("<th>us/launch</th>"), std::string::npos);
}

TEST(KernelProfile, TheTableChangesItsHeaderWithTheUnit) {
  ProfilePoint atomic;  // (the table reads no entry)
  atomic.spec.impl = "native.add.i32";
  atomic.items_per_second = 1e9;
  reports::ProfileTablePrinter table;
  ::testing::internal::CaptureStdout();
  table.record(atomic);
  table.record(kernel_point("uniform", Verdict::Pass));
  table.record(kernel_point("zipf", Verdict::Pass));
  table.finish();
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(out.find("items/s"), out.rfind("items/s")) << out;  // once
  EXPECT_EQ(out.find("us/launch"), out.rfind("us/launch")) << out;
  EXPECT_LT(out.find("items/s"), out.find("us/launch")) << out;
  EXPECT_NE(out.find("12.5 "), std::string::npos) << out;
}

TEST(KernelProfile, AProfiledCaseSizesEveryBufferByTheGeometry) {
  // A profile times the problem its geometry axes set, whatever edge class
  // the seed picks (a zero-length launch says nothing of a kernel's speed).
  std::set<size_t> drawn;
  for (uint64_t seed = 0; seed < 16; ++seed) {
    TrialSpec s = host_kernel_spec(3, 64, seed);
    kernel::CaseOptions timed;
    timed.whole_sizes = true;
    KernelCase c(s, timed);
    EXPECT_EQ(c.size("n"), 3u * 64 * 4);
    EXPECT_EQ(c.size("m"), 3u * 64 * 4);
    KernelCase plain(s, kernel::CaseOptions{});
    drawn.insert(plain.size("n"));
  }
  EXPECT_GT(drawn.size(), 4u);  // outside a profile, the edge sizes
}

TEST(KernelProfile, TheCommandSkipsKernelEntriesOnTheCpuAndProfilesTheRest) {
  const std::string examples = atomstress::testing::bin_dir() + "atomstress_kernel_examples";
  if (!fs::exists(examples)) GTEST_SKIP() << "no " << examples;
  const fs::path dir = scratch_env->dir("cli");
  const auto alone = atomstress::testing::run_shell(examples + " profile --backend cpu --impl kernels.shared_hist 2>&1");
  EXPECT_EQ(alone.status, 0) << alone.out;
  EXPECT_NE(alone.out.find("SKIP  kernels.shared_hist"), std::string::npos) << alone.out;
  EXPECT_NE(alone.out.find("gpu only: a CUDA kernel"), std::string::npos) << alone.out;
  const auto mixed = atomstress::testing::run_shell(
      examples + " profile --backend cpu --impl kernels.shared_hist,native.add.u32 --k 4 --grid 2 --block 32 " +
      "--ops-per-thread 2 --max-time-per-point 0.05 --json " + (dir / "m.json").string() + " 2>&1");
  EXPECT_EQ(mixed.status, 0) << mixed.out;
  EXPECT_NE(mixed.out.find("SKIP  kernels.shared_hist"), std::string::npos) << mixed.out;
  const auto doc = nlohmann::json::parse(slurp(dir / "m.json"));
  ASSERT_EQ(doc["benchmarks"].size(), 1u);
  EXPECT_EQ(doc["benchmarks"][0]["time_unit"], "ns");
}
