// The command line's answers to bad input: one line, exit status 2, and
// nothing already recorded lost.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>

#include "harness/backend/backend.hpp"

namespace {

struct Result {
  int status;
  std::string out;  // stdout and stderr
};

// The atomstress program sits beside this test program (bin/).
std::string binary() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string self(buf, n > 0 ? size_t(n) : 0);
  return self.substr(0, self.rfind('/') + 1) + "atomstress";
}

Result run(const std::string& args) {
  const std::string cmd = binary() + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

void expect_one_line_error(const std::string& args, const std::string& needle) {
  const auto r = run(args);
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
TEST(Cli, FindsABugEndToEndOnTheCpuBackend) {
  const auto r = run("check --impl buggy.plain_rmw.add.i32 --backend cpu --pattern single --space global --trials 5");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("repro: atomstress repro as1."), std::string::npos) << r.out;
}
