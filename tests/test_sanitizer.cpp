// --sanitize's host half on the CPU (issue #30): compute-sanitizer's logs
// (memcheck, racecheck, synccheck, in the older and the newer location
// forms, cut short) parsed and explained in the buffers' own terms; the
// report folded into a trial's verdict; the worker's command line; finding
// the tool, and the one-line errors when it cannot run.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "harness/cli/options.hpp"
#include "harness/pipeline/sanitizer.hpp"
#include "harness/pipeline/trial_json.hpp"

using namespace atomstress;
using namespace atomstress::sanitizer;

namespace {

// Three reports: an out-of-bounds read past 'bins' (the newer "Access to"
// form), a write 8 bytes before 'keys' (the older "Address" form, with a
// source line), a misaligned read inside 'keys'; then the summary.
const char* kMemcheckLog = R"(========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at shared_hist_past_end(const unsigned int *, unsigned long, unsigned int *, unsigned int)+0x1d0 in shared_histogram.cu:41
=========     by thread (17,0,0) in block (1,0,0)
=========     Access to 0x7f3a40000210 is out of bounds
=========     and is 0 bytes after the nearest allocation at 0x7f3a40000200 of size 16 bytes
=========
========= Invalid __global__ write of size 4 bytes
=========     at 0x90 in /src/examples/kernels/shared_histogram.cu:44:shared_hist_past_end(const unsigned int *, unsigned long, unsigned int *, unsigned int)
=========     by thread (3,0,0) in block (0,0,0)
=========     Address 0x7f3a40000af8 is out of bounds
=========     and is 8 bytes before the nearest allocation at 0x7f3a40000b00 of size 132 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: [0x2dcdbf] in libcuda.so.1
=========
========= Invalid __global__ read of size 8 bytes
=========     at vec_load(const unsigned int *)+0x40
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x7f3a40000b06 is misaligned
=========
========= ERROR SUMMARY: 3 errors
)";

// The two buffers of that case: 'bins' 4 u32 at 0x...200 (an exact
// allocation), 'keys' 33 u32 at 0x...b00.
std::vector<BufferExtent> case_buffers() {
  return {{"bins", 0x7f3a40000200, 16, 0x7f3a40000200, 16, 4}, {"keys", 0x7f3a40000b00, 132, 0x7f3a40000b00, 132, 4}};
}

// racecheck --racecheck-report hazard: an error and a warning, the summary.
const char* kRacecheckLog = R"(========= COMPUTE-SANITIZER
========= ERROR: Potential WAW hazard detected at __shared__ 0x10 in block (2,0,0) :
=========     Write Thread (31,0,0) at shared_hist(const unsigned int *, unsigned long, unsigned int *)+0x2f0 in shared_histogram.cu:30
=========     Write Thread (0,0,0) at shared_hist(const unsigned int *, unsigned long, unsigned int *)+0x2f0 in shared_histogram.cu:30
=========     Current Value : 0, Incoming Value : 31
=========
========= WARN: Potential RAW hazard detected at __shared__ 0x0 in block (2,0,0) :
=========     Write Thread (1,0,0) at 0x000000d8 in shared_histogram.cu:25:shared_hist(const unsigned int *, unsigned long, unsigned int *)
=========     Read Thread (0,0,0) at 0x00000100 in shared_histogram.cu:33:shared_hist(const unsigned int *, unsigned long, unsigned int *)
=========     Current Value : 0
=========
========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)
)";

// racecheck's default analysis form (the older tools' form).
const char* kRaceAnalysisLog = R"(========= Error: Race reported between Write access at 0x8 in block_sum.cu:8:block_sum(int*, int*)
=========     and Read access at 0x18 in block_sum.cu:9:block_sum(int*, int*) [4 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
)";

const char* kSynccheckLog = R"(========= COMPUTE-SANITIZER
========= Barrier error detected. Divergent thread(s) in block
=========     at block_lock_early_release(unsigned int *, unsigned int *, unsigned long)+0x1f0 in block_lock.cu:52
=========     by thread (37,0,0) in block (0,0,0)
=========
========= Barrier error detected. Divergent thread(s) in block
=========     at block_lock_early_release(unsigned int *, unsigned int *, unsigned long)+0x1f0 in block_lock.cu:52
=========     by thread (38,0,0) in block (0,0,0)
=========
========= ERROR SUMMARY: 2 errors
)";

Outcome passing() {
  Outcome o;
  o.spec.impl = "kernels.shared_hist.past_end";
  o.backend = BackendKind::Cuda;
  o.buffers = case_buffers();
  return o;
}

Run ran(SanitizeTool tool, std::optional<int> status) {
  Run r;
  r.tool = tool;
  r.log_read = true;
  r.exit_status = status;
  return r;
}

}  // namespace

TEST(SanitizerLog, MemcheckReportsAndSummary) {
  const Log log = parse_log(kMemcheckLog);
  ASSERT_EQ(log.reports.size(), 3u);
  EXPECT_EQ(log.error_summary, 3u);
  EXPECT_EQ(log.errors(), 3u);
  const Report& first = log.reports[0];
  EXPECT_EQ(first.what, "Invalid __global__ read of size 4 bytes");
  EXPECT_EQ(first.kernel, "shared_hist_past_end(const unsigned int *, unsigned long, unsigned int *, unsigned int)");
  EXPECT_EQ(first.thread, "(17,0,0)");
  EXPECT_EQ(first.block, "(1,0,0)");
  EXPECT_EQ(first.access_bytes, 4u);
  ASSERT_TRUE(first.address);
  EXPECT_EQ(*first.address, 0x7f3a40000210u);
  EXPECT_EQ(first.address_note, "is out of bounds");
  EXPECT_EQ(first.nearest, "0 bytes after the nearest allocation at 0x7f3a40000200 of size 16 bytes");
  // The older form names the kernel after file and line; backtraces are dropped.
  EXPECT_EQ(log.reports[1].kernel, first.kernel);
  for (const auto& line : log.reports[1].lines) EXPECT_EQ(line.find("Host Frame"), std::string::npos) << line;
  EXPECT_EQ(log.reports[2].kernel, "vec_load(const unsigned int *)");
  EXPECT_EQ(log.reports[2].address_note, "is misaligned");
}

TEST(SanitizerLog, AddressesPlacedInTheCasesBuffers) {
  const auto buffers = case_buffers();
  EXPECT_EQ(place_address(0x7f3a40000210, 4, buffers),
            "'bins' +0..+3 bytes after its last element (bins[4]; it has 4 elements)");
  EXPECT_EQ(place_address(0x7f3a40000af8, 4, buffers), "'keys' 8 bytes before its first element");
  EXPECT_EQ(place_address(0x7f3a40000b06, 8, buffers), "inside 'keys' at byte 6 (keys[1] + 2 bytes)");
  EXPECT_EQ(place_address(0x10, 4, buffers), "");  // far from every buffer
  // A 4-byte CAS on the word holding a 7-element half tensor's last element
  // (kernels.half_scatter_add.past_end): it starts inside and reaches past.
  const std::vector<BufferExtent> half_tensor = {{"self", 0x7f3a40001000, 14, 0x7f3a40001000, 14, 2}};
  EXPECT_EQ(place_address(0x7f3a4000100c, 4, half_tensor),
            "'self' bytes 12..15: self[6] and +0..+1 bytes after its last element (it has 7 elements)");
  EXPECT_EQ(place_address(0x7f3a4000100a, 4, half_tensor), "inside 'self' at byte 10 (self[5])");
  const Log log = parse_log(kMemcheckLog);
  EXPECT_EQ(describe(log.reports[0], buffers),
            "Invalid __global__ read of size 4 bytes in shared_hist_past_end(const unsigned int *, unsigned long, "
            "unsigned int *, unsigned int) by thread (17,0,0) of block (1,0,0): 'bins' +0..+3 bytes after its last "
            "element (bins[4]; it has 4 elements)");
  // Without the buffers (a single atomic's trial), the tool's own words.
  EXPECT_NE(describe(log.reports[0], {}).find(
                ": address 0x7f3a40000210 is out of bounds, 0 bytes after the nearest allocation at 0x7f3a40000200"),
            std::string::npos);
  const std::string text = explain(log, SanitizeTool::Memcheck, buffers);
  EXPECT_EQ(text.rfind("compute-sanitizer memcheck found 3 errors: Invalid __global__ read of size 4 bytes", 0), 0u)
      << text;
  EXPECT_NE(text.find("; Invalid __global__ write of size 4 bytes"), std::string::npos) << text;
  EXPECT_NE(text.find("'keys' 8 bytes before its first element"), std::string::npos) << text;
}

TEST(SanitizerLog, RacecheckHazardsAndAnalysis) {
  const Log log = parse_log(kRacecheckLog);
  ASSERT_EQ(log.reports.size(), 2u);
  EXPECT_EQ(log.hazards, 2u);
  EXPECT_EQ(log.errors(), 1u);  // the warning is not an error
  EXPECT_EQ(log.reports[0].what, "Potential WAW hazard on shared memory");
  EXPECT_EQ(log.reports[0].block, "(2,0,0)");
  EXPECT_EQ(log.reports[0].thread, "(31,0,0) and (0,0,0)");
  EXPECT_EQ(log.reports[0].kernel, "shared_hist(const unsigned int *, unsigned long, unsigned int *)");
  EXPECT_TRUE(log.reports[1].warning);
  EXPECT_EQ(log.reports[1].kernel, "shared_hist(const unsigned int *, unsigned long, unsigned int *)");
  const std::string text = explain(log, SanitizeTool::Racecheck, {});
  EXPECT_EQ(text,
            "compute-sanitizer racecheck found 1 error (2 hazards displayed): Potential WAW hazard on shared memory in "
            "shared_hist(const unsigned int *, unsigned long, unsigned int *) by thread (31,0,0) and (0,0,0) of block "
            "(2,0,0) (and 1 more report in its log)");
  const Log analysis = parse_log(kRaceAnalysisLog);
  ASSERT_EQ(analysis.reports.size(), 1u);
  EXPECT_EQ(analysis.reports[0].what, "Race reported between Write access");
  EXPECT_EQ(analysis.reports[0].kernel, "block_sum(int*, int*)");
  EXPECT_EQ(analysis.errors(), 1u);
  EXPECT_TRUE(analysis.tool_error.empty());
}

TEST(SanitizerLog, SynccheckBarrierErrors) {
  const Log log = parse_log(kSynccheckLog);
  ASSERT_EQ(log.reports.size(), 2u);
  EXPECT_EQ(log.error_summary, 2u);
  EXPECT_EQ(log.reports[0].what, "Barrier error detected. Divergent thread(s) in block");
  EXPECT_EQ(log.reports[0].kernel, "block_lock_early_release(unsigned int *, unsigned int *, unsigned long)");
  EXPECT_EQ(log.reports[1].thread, "(38,0,0)");
}

TEST(SanitizerLog, ACutLogKeepsWhatItShowsAndSaysWhatIsMissing) {
  // Cut in the middle of its second report: no summary.
  std::string cut(kMemcheckLog);
  cut.resize(cut.find("=========     Address 0x7f3a40000af8"));
  Log log = parse_log(cut);
  ASSERT_EQ(log.reports.size(), 2u);
  EXPECT_FALSE(log.error_summary);
  EXPECT_EQ(log.errors(), 2u);
  EXPECT_FALSE(log.reports[1].address);  // its address line was cut
  // A summary that counts more than the log holds (--print-limit).
  log = parse_log(std::string(kSynccheckLog).replace(std::string(kSynccheckLog).find("2 errors"), 8, "250 errors"));
  EXPECT_EQ(log.errors(), 250u);
  EXPECT_NE(explain(log, SanitizeTool::Synccheck, {}).find("248 of its 250 errors are not in the log"),
            std::string::npos);
  // The tool's own failure is no report.
  log = parse_log("========= Error: Target application terminated before first instrumented API call\n");
  EXPECT_TRUE(log.reports.empty());
  EXPECT_EQ(log.tool_error, "Error: Target application terminated before first instrumented API call");
  // The application's own lines (no prefix) are not the tool's.
  log = parse_log("worker: ready\n========= ERROR SUMMARY: 0 errors\n");
  EXPECT_TRUE(log.reports.empty());
  EXPECT_EQ(log.errors(), 0u);
}

TEST(SanitizerFold, FindingsMakeAPassAFailureOfTheToolsClass) {
  Outcome o = passing();
  fold(o, ran(SanitizeTool::Memcheck, kErrorExitCode), parse_log(kMemcheckLog));
  EXPECT_EQ(o.verdict, Verdict::Fail);
  EXPECT_EQ(o.finding.cls, FailureClass::Bounds);
  EXPECT_NE(o.why().find("'bins' +0..+3 bytes after its last element"), std::string::npos) << o.why();
  o = passing();
  fold(o, ran(SanitizeTool::Racecheck, kErrorExitCode), parse_log(kRacecheckLog));
  EXPECT_EQ(o.finding.cls, FailureClass::Atomicity);
  o = passing();
  fold(o, ran(SanitizeTool::Synccheck, kErrorExitCode), parse_log(kSynccheckLog));
  EXPECT_EQ(o.finding.cls, FailureClass::Atomicity);
}

TEST(SanitizerFold, ACleanRunKeepsItsVerdict) {
  Outcome o = passing();
  fold(o, ran(SanitizeTool::Memcheck, 0), parse_log("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n"));
  EXPECT_EQ(o.verdict, Verdict::Pass);
  // An oracle's failure with a clean report: its own words, its own class.
  o = passing();
  o.verdict = Verdict::Fail;
  o.finding = make_finding(FindingKind::WrongOutput, "bins[2] holds 11 but 3 keys are 2");
  fold(o, ran(SanitizeTool::Racecheck, 0), parse_log("========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n"));
  EXPECT_EQ(o.why(), "bins[2] holds 11 but 3 keys are 2");
}

TEST(SanitizerFold, AnOracleFailureKeepsItsExplanationWithTheReportAdded) {
  Outcome o = passing();
  o.verdict = Verdict::Fail;
  o.finding = make_finding(FindingKind::WrongOutput, "bins[2] holds 11 but 3 keys are 2");
  fold(o, ran(SanitizeTool::Racecheck, kErrorExitCode), parse_log(kRacecheckLog));
  EXPECT_EQ(o.verdict, Verdict::Fail);
  EXPECT_EQ(o.finding.cls, FailureClass::None);  // the diagnosis decides, as without the tool
  EXPECT_EQ(o.why().rfind("bins[2] holds 11 but 3 keys are 2; compute-sanitizer racecheck found 1 error", 0), 0u)
      << o.why();
}

TEST(SanitizerFold, MemchecksStopOfTheKernelIsTheReportsFailureNotACrash) {
  Outcome o = passing();
  o.verdict = Verdict::Crash;
  o.finding = make_finding(FindingKind::Crash, "unspecified launch failure");
  fold(o, ran(SanitizeTool::Memcheck, kErrorExitCode), parse_log(kMemcheckLog));
  EXPECT_EQ(o.verdict, Verdict::Fail);
  EXPECT_EQ(o.finding.cls, FailureClass::Bounds);
  EXPECT_NE(o.why().find("(the kernel was stopped: unspecified launch failure)"), std::string::npos) << o.why();
}

TEST(SanitizerFold, NoLogOrAnExitStatusWithoutReports) {
  Outcome o = passing();
  sanitizer::Run r = ran(SanitizeTool::Memcheck, std::nullopt);
  r.log_read = false;
  r.log_error = "its log /tmp/x.log was not written (killed by signal 9 (SIGKILL))";
  fold(o, r, Log{});
  EXPECT_EQ(o.verdict, Verdict::Error);
  EXPECT_NE(o.why().find("compute-sanitizer memcheck gave no report: its log /tmp/x.log was not written"),
            std::string::npos);
  // Its exit status says errors, its log (cut before any report) shows none.
  o = passing();
  fold(o, ran(SanitizeTool::Memcheck, kErrorExitCode), parse_log("========= COMPUTE-SANITIZER\n"));
  EXPECT_EQ(o.verdict, Verdict::Fail);
  EXPECT_NE(o.why().find("its exit status says so; its log holds no report"), std::string::npos) << o.why();
}

TEST(SanitizerWorker, CommandLineRunsTheWorkerUnderTheTool) {
  const std::vector<std::string> worker = {"/opt/suite/bin/atomstress_kernel_examples", "worker", "--backend", "cuda"};
  auto argv = command_line("/usr/local/cuda/bin/compute-sanitizer", SanitizeTool::Memcheck, "/tmp/s.log", worker);
  const std::vector<std::string> tool_part(argv.begin(), argv.end() - long(worker.size()));
  EXPECT_EQ(tool_part, (std::vector<std::string>{"/usr/local/cuda/bin/compute-sanitizer", "--tool", "memcheck",
                                                 "--error-exitcode", "86", "--log-file", "/tmp/s.log", "--print-limit",
                                                 "100", "--show-backtrace", "no", "--report-api-errors", "no"}));
  EXPECT_EQ(std::vector<std::string>(argv.end() - long(worker.size()), argv.end()), worker);
  argv = command_line("cs", SanitizeTool::Racecheck, "/tmp/s.log", worker);
  EXPECT_NE(std::find(argv.begin(), argv.end(), "hazard"), argv.end());
  argv = command_line("cs", SanitizeTool::Synccheck, "/tmp/s.log", worker);
  EXPECT_EQ(argv[2], "synccheck");
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "hazard"), argv.end());
}

TEST(SanitizerWorker, TheToolIsFoundOnPathThenCudaHomeElseAOneLineError) {
  const auto dir = std::filesystem::temp_directory_path() / ("atomstress-cs-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir / "path" / "bin");
  std::filesystem::create_directories(dir / "home" / "bin");
  auto fake = [](const std::filesystem::path& p) {
    std::ofstream(p) << "#!/bin/sh\n";
    chmod(p.c_str(), 0755);
  };
  std::string error;
  const std::string empty = (dir / "empty").string();
  EXPECT_EQ(locate_in("/nonexistent:" + (dir / "path" / "bin").string(), "", error, empty), "");
  EXPECT_EQ(error,
            "--sanitize needs compute-sanitizer (it comes with the CUDA toolkit), and it is not on PATH, in "
            "$CUDA_HOME/bin (CUDA_HOME is not set) or in " + empty);
  fake(dir / "home" / "bin" / "compute-sanitizer");
  EXPECT_EQ(locate_in((dir / "path" / "bin").string(), (dir / "home").string(), error, empty),
            (dir / "home" / "bin" / "compute-sanitizer").string());
  fake(dir / "path" / "bin" / "compute-sanitizer");
  EXPECT_EQ(locate_in((dir / "path" / "bin").string(), (dir / "home").string(), error, empty),
            (dir / "path" / "bin" / "compute-sanitizer").string());
  std::filesystem::remove_all(dir);
}

TEST(SanitizerWorker, TheOptionRefusesWhatCannotRun) {
  RunOptions run;
  run.policy.isolate = true;
  std::string error;
  EXPECT_TRUE(cli::apply_sanitize_option("", BackendKind::Cuda, run, error));
  EXPECT_EQ(run.policy.sanitize, SanitizeTool::None);
  EXPECT_FALSE(cli::apply_sanitize_option("helgrind", BackendKind::Cuda, run, error));
  EXPECT_EQ(error, "--sanitize 'helgrind' is not memcheck, racecheck or synccheck");
  EXPECT_FALSE(cli::apply_sanitize_option("memcheck", BackendKind::Cpu, run, error));
  EXPECT_EQ(error, "--sanitize runs compute-sanitizer on CUDA kernels: it needs --backend cuda");
  run.policy.isolate = false;
  EXPECT_FALSE(cli::apply_sanitize_option("memcheck", BackendKind::Cuda, run, error));
  EXPECT_EQ(error, "--sanitize runs each trial's worker under the tool: it needs --isolate on");
  // No tool anywhere: the one-line error of locate().
  run.policy.isolate = true;
  std::string why;
  if (!locate(why).empty()) GTEST_SKIP() << "compute-sanitizer is installed here";
  EXPECT_FALSE(cli::apply_sanitize_option("racecheck", BackendKind::Cuda, run, error));
  EXPECT_EQ(error.rfind("--sanitize needs compute-sanitizer", 0), 0u) << error;
  EXPECT_EQ(run.policy.sanitize, SanitizeTool::None);
}

TEST(SanitizerWorker, TheSettingAndTheBuffersCrossTheWorkerProtocol) {
  RunOptions run;
  run.policy.sanitize = SanitizeTool::Synccheck;
  RunOptions back;
  std::string error;
  ASSERT_TRUE(from_json(to_json(run), back, error)) << error;
  EXPECT_EQ(back.policy.sanitize, SanitizeTool::Synccheck);
  Outcome o = passing();
  Outcome o2;
  ASSERT_TRUE(from_json(to_json(o), o2, error)) << error;
  ASSERT_EQ(o2.buffers.size(), 2u);
  EXPECT_EQ(o2.buffers[1].name, "keys");
  EXPECT_EQ(o2.buffers[1].data, 0x7f3a40000b00u);
  EXPECT_EQ(o2.buffers[1].elem_bytes, 4u);
  // The setting is no part of a token: a token replays with or without it.
  EXPECT_EQ(encode_token(o.spec, run.knobs), encode_token(o.spec, RunOptions{}.knobs));
}
