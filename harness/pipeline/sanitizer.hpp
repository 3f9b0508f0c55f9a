// --sanitize: a trial's worker run under NVIDIA compute-sanitizer (memcheck,
// racecheck, synccheck), and its report turned into the trial's failure, in
// the buffers' own terms where the trial recorded its buffers (kernel
// entries).  This file is the host half, tested on the CPU: finding the
// tool, the command line, parsing a log, explaining it, folding it into an
// Outcome.  isolated.cpp starts the sanitized worker (one per trial: the
// tool's summary and exit status come at the worker's exit).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/backend/backend.hpp"
#include "harness/pipeline/run_trial.hpp"

namespace atomstress::sanitizer {

// The exit status compute-sanitizer is told to give when it found errors.
inline constexpr int kErrorExitCode = 86;
// At most this many reports in its log (--print-limit): the first few
// explain a failure, thousands of copies of one bad access do not.
inline constexpr uint32_t kPrintLimit = 100;

// compute-sanitizer's path: the first executable one on `path_env` (PATH's
// form), else in `cuda_home`/bin, else in /usr/local/cuda/bin; "" with a
// one-line `error` when there is none.
std::string locate_in(std::string_view path_env, std::string_view cuda_home, std::string& error,
                      std::string_view fallback_dir = "/usr/local/cuda/bin");
// The same from this process's PATH and CUDA_HOME.
std::string locate(std::string& error);

// The sanitized worker's command line (argv, argv[0] the tool): the tool's
// options, then the worker's own argv (its program a real path, never
// /proc/self/exe, which in the tool's process would be the tool).
std::vector<std::string> command_line(const std::string& tool_path, SanitizeTool tool, const std::string& log_file,
                                      const std::vector<std::string>& worker_argv);

// One report of the log.
struct Report {
  std::string what;          // "Invalid __global__ read of size 4 bytes", "Barrier error detected. ..."
  std::string kernel;        // the kernel (with its signature), where the report names one
  std::string thread, block; // "(3,0,0)", where it names them
  std::optional<uint64_t> address;  // the bad address (memcheck), or the shared address of a hazard
  uint32_t access_bytes = 0;        // the access's size (memcheck), 0 when unknown
  std::string address_note;         // "is out of bounds", "is misaligned", ...
  std::string nearest;              // "4 bytes after the nearest allocation at 0x... of size 16 bytes"
  bool warning = false;             // a racecheck warning (not an error)
  std::vector<std::string> lines;   // the report's own lines, the tool's prefix removed
};

struct Log {
  std::vector<Report> reports;
  std::optional<uint64_t> error_summary;  // "ERROR SUMMARY: 3 errors"
  std::optional<uint64_t> hazards;        // "RACECHECK SUMMARY: 12 hazards displayed (...)"
  std::string tool_error;                 // the tool itself failed ("Error: Target application ...")
  // Errors the tool counted, at least the reports read (a log cut short
  // keeps its summary; a log without one counts what it shows).
  uint64_t errors() const;
};

Log parse_log(std::string_view text);

// Where `address` lies, in the terms of the trial's buffers: "'bins' +0..+3
// bytes after its last element (bins[4]; it has 4 elements)"; "" when no
// buffer is within 64 KiB of it.
std::string place_address(uint64_t address, uint32_t access_bytes, const std::vector<BufferExtent>& buffers);

// One report in a sentence, its address placed in the buffers.
std::string describe(const Report& r, const std::vector<BufferExtent>& buffers);
// The whole log as a failure's explanation: the tool, the count, the first
// reports (at most 3), and what was cut.
std::string explain(const Log& log, SanitizeTool tool, const std::vector<BufferExtent>& buffers);

// The class a tool's findings take: memcheck bounds; racecheck and synccheck
// atomicity (threads of one block that need each other: right alone).
FailureClass class_of(SanitizeTool tool);

// How the sanitized worker ended, and what its log held.
struct Run {
  SanitizeTool tool = SanitizeTool::None;
  bool log_read = false;        // false: `log` is empty, `log_error` says why
  std::string log_error;
  std::optional<int> exit_status;  // the tool's, when it exited
};

// The trial's outcome with the sanitizer's report folded in: a clean report
// keeps it; findings make a passing (or, memcheck having stopped the kernel,
// crashed) trial a failure of the tool's class explained by the report; an
// oracle's failure keeps its own explanation and class, the report added.
void fold(Outcome& out, const Run& run, const Log& log);

}  // namespace atomstress::sanitizer
