// The command line's answers to bad input: one line, exit status 2, and
// nothing already recorded lost.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <algorithm>
#include <string>

#include "harness/backend/backend.hpp"
#include "harness/cli/check_plan.hpp"
#include "harness/cli/options.hpp"
#include "harness/pipeline/footprint.hpp"
#include "harness/pipeline/isolated.hpp"
#include "harness/support/hash.hpp"
#include "harness/workload/workload.hpp"
#include "reports/results.hpp"
#include "reports/text_printer.hpp"
#include "run_program.hpp"

namespace {

using atomstress::testing::binary;
using atomstress::testing::Result;
using atomstress::testing::run_shell;

Result run(const std::string& args, const std::string& shell_prefix = "") {
  return run_shell(shell_prefix + binary() + " " + args + " 2>&1");
}

size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }
size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

void expect_one_line_error(const std::string& args, const std::string& needle, const std::string& prefix = "") {
  const auto r = run(args, prefix);
  EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
  EXPECT_EQ(lines(r.out), 1u) << args << "\n" << r.out;
  EXPECT_NE(r.out.find("error"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(needle), std::string::npos) << args << "\n" << r.out;
}

}  // namespace

TEST(Cli, UnknownImplementation) {
  expect_one_line_error("check --impl no.such.atomic --backend cpu", "unknown implementation");
}
TEST(Cli, ImpossibleGeometry) {
  expect_one_line_error("check --impl native.add.i32 --backend cpu --block 2000", "impossible geometry");
  expect_one_line_error("check --impl native.add.i32 --backend cpu --pattern per_page --k 100 --space shared",
                        "shared memory");
}
TEST(Cli, BadOptions) {
  expect_one_line_error("check --impl native.add.i32 --backend tpu", "unknown backend");
  expect_one_line_error("check --impl native.add.i32 --pattern spiral", "unknown pattern");
  expect_one_line_error("check --impl native.add.i32 --grid banana", "grid");
  expect_one_line_error("check", "--all or --impl");
  expect_one_line_error("frobnicate", "unknown command");
}
TEST(Cli, BlockScopeOnSharedAddressesIsRefused) {
  expect_one_line_error("check --impl native.add_block.i32 --backend cpu --pattern single --space global",
                        "block scope");
}
TEST(Cli, MalformedReproductionTokens) {
  expect_one_line_error("repro as1.native.add.i32.1.2.3 --backend cpu", "truncated");
  expect_one_line_error("repro hello --backend cpu", "malformed reproduction token");
  expect_one_line_error("repro as1.native.add.i32.4.64.4.0.0.32.1.0.0.1.1234.deadbeef --backend cpu", "checksum");
}
TEST(Cli, ReproTokenRoundTrip) {
  // A token printed by check replays; a correct implementation never fails.
  const auto r = run("repro as1.native.add.i32.4.64.4.0.0.32.1.0.0.1.1234.00000000 --backend cpu");
  EXPECT_EQ(r.status, 2);  // wrong checksum
  const auto l = run("list --impl cas.add.f32 --verbose");
  EXPECT_EQ(l.status, 0);
  EXPECT_NE(l.out.find("subnormals"), std::string::npos) << l.out;
}
// list reads --impl as check does: a comma list of names and globs (it
// took one glob, and "a,b" matched nothing).
TEST(Cli, ListTakesTheImplListCheckTakes) {
  const auto l = run("list --impl native.add.i32,'cas.max.*'");
  ASSERT_EQ(l.status, 0) << l.out;
  EXPECT_EQ(l.out.rfind("native.add.i32 ", 0), 0u) << l.out;
  EXPECT_NE(l.out.find("\ncas.max.f32 "), std::string::npos) << l.out;
  expect_one_line_error("list --impl native.add.i32,no.such.entry", "no.such.entry");
  expect_one_line_error("list --impl native.add.i32,", "empty item");
}
TEST(Cli, CudaWithoutGpuIsAnError) {
  std::string why;
  if (atomstress::cuda_available(why)) GTEST_SKIP() << "a GPU is present";
  expect_one_line_error("check --impl native.add.i32 --backend cuda", "no CUDA device");
  EXPECT_EQ(run("check --impl native.add.i32 --backend cuda --skip-without-gpu").status, 77);
}
TEST(Cli, JsonReportKeepsEarlierRecordsOnLaterBadInput) {
  const std::string path = ::testing::TempDir() + "atomstress_cli.jsonl";
  std::remove(path.c_str());
  ASSERT_EQ(run("check --impl native.add.i32 --backend cpu --pattern single --space global --trials 2 --json " + path)
                .status,
            0);
  // A second run that fails on bad input must not truncate the file.
  EXPECT_EQ(run("check --impl native.add.i32 --backend cpu --block 5000 --json " + path).status, 2);
  std::ifstream f(path);
  std::string line;
  size_t n = 0;
  while (std::getline(f, line)) {
    EXPECT_NE(line.find("\"verdict\":\"PASS\""), std::string::npos) << line;
    ++n;
  }
  EXPECT_EQ(n, 2u);
}
TEST(Cli, JsonReportCarriesTheFindingAsData) {
  const std::string path = ::testing::TempDir() + "atomstress_cli_finding.jsonl";
  std::remove(path.c_str());
  const auto r = run("check --impl buggy.returns_new.add.f32 --backend cpu --pattern single --space global "
                     "--trials 3 --json " + path);
  ASSERT_EQ(r.status, 1) << r.out;
  std::ifstream f(path);
  std::string line, failing, shrunk;
  while (std::getline(f, line)) {
    // The trials' lines, and check's line for the failure it shrank.
    if (line.find("\"record\":\"shrunk\"") != std::string::npos) shrunk = line;
    else if (line.find("\"verdict\":\"FAIL\"") != std::string::npos) failing = line;
  }
  ASSERT_FALSE(failing.empty());
  ASSERT_FALSE(shrunk.empty());
  EXPECT_NE(shrunk.find("\"token\":\"as2."), std::string::npos) << shrunk;
  EXPECT_NE(shrunk.find("\"first_token\":\"as2."), std::string::npos) << shrunk;
  EXPECT_NE(failing.find("\"finding\":{"), std::string::npos) << failing;
  EXPECT_NE(failing.find("\"kind\":\"unexplained\""), std::string::npos) << failing;
  EXPECT_NE(failing.find("\"address\":0"), std::string::npos) << failing;
  EXPECT_NE(failing.find("\"observed\":{\"bits\":"), std::string::npos) << failing;
  EXPECT_NE(failing.find("\"value_kind\":\"f32\""), std::string::npos) << failing;
}
TEST(Cli, FindsABugEndToEndOnTheCpuBackend) {
  const auto r = run("check --impl buggy.plain_rmw.add.i32 --backend cpu --pattern single --space global --trials 5");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("repro: atomstress repro as2."), std::string::npos) << r.out;
}

// A bug that is wrong alone (its class semantics) is never told as a lost
// update, shrunk or not; a race still is.
TEST(Cli, ASemanticBugIsNotToldAsALostUpdate) {
  for (const char* shrink : {"", " --no-shrink"}) {
    const auto sem = run(std::string("check --impl buggy.inc_gt.u32,buggy.dec_no_above.u32 --backend cpu --trials 2") +
                         shrink);
    EXPECT_EQ(sem.status, 1) << sem.out;
    EXPECT_EQ(count(sem.out, "[semantics]"), 2u) << sem.out;
    EXPECT_EQ(sem.out.find("lost"), std::string::npos) << sem.out;
    EXPECT_NE(sem.out.find("alone, in program order, an op already stores what its spec does not"), std::string::npos)
        << sem.out;
    // Nor by repro, its runs or its shrinking.
    const auto at = sem.out.find("repro: atomstress repro ") + 24;
    ASSERT_NE(at, std::string::npos + 24) << sem.out;
    const std::string token = sem.out.substr(at, sem.out.find(' ', at) - at);
    const auto again = run("repro " + token + " --backend cpu --runs 2 --shrink");
    EXPECT_EQ(again.status, 1) << again.out;
    EXPECT_NE(again.out.find("class: semantics"), std::string::npos) << again.out;
    EXPECT_EQ(again.out.find("lost"), std::string::npos) << again.out;
    const auto race = run(std::string("check --impl buggy.exch_store.add.i32 --backend cpu --trials 2") + shrink);
    EXPECT_NE(race.out.find("[atomicity]"), std::string::npos) << race.out;
    EXPECT_NE(race.out.find("update was lost"), std::string::npos) << race.out;
  }
}

TEST(Cli, CheckShrinksAFailureAndItsReproFailsAgain) {
  const auto r = run("check --impl buggy.plain_rmw.add.i32 --backend cpu --pattern single --space global --trials 2 "
                     "--yield 300");
  EXPECT_EQ(r.status, 1) << r.out;
  // The first failure (4 x 64 x 4 ops on the cpu backend), then a smaller one.
  const auto first = r.out.find("first: buggy.plain_rmw.add.i32 grid=4 block=64"), shrunk = r.out.find("shrunk: ");
  ASSERT_NE(first, std::string::npos) << r.out;
  ASSERT_NE(shrunk, std::string::npos) << r.out;
  const auto ops_at = r.out.find(" ops)", shrunk), open = r.out.rfind('(', ops_at);
  const unsigned long ops = std::stoul(r.out.substr(open + 1, ops_at - open - 1));
  EXPECT_LT(ops, 1024ul) << r.out;
  // The case printed is one whose failure recurred ("failed N of 10", N > 0),
  // and its repro line carries the --yield it ran with (as2 ... .300.4.0.1048576.checksum).
  EXPECT_EQ(r.out.find("(failed 0 of"), std::string::npos) << r.out;
  const auto tok_at = r.out.find("repro: atomstress repro as2.");
  ASSERT_NE(tok_at, std::string::npos) << r.out;
  const std::string token = r.out.substr(tok_at + 24, r.out.find(' ', tok_at + 24) - tok_at - 24);
  EXPECT_NE(token.find(".300.4.0.1048576."), std::string::npos) << token;
  // A bug no interleaving hides (an add that returns the new value) shrinks
  // to one op, and its repro line fails every time.
  const auto inc = run("check --impl buggy.returns_new.add.f32 --backend cpu --pattern single --space global --trials 2");
  EXPECT_NE(inc.out.find("(1 ops)"), std::string::npos) << inc.out;
  const auto inc_at = inc.out.find("repro: atomstress repro as2.");
  ASSERT_NE(inc_at, std::string::npos) << inc.out;
  const auto again = run("repro " + inc.out.substr(inc_at + 24, inc.out.find(' ', inc_at + 24) - inc_at - 24) +
                         " --backend cpu --runs 3");
  EXPECT_EQ(again.status, 1) << again.out;
  EXPECT_NE(again.out.find("failed 3 of 3 runs"), std::string::npos) << again.out;
  // --no-shrink prints the failure as found.
  const auto raw = run("check --impl buggy.plain_rmw.add.i32 --backend cpu --pattern single --space global --trials 2 "
                       "--no-shrink");
  EXPECT_EQ(raw.out.find("shrunk: "), std::string::npos) << raw.out;
  EXPECT_NE(raw.out.find("spec: buggy.plain_rmw.add.i32 grid=4 block=64"), std::string::npos) << raw.out;
}
TEST(Cli, ReproShrinksAToken) {
  const auto found = run("check --impl buggy.plain_rmw.add.i32 --backend cpu --pattern single --space global --trials 2 "
                         "--no-shrink");
  const auto at = found.out.find("repro: atomstress repro ");
  ASSERT_NE(at, std::string::npos) << found.out;
  const std::string token = found.out.substr(at + 24, found.out.find(' ', at + 24) - at - 24);
  const auto r = run("repro " + token + " --backend cpu --runs 3 --shrink --shrink-time 20");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("shrunk: buggy.plain_rmw.add.i32 grid="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  repro: atomstress repro as2."), std::string::npos) << r.out;
  // A malformed --shrink-time is refused like any other number.
  expect_one_line_error("repro " + token + " --shrink --shrink-time -1", "shrink-time");
}

// ---------------------------------------------------------------- hardening

namespace {
const std::string kCas = "check --impl cas.add.f32 --backend cpu --pattern single --space global --trials 1 ";
const std::string kLock = "check --impl lock.device@native.cas.u32 --backend cpu --trials 1 ";

std::string token_of(const char* impl, uint32_t grid, uint32_t block) {
  atomstress::TrialSpec s;
  s.impl = impl;
  s.grid = grid;
  s.block = block;
  s.seed = 7;
  return atomstress::encode_token(s, atomstress::TrialKnobs{});
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), {});
}
}  // namespace

TEST(CliNumbers, ParserRefusesWhatIsNotAWholeNumberInRange) {
  using atomstress::parse_unsigned;
  std::string why;
  EXPECT_EQ(parse_unsigned("42", 0, 100, why), 42u);
  EXPECT_EQ(parse_unsigned("0", 0, 100, why), 0u);
  EXPECT_EQ(parse_unsigned("18446744073709551615", 0, ~0ull, why), ~0ull);
  for (const char* bad : {"", "-1", "-0", "+1", " 1", "1 ", "1x", "0x10", "1e3", "nan", "inf", "1.5",
                          "18446744073709551616", "101"}) {
    EXPECT_FALSE(parse_unsigned(bad, 0, 100, why)) << bad;
    EXPECT_EQ(why.find('\n'), std::string::npos);
  }
  EXPECT_FALSE(parse_unsigned("101", 0, 100, why));
  EXPECT_NE(why.find("(0 to 100)"), std::string::npos) << why;
}
TEST(CliNumbers, SecondsAreFinitePositiveAndCapped) {
  using atomstress::cli::parse_seconds;
  std::string why;
  EXPECT_EQ(parse_seconds("2.5", 3600, why), 2.5);
  for (const char* bad : {"", "0", "-1", "nan", "inf", "-inf", "1e9", "2s", "1e400"})
    EXPECT_FALSE(parse_seconds(bad, 3600, why)) << bad;
}
TEST(CliNumbers, EveryCommandRefusesBadNumbersWithOneLine) {
  expect_one_line_error(kCas + "--watchdog-ms 18446744073709551615", "3600000");
  expect_one_line_error(kCas + "--watchdog-ms -1", "negative");
  expect_one_line_error(kCas + "--watchdog-ms 18446744073709", "3600000");
  expect_one_line_error(kLock + "--watchdog-ms 18446744073709551615", "3600000");
  expect_one_line_error("repro as1.x --backend cpu --watchdog-ms 18446744073709551615", "3600000");
  expect_one_line_error(kCas + "--trials -1", "--trials");
  expect_one_line_error(kCas + "--trials 3x", "--trials");
  expect_one_line_error(kCas + "--grid ''", "--grid");
  expect_one_line_error(kCas + "--special -2", "--special");
  expect_one_line_error(kCas + "--special 1001", "(0 to 1000)");
  expect_one_line_error(kCas + "--yield 1001", "(0 to 1000)");
  expect_one_line_error(kCas + "--cpu-threads 5000", "(1 to 256)");
  expect_one_line_error(kCas + "--cpu-threads 0", "(1 to 256)");
  expect_one_line_error(kCas + "--k 4294967295", "--k");
  expect_one_line_error("repro as1.x --runs 0", "--runs");
  expect_one_line_error("list --impl ''", "--impl");
  for (const char* b : {"inf", "nan", "-1", "0", "1e9", ""})
    expect_one_line_error(std::string("selftest --backend cpu --budget-s '") + b + "'", "--budget-s");
}
TEST(CliNumbers, AHugeWatchdogWithinTheCapPassesCorrectCode) {
  // The deadline saturates rather than wrapping into the past (a HANG).
  EXPECT_EQ(run(kCas + "--watchdog-ms 3600000").status, 0);
  EXPECT_EQ(run(kLock + "--watchdog-ms 3600000").status, 0);
  EXPECT_EQ(run("repro " + token_of("cas.add.f32", 2, 32) + " --backend cpu --runs 2 --watchdog-ms 3600000").status, 0);
  using prim::deadline_after_ms;
  EXPECT_EQ(deadline_after_ms(5, 18446744073709551615ull), ~0ull);
  EXPECT_EQ(deadline_after_ms(~0ull - 10, 1), ~0ull);
  EXPECT_EQ(deadline_after_ms(5, 2), 2000005u);
}
TEST(CliOptions, NoGuessingNoExtrasNoEmptyLists) {
  expect_one_line_error(kCas + "--trial 3", "unrecognised option");
  expect_one_line_error(kCas + "surplus", "positional");
  expect_one_line_error("repro as1.a as1.b --backend cpu", "positional");
  expect_one_line_error("list surplus", "positional");
  expect_one_line_error("check --impl ,,, --backend cpu", "names no implementation");
  expect_one_line_error(kCas + "--json ''", "--json");
  expect_one_line_error("check --impl native.add.i32 --backend cpu --pattern single,single", "twice");
}

// --checker: four words on every command that runs trials; on the cpu
// backend every one of them checks on the host and gives the same verdict.
TEST(CliOptions, CheckerTakesFourWords) {
  for (const char* cmd : {"check --impl native.add.i32 --backend cpu", "repro as1.native.add.i32.1.1.1.0.0.1.1.0.0.1.0",
                          "selftest --backend cpu", "fuzz --backend cpu --impl native.add.i32"})
    expect_one_line_error(std::string(cmd) + " --checker fast", "'fast' is not auto, cpu, gpu or both");
  for (const char* c : {"auto", "cpu", "gpu", "both"})
    EXPECT_EQ(run(kCas + "--checker " + std::string(c)).status, 0) << c;
}
TEST(CliOptions, HelpAndVersion) {
  for (const char* cmd : {"list", "check", "repro", "selftest"}) {
    const auto r = run(std::string(cmd) + " --help");
    EXPECT_EQ(r.status, 0) << cmd;
    EXPECT_NE(r.out.find("--help"), std::string::npos) << r.out;
  }
  const auto v = run("--version");
  EXPECT_EQ(v.status, 0);
  EXPECT_EQ(v.out.rfind("atomstress " ATOMSTRESS_TEST_VERSION " (CUDA architectures ", 0), 0u) << v.out;
}
TEST(CliMemory, ATrialThatDoesNotFitIsRefusedBeforeAllocating) {
  // 2^28 float words: about 6 GiB of host memory; under a 3 GB address-space
  // limit that cannot fit (unchecked: std::bad_alloc, or gigabytes used).
  const std::string big = "check --impl native.add.f32 --backend cpu --pattern uniform --space global --grid 1 "
                          "--block 1 --ops-per-thread 1 --trials 1 --k ";
  expect_one_line_error(big + "268435456", "too large", "ulimit -v 3000000; ");
  expect_one_line_error("repro " + [] {
    atomstress::TrialSpec s;
    s.impl = "native.add.f32";
    s.grid = 1;
    s.block = 1;
    s.pattern = atomstress::Pattern::Uniform;
    s.k = 268435456;
    return atomstress::encode_token(s, atomstress::TrialKnobs{});
  }() + " --backend cpu", "too large", "ulimit -v 3000000; ");
  // The same trial with a small k fits under the same limit.
  EXPECT_EQ(run(big + "1024", "ulimit -v 3000000; ").status, 0);
  // The estimate grows with ops and memory.
  atomstress::TrialSpec s;
  s.impl = "native.add.f32";
  s.pattern = atomstress::Pattern::Uniform;
  s.k = 1 << 20;
  const auto small = atomstress::estimate_footprint(s, atomstress::BackendKind::Cpu);
  s.grid = 4096;
  const auto more_ops = atomstress::estimate_footprint(s, atomstress::BackendKind::Cpu);
  ASSERT_TRUE(small && more_ops);
  EXPECT_GE(small->host_bytes, uint64_t(1 << 20) * 4);
  EXPECT_GT(more_ops->host_bytes, small->host_bytes + s.ops() * 37);
  // On the device: the memory, its pristine copy and the initial values the
  // device's expansion writes, 64 bits each.
  const auto on_gpu = atomstress::estimate_footprint(s, atomstress::BackendKind::Cuda);
  ASSERT_TRUE(on_gpu);
  EXPECT_GE(on_gpu->device_bytes, uint64_t(1 << 20) * (4 + 8 + 8));
}
TEST(CliThreads, FailedThreadStartIsOneLineNotAnAbort) {
  // 256 host threads under a 1 GB address-space limit: some cannot start.
  const auto r = run("check --impl native.add.i32 --backend cpu --pattern single --space global --grid 4 --block 64 "
                     "--trials 1 --cpu-threads 256",
                     "ulimit -v 1000000; ");
  if (r.status == 0) GTEST_SKIP() << "every thread started under the limit";
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(lines(r.out), 1u) << r.out;
  EXPECT_NE(r.out.find("cannot start"), std::string::npos) << r.out;
}
TEST(CliReports, WriteErrorsAreExitTwoWithOneLine) {
  expect_one_line_error("check --impl native.add.i32 --backend cpu --pattern single --space global --trials 1 "
                        "--quiet --json /dev/full",
                        "cannot write '/dev/full'");
  // stderr to the pipe, stdout to the full device.
  const auto l = run_shell(binary() + " list 2>&1 >/dev/full");
  EXPECT_EQ(lines(l.out), 1u) << l.out;
  EXPECT_EQ(l.status, 2);
  EXPECT_NE(l.out.find("cannot write standard output"), std::string::npos) << l.out;
  EXPECT_EQ(run("list > /dev/null").status, 0);
}
TEST(CliReports, JsonStartsOnAFreshLine) {
  const std::string path = ::testing::TempDir() + "atomstress_cli_nonl.jsonl";
  {
    std::ofstream f(path, std::ios::trunc);
    f << "{\"earlier\":1}";  // no newline
  }
  ASSERT_EQ(run("check --impl native.add.i32 --backend cpu --pattern single --space global --trials 1 --json " + path)
                .status,
            0);
  const std::string text = read_file(path);
  EXPECT_EQ(text.rfind("{\"earlier\":1}\n{", 0), 0u) << text;
  EXPECT_EQ(lines(text), 2u) << text;
}
TEST(CliGpu, SkipWithoutGpuOnAutoExits77) {
  std::string why;
  if (atomstress::cuda_available(why)) GTEST_SKIP() << "a GPU is present";
  const auto r = run("check --impl native.add.i32 --backend auto --skip-without-gpu");
  EXPECT_EQ(r.status, 77) << r.out;
  EXPECT_EQ(lines(r.out), 1u) << r.out;
}
TEST(CliSeeds, ATrialSeedFollowsTheNameNotTheCataloguePosition) {
  using namespace atomstress;
  // FNV-1a 64 reference values.
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  CheckOptions o;
  o.impl = "native.add.i32";
  CheckPlan plan;
  std::string error;
  o.backend = "cpu";
  ASSERT_TRUE(make_plan(o, plan, error)) << error;
  const Entry& entry = *find_impl("native.add.i32");
  Entry moved = entry;  // the same entry at another catalogue position
  moved.index = entry.index + 17;
  for (uint32_t t = 0; t < 3; ++t) {
    const auto a = plan_trial(plan, entry, Pattern::Uniform, Space::Global, t);
    const auto b = plan_trial(plan, moved, Pattern::Uniform, Space::Global, t);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->seed, b->seed);
    EXPECT_EQ(a->seed, counter_rng(o.seed, counter_rng(fnv1a64("native.add.i32"), uint64_t(Pattern::Uniform) * 2, 0), t));
  }
  // Different names give different trials.
  const auto other = plan_trial(plan, *find_impl("native.add.u32"), Pattern::Uniform, Space::Global, 0);
  EXPECT_NE(other->seed, plan_trial(plan, entry, Pattern::Uniform, Space::Global, 0)->seed);
}

// An entry's verdict lines reach standard output as the entry ends, not at
// exit: a check piped into a CI log (or tee) and killed later keeps them.
// The printer writes into a fully buffered pipe in a child that then exits
// without flushing stdio (_exit): only what was written by then arrives.
TEST(CliLog, AnEntrysVerdictLinesAreWrittenAsItEndsNotAtExit) {
  using namespace atomstress;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::fflush(stdout);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], STDOUT_FILENO);
    static char buffer[1 << 16];
    setvbuf(stdout, buffer, _IOFBF, sizeof buffer);  // as stdout into a pipe or a file
    reports::ImplSummary s;
    s.impl = find_impl("native.add.i32");
    s.backend = BackendKind::Cpu;
    s.trials = 1;
    reports::TextPrinter printer(false, false);
    printer.record(s);
    _exit(0);  // as a kill -9 would: stdio's buffer is not written
  }
  close(fds[1]);
  std::string out;
  char chunk[4096];
  for (ssize_t n; (n = read(fds[0], chunk, sizeof chunk)) > 0;) out.append(chunk, size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_NE(out.find("PASS  native.add.i32"), std::string::npos) << "[" << out << "]";
}

// check's time line with trials at once: on the GPU their kernels' union is
// the busy share (the sum passes the wall time and says nothing of it).
TEST(CliPlan, TheTimeLineOfTrialsAtOnceGivesTheGpusBusyShareFromTheUnionOfTheirKernels) {
  atomstress::CheckTimes t;
  t.wall_ms = 10000;
  t.run_ms = 30000;
  t.busy_ms = 5000;
  t.check_ms = 4000;
  const std::string cuda = atomstress::check_time_line(t, atomstress::BackendKind::Cuda, 4);
  EXPECT_NE(cuda.find("up to 4 trials at once; the code under test ran 30.00 s summed over the trials, the GPU busy "
                      "with it 5.00 s (50%: the GPU's busy share), checking 4.00 s summed"),
            std::string::npos)
      << cuda;
  const std::string cpu = atomstress::check_time_line(t, atomstress::BackendKind::Cpu, 4);
  EXPECT_EQ(cpu.find("busy"), std::string::npos) << cpu;
  EXPECT_NE(cpu.find("ran 30.00 s summed over the trials (300% of the wall time)"), std::string::npos) << cpu;
  atomstress::CheckTimes one = t;
  one.run_ms = 2500;
  const std::string alone = atomstress::check_time_line(one, atomstress::BackendKind::Cuda, 1);
  EXPECT_NE(alone.find("the code under test ran 2.50 s (25%: the GPU's busy share)"), std::string::npos) << alone;
  // The device's checking of the trials keeps the GPU busy too: both shares.
  atomstress::CheckTimes checked = t;
  checked.gpu_busy_ms = 7000;
  const std::string both = atomstress::check_time_line(checked, atomstress::BackendKind::Cuda, 4);
  EXPECT_NE(both.find("the GPU busy with it 5.00 s (50%) and with it and the device's checking of its trials "
                      "7.00 s (70%: the GPU's busy share), checking 4.00 s summed"),
            std::string::npos)
      << both;
}

// On cuda, check's automatic plan runs a trial with every op on one global
// word at one op per thread on half the grid (it was most of `check --all`'s
// time); every other trial, the cpu plan and an explicit geometry keep theirs.
// (The plan is host code: built here with the backend set by hand.)
TEST(CliPlan, AOneWordTrialOnCudaRunsOneOpPerThreadOnHalfTheGrid) {
  using namespace atomstress;
  CheckOptions o;
  o.impl = "cas.add.i32";
  o.backend = "cpu";
  CheckPlan plan;
  std::string error;
  ASSERT_TRUE(make_plan(o, plan, error)) << error;
  ASSERT_TRUE(plan.auto_geometry);
  const Entry& entry = *find_impl("cas.add.i32");
  const auto cpu_single = plan_trial(plan, entry, Pattern::Single, Space::Global, 0);
  ASSERT_TRUE(cpu_single);
  EXPECT_EQ(cpu_single->grid, 4u);
  EXPECT_EQ(cpu_single->ops_per_thread, 4u);

  plan.backend = BackendKind::Cuda;
  plan.opt.grid = 264;  // 2 x 132 SMs, 256 threads, 4 ops: make_plan's cuda defaults on an H100
  plan.opt.block = 256;
  for (uint32_t t = 0; t < 3; ++t) {
    const auto single = plan_trial(plan, entry, Pattern::Single, Space::Global, t);
    ASSERT_TRUE(single);
    EXPECT_EQ(single->grid, 132u);
    EXPECT_EQ(single->block, 256u);
    EXPECT_EQ(single->ops_per_thread, 1u);
    EXPECT_EQ(single->seed, trial_seed(o.seed, "cas.add.i32", Pattern::Single, Space::Global, t));
    for (const auto& [p, s] : {std::pair{Pattern::Single, Space::Shared}, std::pair{Pattern::Uniform, Space::Global},
                               std::pair{Pattern::PerBlock, Space::Global}}) {
      const auto other = plan_trial(plan, entry, p, s, t);
      ASSERT_TRUE(other);
      EXPECT_EQ(other->grid, 264u);
      EXPECT_EQ(other->ops_per_thread, 4u);
    }
  }
  plan.auto_geometry = false;  // --grid, --block or --ops-per-thread given
  const auto asked = plan_trial(plan, entry, Pattern::Single, Space::Global, 0);
  EXPECT_EQ(asked->grid, 264u);
  EXPECT_EQ(asked->ops_per_thread, 4u);
}

// The 16-bit float adds and the 64-bit inc/dec, with every form each fits,
// pass `check` on the cpu backend (the warp forms are cuda only: SKIP), and
// `list -v` states their specs.
TEST(CliValueKinds, HalfFloatAddsAndWideIncDecPassCheckAndListTheirSpecs) {
  const char* entries[] = {"native.add.f16", "cas.add.f16", "native.add.bf16", "cas.add.bf16", "cas.inc.u64",
                           "cas.dec.u64"};
  const auto r = run("check --impl 'native.add.f16,cas.add.f16,native.add.bf16,cas.add.bf16,cas.inc.u64,cas.dec.u64,"
                     "sum.*@*.f16,sum.*@*.bf16,hist.global@cas.inc.u64' --backend cpu --trials 2 --grid 3 --block 40 "
                     "--ops-per-thread 3");
  EXPECT_EQ(r.status, 0) << r.out;
  for (const char* e : entries) EXPECT_NE(r.out.find(std::string("PASS  ") + e + " "), std::string::npos) << e << "\n" << r.out;
  for (const char* e : {"sum.block@native.add.f16", "sum.thread@cas.add.bf16", "hist.global@cas.inc.u64"})
    EXPECT_NE(r.out.find(std::string("PASS  ") + e + " "), std::string::npos) << e << "\n" << r.out;
  EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;

  const auto l = run("list -v");
  EXPECT_EQ(l.status, 0) << l.out;
  for (const char* needle : {"native.add.f16                               f16  old + a, round to nearest even",
                             "cas.add.bf16                                 bf16 old + a, round to nearest even",
                             "subnormals:  kept (atom.add.noftz.f16)", "states:      all NaNs equal",
                             "wrap:        a = 64-bit limit, atomicInc's formula at 64 bits"})
    EXPECT_NE(l.out.find(needle), std::string::npos) << needle << "\n" << l.out;
}

// Issue 28, defect 2: geometry arithmetic is checked.  grid x block x ops
// per thread = 2^64 + 1024 wrapped to 1024 ops: a correct entry got CRASH
// (the worker faulted), rc 139 with --isolate off; now "too large" with
// the true size, exit 2, before anything is allocated, in every command.
TEST(Cli, Defect02_AGeometryPast2To64IsTooLargeWithItsTrueSize) {
  const std::string geometry = " --grid 71442688 --block 962 --ops-per-thread 268402690";
  for (const std::string& cmd :
       {"check --impl native.add.i32 --backend cpu --trials 1 --pattern single" + geometry,
        "check --impl native.add.i32 --backend cpu --trials 1 --pattern single --isolate off" + geometry,
        "profile --impl native.add.i32 --backend cpu --k 1" + geometry})
    expect_one_line_error(cmd, "too large", "");
  const auto r = run("check --impl native.add.i32 --backend cpu --trials 1 --pattern single" + geometry);
  EXPECT_NE(r.out.find("18446744073709552640"), std::string::npos) << r.out;  // 2^64 + 1024, not 1024
  // The estimate never wraps either.
  atomstress::TrialSpec s;
  s.impl = "native.add.i32";
  s.grid = 71442688;
  s.block = 962;
  s.ops_per_thread = 268402690;
  const auto f = atomstress::estimate_footprint(s, atomstress::BackendKind::Cpu);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->ops, ~uint64_t(0));
  EXPECT_EQ(atomstress::decimal(f->ops_exact), "18446744073709552640");
  std::string error;
  EXPECT_FALSE(atomstress::footprint_fits(s, atomstress::BackendKind::Cpu, error));
}

// Issue 28, defect 16: profile says "too large", not "no point applies".
TEST(Cli, Defect16_ProfileSaysTooLarge) {
  const auto r = run("profile --impl native.add.i32 --backend cpu --k 1 --grid 65536 --block 1024 --ops-per-thread 64");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("too large"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("no point of the sweep applies"), std::string::npos) << r.out;
}

// Issue 28, defect 14: a case file that is not there cannot be read (it is
// not a malformed token).
TEST(Cli, Defect14_ReproOfAMissingFileSaysCannotRead) {
  for (const std::string f : {"/nonexistent/file.case", "missing.case", "/tmp"})
    expect_one_line_error("repro " + f + " --backend cpu", "cannot read");
}

// Issue 28, defect 15: --version refuses positional extras like every command.
TEST(Cli, Defect15_VersionRefusesExtras) { expect_one_line_error("--version extra", "extra"); }

// Issue 28 (defect 4's kind, in profile): two reports naming one file are
// refused before anything is measured.
TEST(Cli, ProfileRefusesTwoReportsNamingOneFile) {
  const std::string f = ::testing::TempDir() + "atomstress_profile_same_" + std::to_string(getpid());
  expect_one_line_error("profile --impl native.add.i32 --backend cpu --k 1 --json " + f + " --csv " + f,
                        "name the same file");
  std::remove(f.c_str());
}

// Issue 61, M4: a correct entry over a large region is never HANG: the
// worker's deadline gives its memory time to fill and be checked (a 2^27
// word region took 10.6 s on 2 cores, 3.8 GB at its peak, where the
// deadline was 3 s).
TEST(Cli, Issue61_M4_ALargeRegionIsNotAHang) {
  const auto r = run("check --backend cpu --impl native.add.i32 --pattern uniform --k 134217728 --grid 1 --block 1 "
                     "--ops-per-thread 1 --trials 1 --no-shrink --space global");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
  EXPECT_EQ(atomstress::memory_allowance_ms(1u << 10), 0u) << "small trials keep their deadline";
  EXPECT_GE(atomstress::memory_allowance_ms(1u << 28), 100'000u) << "0.5 us a word";
}

// Issue 61, M5: profile's estimate covers its peak (61 B a word measured):
// a sweep that would not fit is refused before it runs, never a bad_alloc.
TEST(Cli, Issue61_M5_ProfilesEstimateCoversItsCopies) {
  atomstress::TrialSpec s;
  s.impl = "native.add.i32";
  s.pattern = atomstress::Pattern::Uniform;
  s.k = 1u << 24;
  const auto trial = atomstress::estimate_footprint(s, atomstress::BackendKind::Cpu);
  const auto point =
      atomstress::estimate_footprint(s, atomstress::BackendKind::Cpu, atomstress::FootprintOf::ProfilePoint);
  ASSERT_TRUE(trial && point);
  EXPECT_GE(point->host_bytes, 61ull << 24);
  EXPECT_GT(point->host_bytes, trial->host_bytes);
  expect_one_line_error("profile --backend cpu --impl native.add.i32 --k 67108864 --pattern uniform --grid 1 --block 1 "
                        "--ops-per-thread 1 --space global --dist small --max-time-per-point 0.5",
                        "too large for this machine", "ulimit -v 3000000; ");
}
