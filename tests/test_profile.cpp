// `atomstress profile` on the CPU backend: its reports (Google Benchmark
// JSON, CSV, Markdown, an HTML page whose SVG is XML), its refusals of bad
// axes, --cold (a GPU option: noted and ignored on the cpu), the stopping
// rule of its timing, the SVG helper, and the benchmark wrapper over it
// (atomstress_bench_algos) where there is no GPU.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "harness/backend/backend.hpp"
#include "harness/pipeline/profile.hpp"
#include "reports/csv_printer.hpp"
#include "reports/profile_html.hpp"
#include "harness/registry/registry.hpp"
#include "reports/svg_chart.hpp"
#include "run_program.hpp"
#include "scratch.hpp"

namespace fs = std::filesystem;
using namespace atomstress;

namespace {

using atomstress::testing::bin_dir;
using atomstress::testing::binary;
using atomstress::testing::Result;
using atomstress::testing::run_shell;

Result profile(const std::string& args) { return run_shell(binary() + " profile " + args + " 2>&1"); }

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

// A fresh scratch folder per test (removed when the tests end).
atomstress::testing::Scratch* const scratch_env = atomstress::testing::add_scratch("atomstress_profile");
fs::path scratch(const std::string& name) { return scratch_env->dir(name); }

void expect_refused(const std::string& args, const std::string& needle) {
  const auto r = profile("--backend cpu --impl native.add.i32 " + args);
  EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
  EXPECT_EQ(count(r.out, "\n"), 1u) << args << "\n" << r.out;
  EXPECT_NE(r.out.find("error"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(needle), std::string::npos) << args << "\n" << r.out;
}

}  // namespace

// ------------------------------------------------------------------ the SVG helper

TEST(SvgChart, EscapesEveryMarkupCharacter) {
  EXPECT_EQ(svg::escape("a<b & 'c' \"d\">"), "a&lt;b &amp; &apos;c&apos; &quot;d&quot;&gt;");
  EXPECT_EQ(svg::escape("plain.name/k:4"), "plain.name/k:4");
}

TEST(SvgChart, LogTicksArePowersOfTenOrOneTwoFiveInsideOneDecade) {
  EXPECT_EQ(svg::ticks({"", true, 1, 1e6}), (std::vector<double>{1, 10, 100, 1e3, 1e4, 1e5, 1e6}));
  EXPECT_EQ(svg::ticks({"", true, 1, 50}), (std::vector<double>{1, 2, 5, 10, 20, 50}));
  EXPECT_TRUE(svg::ticks({"", true, 0, 10}).empty());  // a log axis cannot show 0
}

TEST(SvgChart, LinearTicksAreRoundSteps) {
  EXPECT_EQ(svg::ticks({"", false, 0, 10}), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(svg::ticks({"", false, 0, 1}), (std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1}));
}

TEST(SvgChart, TickLabelsAreShort) {
  EXPECT_EQ(svg::tick_label(1), "1");
  EXPECT_EQ(svg::tick_label(1000), "1k");
  EXPECT_EQ(svg::tick_label(2.5e6), "2.5M");
  EXPECT_EQ(svg::tick_label(3e9), "3G");
  EXPECT_EQ(svg::tick_label(0.5), "0.5");
}

TEST(SvgChart, LineChartHasOnePolylinePerSeriesAndEscapedNames) {
  const std::string chart = svg::line_chart(
      "t<1>", {"k", true}, {"ops/s", true},
      {{"a<b", {{1, 10}, {16, 100}, {256, 50}}}, {"c&d", {{1, 5}, {16, 7}}}, {"lonely", {{4, 3}}}});
  EXPECT_EQ(count(chart, "<polyline"), 2u);  // a one-point series is a dot, not a line
  EXPECT_NE(chart.find("a&lt;b"), std::string::npos);
  EXPECT_NE(chart.find("c&amp;d"), std::string::npos);
  EXPECT_EQ(chart.find("a<b"), std::string::npos);
  EXPECT_NE(chart.find(">1k<"), std::string::npos) << "the k axis reaches 1000 (ticks labelled)";
}

TEST(SvgChart, ACompanionSeriesIsDashedInItsSeriesColour) {
  svg::Series entry{"cas.add.f32", {{1, 10}, {16, 100}}}, bare{"cas.add.f32 (bare kernel)", {{1, 12}, {16, 110}}, 0};
  const std::string chart = svg::line_chart("t", {"k", true}, {"y", true}, {entry, {"other", {{1, 1}, {16, 2}}}, bare});
  EXPECT_EQ(count(chart, "stroke-dasharray"), 1u) << chart;
  // The dashed line's colour is the entry's (the first polyline's), not the third series' own.
  const auto colour_of = [&](size_t nth) {
    size_t at = 0;
    for (size_t i = 0; i <= nth; ++i) at = chart.find("<polyline", at + 1);
    const auto c = chart.find("stroke=\"", at) + 8;
    return chart.substr(c, chart.find('"', c) - c);
  };
  EXPECT_EQ(colour_of(2), colour_of(0)) << chart;
  EXPECT_NE(colour_of(1), colour_of(0)) << chart;
}

TEST(Profile, TheHtmlPageDrawsEachBareKernelBesideItsEntry) {
  // Points as a GPU sweep with --baseline gives them (the cpu backend has no bare kernel).
  const fs::path page = fs::temp_directory_path() / ("atomstress_profile_bare_" + std::to_string(getpid()) + ".html");
  {
    atomstress::reports::ProfileHtmlPrinter html(page.string());
    for (const char* name : {"native.add.i32", "cas.add.f32"})
      for (uint32_t k : {1u, 1024u}) {
        ProfilePoint p;
        p.impl = atomstress::find_impl(name);
        ASSERT_NE(p.impl, nullptr);
        p.spec.impl = name;
        p.spec.k = k;
        p.items_per_second = 1e6 * k;
        if (std::string(name) == "cas.add.f32") p.baseline_items_per_second = 1.2e6 * k;
        html.record(p);
      }
    ASSERT_TRUE(html.finish()) << html.error();
  }
  std::ifstream in(page);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove(page);
  EXPECT_NE(text.find("cas.add.f32 (bare kernel)"), std::string::npos) << text;
  EXPECT_EQ(text.find("native.add.i32 (bare kernel)"), std::string::npos) << "no baseline, no companion";
  EXPECT_EQ(count(text, "stroke-dasharray"), 1u) << text;
}

TEST(SvgChart, LogAxesDropPointsTheyCannotShow) {
  const std::string chart = svg::line_chart("t", {"k", true}, {"y", true}, {{"s", {{0, 1}, {1, 0}, {2, 3}, {4, 5}}}});
  EXPECT_EQ(count(chart, "<circle"), 2u);
}

// ------------------------------------------------------------- the engine's rules

TEST(Profile, PercentileIsNearestRank) {
  std::vector<uint32_t> v{5, 1, 4, 2, 3};
  EXPECT_EQ(percentile(v, 0.5), 3u);
  EXPECT_EQ(percentile(v, 0.99), 5u);
  EXPECT_EQ(percentile(v, 0), 1u);
  std::vector<uint32_t> none;
  EXPECT_EQ(percentile(none, 0.5), 0u);
}

TEST(Profile, TimingStopsWhenQuietOrAtTheTimeCap) {
  ProfileSettings s;
  s.max_noise = 0.05;
  s.max_time_s = 0.2;
  Timing t;
  std::string error;
  ASSERT_TRUE(measure(s, [](uint32_t, double& sec, std::string&) { return sec = 1e-3, true; }, t, error));
  EXPECT_TRUE(t.converged);
  EXPECT_EQ(t.batches, s.min_batches);
  EXPECT_DOUBLE_EQ(t.s_per_launch, 1e-3);
  // Batches of 1 ms and 3 ms in turn: 50 % noise, never under 5 %.
  int call = 0;
  ASSERT_TRUE(measure(s, [&](uint32_t, double& sec, std::string&) { return sec = (call++ % 2 ? 3e-3 : 1e-3), true; },
                      t, error));
  EXPECT_FALSE(t.converged);
  EXPECT_GT(t.noise, 0.3);
  // A first launch that spends the whole cap is the measurement.
  s.max_time_s = 1e-9;
  ASSERT_TRUE(measure(s, [](uint32_t reps, double& sec, std::string&) { return sec = 0.5 + reps, true; }, t, error));
  EXPECT_EQ(t.batches, 1u);
  EXPECT_EQ(t.launches, 1u);
  EXPECT_DOUBLE_EQ(t.s_per_launch, 1.5);
  EXPECT_FALSE(t.converged);
  EXPECT_FALSE(measure(s, [](uint32_t, double&, std::string& e) { return e = "boom", false; }, t, error));
  EXPECT_EQ(error, "boom");
}

// The reports chart the hot addresses of the most contended point that has
// more than one (k = 1's single address is a chart of one bar).
TEST(Profile, MostContendedPrefersAPointWithSeveralHotAddresses) {
  auto point = [](double retries, size_t addresses, double items_per_second) {
    ProfilePoint p;
    p.retries_mean = retries;
    p.items_per_second = items_per_second;
    for (size_t a = 0; a < addresses; ++a) p.hotspots.push_back(Hotspot{uint32_t(a), 10, 1, 0});
    return p;
  };
  EXPECT_EQ(most_contended({}), nullptr);
  std::vector<ProfilePoint> v = {point(50, 1, 1e6), point(3, 4, 1e7), point(7, 2, 1e7), point(7, 8, 1e8)};
  EXPECT_EQ(most_contended(v), &v[2]) << "most retries among those with several addresses, then lowest throughput";
  v = {point(50, 1, 1e6), point(60, 1, 1e6)};
  EXPECT_EQ(most_contended(v), &v[1]) << "only single addresses: the most contended of them";
}

TEST(Profile, CsvFieldsAreQuotedWhenNeeded) {
  EXPECT_EQ(reports::csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(reports::csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(reports::csv_field("plain"), "plain");
}

// ---------------------------------------------------------------- end to end, cpu

TEST(Profile, CpuSweepWritesEveryReport) {
  const fs::path dir = scratch("reports");
  const auto r = profile("--backend cpu --impl native.add.i32,cas.add.f32 --k 1,4,32 --pattern uniform "
                         "--grid 2 --block 32 --ops-per-thread 2 --max-time-per-point 0.05 --baseline "
                         "--json " + (dir / "p.json").string() + " --csv " + (dir / "p.csv").string() +
                         " --markdown " + (dir / "p.md").string() + " --html " + (dir / "p.html").string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("baseline: skipped on the cpu backend"), std::string::npos) << r.out;

  std::set<std::string> expected;
  for (const char* e : {"native.add.i32", "cas.add.f32"})
    for (int k : {1, 4, 32})
      expected.insert(std::string(e) + "/k:" + std::to_string(k) +
                      "/pattern:uniform/grid:2/block:32/ops:2/space:global/dist:small");

  // Google Benchmark's JSON.
  const auto doc = nlohmann::json::parse(slurp(dir / "p.json"));
  for (const char* key : {"date", "host_name", "executable", "num_cpus", "mhz_per_cpu", "library_build_type"})
    EXPECT_TRUE(doc["context"].contains(key)) << key;
  ASSERT_EQ(doc["benchmarks"].size(), expected.size());
  std::set<std::string> names;
  for (const auto& b : doc["benchmarks"]) {
    names.insert(b["name"].get<std::string>());
    EXPECT_EQ(b["run_name"], b["name"]);
    EXPECT_EQ(b["run_type"], "iteration");
    EXPECT_EQ(b["time_unit"], "ns");
    EXPECT_GT(b["iterations"].get<uint64_t>(), 0u);
    EXPECT_GT(b["real_time"].get<double>(), 0);
    EXPECT_GT(b["items_per_second"].get<double>(), 0);
    for (const char* c : {"retries_p50", "retries_p99", "retries_max", "noise", "cpu_time"})
      EXPECT_TRUE(b.contains(c)) << c;
    EXPECT_LE(b["retries_p50"].get<uint32_t>(), b["retries_p99"].get<uint32_t>());
    EXPECT_LE(b["retries_p99"].get<uint32_t>(), b["retries_max"].get<uint32_t>());
    EXPECT_FALSE(b.contains("ratio_to_baseline"));  // no bare kernel on the cpu
  }
  EXPECT_EQ(names, expected);

  // CSV: a header, one row per point.
  std::istringstream csv(slurp(dir / "p.csv"));
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  EXPECT_EQ(line.rfind("name,entry,backend,k,", 0), 0u) << line;
  std::set<std::string> rows;
  while (std::getline(csv, line)) rows.insert(line.substr(0, line.find(',')));
  EXPECT_EQ(rows, expected);

  // Markdown: a table row per point.
  const std::string md = slurp(dir / "p.md");
  EXPECT_NE(md.find("| point |"), std::string::npos);
  for (const auto& n : expected) EXPECT_EQ(count(md, "| " + n + " |"), 1u) << n;

  // HTML: self-contained, charts as SVG, one polyline per entry in the throughput chart.
  const std::string html = slurp(dir / "p.html");
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://www.w3.org/2000/svg\"", 0) != std::string::npos, true);
  const size_t svg0 = html.find("<svg"), svg1 = html.find("</svg>", svg0);
  ASSERT_NE(svg1, std::string::npos);
  const std::string throughput = html.substr(svg0, svg1 + 6 - svg0);
  EXPECT_EQ(count(throughput, "<polyline"), 2u);
  EXPECT_GE(count(html, "<svg"), 2u);  // retries per op as well
  if (std::system("python3 -c 'import xml.dom.minidom' >/dev/null 2>&1") == 0) {
    size_t at = 0, n = 0;
    while ((at = html.find("<svg", at)) != std::string::npos) {
      const size_t end = html.find("</svg>", at) + 6;
      const fs::path svg_file = dir / ("chart" + std::to_string(n++) + ".svg");
      std::ofstream(svg_file) << html.substr(at, end - at);
      const auto x = run_shell("python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' " +
                               svg_file.string() + " 2>&1");
      EXPECT_EQ(x.status, 0) << svg_file << "\n" << x.out;
      at = end;
    }
  } else {
    GTEST_LOG_(INFO) << "no python3: the SVG's XML parse is not checked";
  }
  fs::remove_all(dir);
}

TEST(Profile, AlgorithmsAreProfiledAsElements) {
  const fs::path dir = scratch("algos");
  const auto r = profile("--backend cpu --impl hist.global@native.add.u32 --k 1,16 --grid 2 --block 32 "
                         "--ops-per-thread 2 --max-time-per-point 0.05 --csv " + (dir / "a.csv").string());
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string csv = slurp(dir / "a.csv");
  EXPECT_EQ(count(csv, "\n"), 3u) << csv;  // header, k=1 single, k=16 uniform
  EXPECT_NE(csv.find("/k:1/pattern:single/"), std::string::npos) << csv;
  EXPECT_NE(csv.find("/k:16/pattern:uniform/"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",element,"), std::string::npos) << csv;
  fs::remove_all(dir);
}

TEST(Profile, BadAxisValuesAreRefusedWithOneLine) {
  expect_refused("--k 0", "--k");
  expect_refused("--k 1,,4", "is empty");
  expect_refused("--k 4,4", "given twice");
  expect_refused("--k pow2:3:1", "exponent");
  expect_refused("--k pow2:0", "not a range");
  expect_refused("--k pow2:0:40", "exponent");
  expect_refused("--grid banana", "--grid");
  expect_refused("--block 2000", "out of range");
  expect_refused("--ops-per-thread -1", "negative");
  expect_refused("--pattern spiral", "--pattern");
  expect_refused("--space nowhere", "--space");
  expect_refused("--dist huge", "--dist");
  expect_refused("--max-noise 0", "percentage");
  expect_refused("--max-noise abc", "percentage");
  expect_refused("--max-time-per-point 0", "max-time-per-point");
  expect_refused("--batch-time 0", "batch-time");
  expect_refused("--batch-time 61", "out of range");
  expect_refused("--k pow2:0:20 --grid 1,2,3,4,5,6,7,8 --block 32,64,96,128 --ops-per-thread 1,2,3,4,5,6,7",
                 "4704 points");
  const auto r = profile("--backend cpu --impl no.such.thing");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("unknown implementation"), std::string::npos) << r.out;
}

// --batch-time is a timing sample's length: longer samples average more
// launches each (the first launch sizes them).
TEST(Profile, BatchTimeSetsTheLaunchesPerSample) {
  // The rule, on launches of a fixed 1 ms (measure's calibration launch says
  // how many make a batch of target_batch_s, at most 1000): timing-free, so
  // a loaded CI machine cannot flip it (the end-to-end ratio of two timed
  // runs once did).
  ProfileSettings s;
  s.max_noise = 1;
  Timing t;
  std::string error;
  auto per_batch = [&](double target_s) {
    s.target_batch_s = target_s;
    std::vector<uint32_t> reps;
    EXPECT_TRUE(measure(s, [&](uint32_t n, double& sec, std::string&) { return reps.push_back(n), sec = 1e-3, true; },
                        t, error));
    EXPECT_EQ(reps.at(0), 1u) << "the calibration launch";
    return double(t.launches) / double(t.batches);
  };
  EXPECT_DOUBLE_EQ(per_batch(0.01), 10.0);
  EXPECT_DOUBLE_EQ(per_batch(0.1), 100.0);
  EXPECT_DOUBLE_EQ(per_batch(60), 1000.0) << "capped";
  // The option reaches the rule: --batch-time 60 makes every batch the cap of
  // 1000 launches (one launch of 32 ops takes far less than 60 ms), and
  // --batch-time 0.000001 one launch (any launch takes more than 1 us).
  auto launches_per_batch = [&](const char* batch_time) {
    const fs::path json = scratch("batch_time") / (std::string(batch_time) + ".json");
    const auto r = profile("--backend cpu --impl native.add.i32 --k 4 --grid 1 --block 32 --ops-per-thread 1 "
                           "--max-noise 100 --max-time-per-point 1 --batch-time " + std::string(batch_time) +
                           " --json " + json.string());
    EXPECT_EQ(r.status, 0) << r.out;
    const auto doc = nlohmann::json::parse(slurp(json));
    const auto& b = doc["benchmarks"].at(0);
    return double(b["iterations"].get<uint64_t>()) / double(b["batches"].get<uint64_t>());
  };
  EXPECT_DOUBLE_EQ(launches_per_batch("60"), 1000.0);
  EXPECT_DOUBLE_EQ(launches_per_batch("0.000001"), 1.0);
}

// A point the entry's family refuses (privatised bins that do not fit shared
// memory) is reported as not applicable; the rest of the sweep is measured.
TEST(Profile, APointTheFamilyRefusesIsSkippedNotFatal) {
  const auto r = profile("--backend cpu --impl hist.shared@native.add.u32 --k 1,1048576 --max-time-per-point 0.05");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("not applicable: hist.shared@native.add.u32: impossible geometry"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hist.shared@native.add.u32/k:1/"), std::string::npos) << r.out;
}

// --cold flushes the GPU's L2: on the cpu backend it is accepted (the same
// command line runs in CPU CI and on a GPU machine) with one line saying it
// is ignored, and every point is reported as not cold.
TEST(Profile, ColdIsNotedAndIgnoredOnTheCpu) {
  const fs::path dir = scratch("cold");
  const auto r = profile("--backend cpu --impl native.add.i32 --k 1,4 --grid 2 --block 32 --ops-per-thread 2 "
                         "--max-time-per-point 0.05 --cold --csv " + (dir / "c.csv").string() + " --json " +
                         (dir / "c.json").string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(count(r.out, "cold: ignored on the cpu backend"), 1u) << r.out;
  const auto doc = nlohmann::json::parse(slurp(dir / "c.json"));
  ASSERT_EQ(doc["benchmarks"].size(), 2u);
  for (const auto& b : doc["benchmarks"]) EXPECT_EQ(b["cold"], 0) << b.dump();
  std::istringstream csv(slurp(dir / "c.csv"));
  std::string header, row;
  ASSERT_TRUE(std::getline(csv, header));
  auto fields = [](const std::string& line) {
    std::vector<std::string> out;
    std::stringstream ss(line);
    for (std::string f; std::getline(ss, f, ',');) out.push_back(f);
    return out;
  };
  const auto names = fields(header);
  const size_t column = size_t(std::find(names.begin(), names.end(), "cold") - names.begin());
  ASSERT_LT(column, names.size()) << header;
  size_t rows = 0;
  while (std::getline(csv, row)) {
    const auto f = fields(row);
    ASSERT_EQ(f.size(), names.size()) << row;
    EXPECT_EQ(f[column], "0") << row;
    ++rows;
  }
  EXPECT_EQ(rows, 2u);
  // Without --cold, no note.
  const auto hot = profile("--backend cpu --impl native.add.i32 --k 1 --grid 2 --block 32 --ops-per-thread 2 "
                           "--max-time-per-point 0.05");
  ASSERT_EQ(hot.status, 0) << hot.out;
  EXPECT_EQ(hot.out.find("cold:"), std::string::npos) << hot.out;
  const auto help = profile("--help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--cold"), std::string::npos) << help.out;
  fs::remove_all(dir);
}

// ------------------------------------------- the benchmark wrapper over profile

namespace {
Result bench_algos(const std::string& args) {
  return run_shell(bin_dir() + "atomstress_bench_algos " + args + " 2>&1");
}
}  // namespace

// Bad input is refused with one line and exit 2, with or without a GPU
// (profile's own parser: the same options, the same refusals).
TEST(BenchAlgos, BadProfileOptionsAreRefusedWithOneLine) {
  for (const char* args : {"--impl native.add.u32 --k 0", "--impl no.such.thing", "--impl native.add.u32 --max-noise 0", "--k 1", "--nope", "--impl native.add.u32 extra"}) {
    const auto r = bench_algos(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
    EXPECT_EQ(count(r.out, "\n"), 1u) << args << "\n" << r.out;
    EXPECT_EQ(r.out.rfind("atomstress_bench_algos: error: ", 0), 0u) << args << "\n" << r.out;
  }
  const auto help = bench_algos("--help");
  EXPECT_EQ(help.status, 0) << help.out;
  for (const char* option : {"--impl", "--k", "--cold", "--baseline", "--max-noise"})
    EXPECT_NE(help.out.find(option), std::string::npos) << option << "\n" << help.out;
}

TEST(BenchAlgos, WithoutAGpuItSaysSoInOneLineAndSkips) {
  std::string why;
  if (cuda_available(why)) GTEST_SKIP() << "a GPU is here: the CTest case bench_algos runs the wrapper on it";
  for (const char* args : {"", "--impl native.add.u32 --k 1,4 --cold", "--benchmark_filter=sum"}) {
    const auto r = bench_algos(args);
    EXPECT_EQ(r.status, 77) << args << "\n" << r.out;
    EXPECT_EQ(count(r.out, "\n"), 1u) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("no usable GPU"), std::string::npos) << r.out;
  }
}

// Issue 61 M8: a report is written through a temporary file and renamed at
// the end, so a profile killed part-way keeps the old report whole.
TEST(Profile, Defect61_M8_AnInterruptedProfileKeepsTheOldReport) {
  const fs::path dir = scratch("m8");
  for (const char* name : {"prev.json", "prev.csv", "prev.md"}) {
    std::ofstream(dir / name) << "old\n";
  }
  // A sweep of many points (each up to 0.5 s), stopped after a second.
  const auto r = run_shell("timeout -s INT 1 " + binary() + " profile --backend cpu --impl 'native.*' "
                           "--max-time-per-point 0.5 --json " + (dir / "prev.json").string() + " --csv " +
                           (dir / "prev.csv").string() + " --markdown " + (dir / "prev.md").string() + " 2>&1");
  EXPECT_NE(r.status, 0) << "the sweep ended within a second: " << r.out;
  for (const char* name : {"prev.json", "prev.csv", "prev.md"}) EXPECT_EQ(slurp(dir / name), "old\n") << name;
}
