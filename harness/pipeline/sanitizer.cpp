#include "harness/pipeline/sanitizer.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <regex>

namespace atomstress::sanitizer {

namespace {

bool executable(const std::string& path) { return !path.empty() && access(path.c_str(), X_OK) == 0; }

// A log line without the tool's "========= " prefix; nullopt for a line of
// the application's own (the tool writes only prefixed lines).
std::optional<std::string_view> strip_prefix(std::string_view line) {
  size_t eq = 0;
  while (eq < line.size() && line[eq] == '=') ++eq;
  if (eq < 5) return std::nullopt;
  line.remove_prefix(eq);
  if (!line.empty() && line[0] == ' ') line.remove_prefix(1);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  return line;
}

size_t indent_of(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return i;
}

uint64_t hex(const std::string& s) { return std::strtoull(s.c_str(), nullptr, 16); }

// The kernel named by a location: "0x70 in file.cu:12:kern(int*)" (older
// tools) or "kern(int *)+0x70 in file.cu:12" / "kern(int *)+0x70" (newer).
std::string kernel_of(const std::string& where) {
  static const std::regex older(R"(^0x[0-9a-fA-F]+ in (?:.*:\d+:)?(.+)$)");
  static const std::regex newer(R"(^(.+)\+0x[0-9a-fA-F]+(?: in .*)?$)");
  std::smatch m;
  if (std::regex_match(where, m, older)) return m[1];
  if (std::regex_match(where, m, newer)) return m[1];
  return "";
}

// A continuation line of a report: what it says of the access.
void read_detail(Report& r, const std::string& line) {
  static const std::regex at(R"(^at (.+)$)");
  static const std::regex by(R"(^by thread (\(\d+,\d+,\d+\)) in block (\(\d+,\d+,\d+\)))");
  static const std::regex address(R"(^(?:Address|Access to) (0x[0-9a-fA-F]+) (.+)$)");
  static const std::regex nearest(R"(^and is (.+)$)");
  static const std::regex hazard_thread(R"(^(?:Read|Write) Thread (\(\d+,\d+,\d+\)) at (.+)$)");
  static const std::regex race_other(R"(^and (?:Read|Write) access at (.+?)(?: \[\d+ hazards?\])?$)");
  std::smatch m;
  if (std::regex_search(line, m, by)) {
    r.thread = m[1];
    r.block = m[2];
  } else if (std::regex_match(line, m, address)) {
    r.address = hex(m[1]);
    r.address_note = m[2];
  } else if (std::regex_match(line, m, nearest)) {
    r.nearest = m[1];
  } else if (std::regex_match(line, m, hazard_thread)) {
    if (r.thread.empty()) r.thread = m[1];
    else r.thread += " and " + m[1].str();
    if (r.kernel.empty()) r.kernel = kernel_of(m[2]);
  } else if (std::regex_match(line, m, at) || std::regex_match(line, m, race_other)) {
    if (r.kernel.empty()) r.kernel = kernel_of(m[1]);
  }
}

// The first line of a report: what it is, and what that line says besides.
Report start_report(const std::string& line) {
  static const std::regex size(R"(of size (\d+))");
  static const std::regex race(R"(^(Error|Warning): (Race reported between \w+ access) at (.+)$)");
  static const std::regex hazard(R"(^(ERROR|WARN): (Potential \w+ hazard) detected at (__shared__ )?(0x[0-9a-fA-F]+) in block (\(\d+,\d+,\d+\)))");
  Report r;
  r.what = line;
  r.lines.push_back(line);
  std::smatch m;
  if (std::regex_search(line, m, size)) r.access_bytes = uint32_t(std::stoul(m[1]));
  if (std::regex_match(line, m, race)) {
    r.warning = m[1] == "Warning";
    r.what = m[2];
    r.kernel = kernel_of(m[3]);
  } else if (std::regex_search(line, m, hazard)) {
    r.warning = m[1] == "WARN";
    r.what = m[2].str() + " on shared memory";
    r.address = hex(m[4]);
    r.block = m[5];
  }
  return r;
}

bool is_summary(const std::string& line, Log& log) {
  static const std::regex errors(R"(^ERROR SUMMARY: (\d+) errors?)");
  static const std::regex hazards(R"(^RACECHECK SUMMARY: (\d+) hazards? displayed)");
  std::smatch m;
  if (std::regex_search(line, m, errors)) {
    // "ERROR SUMMARY: 900 errors were not printed": not the count.
    if (line.find("not printed") == std::string::npos) log.error_summary = std::stoull(m[1]);
    return true;
  }
  if (std::regex_search(line, m, hazards)) {
    log.hazards = std::stoull(m[1]);
    return true;
  }
  // The tool's notes, no reports: its banner, and what it says of an
  // application that exited with a status other than 0 (a worker ended by
  // its supervisor, a CRASH already told by the trial).
  for (const char* note : {"LEAK SUMMARY", "COMPUTE-SANITIZER", "Target application returned an error",
                           "Error: process didn't terminate successfully"})
    if (line.rfind(note, 0) == 0) return true;
  return false;
}

}  // namespace

std::string locate_in(std::string_view path_env, std::string_view cuda_home, std::string& error,
                      std::string_view fallback_dir) {
  std::vector<std::string> dirs;
  for (size_t start = 0; start <= path_env.size();) {
    const size_t colon = std::min(path_env.find(':', start), path_env.size());
    if (colon > start) dirs.emplace_back(path_env.substr(start, colon - start));
    start = colon + 1;
  }
  if (!cuda_home.empty()) dirs.push_back(std::string(cuda_home) + "/bin");
  dirs.emplace_back(fallback_dir);
  for (const std::string& d : dirs)
    if (const std::string p = d + "/compute-sanitizer"; executable(p)) return p;
  error = fmt::format(
      "--sanitize needs compute-sanitizer (it comes with the CUDA toolkit), and it is not on PATH, in "
      "$CUDA_HOME/bin{} or in {}",
      cuda_home.empty() ? " (CUDA_HOME is not set)" : "", fallback_dir);
  return "";
}

std::string locate(std::string& error) {
  const char* path = std::getenv("PATH");
  const char* home = std::getenv("CUDA_HOME");
  return locate_in(path ? path : "", home ? home : "", error);
}

std::vector<std::string> command_line(const std::string& tool_path, SanitizeTool tool, const std::string& log_file,
                                      const std::vector<std::string>& worker_argv) {
  std::vector<std::string> argv = {tool_path, "--tool", to_string(tool), "--error-exitcode",
                                   std::to_string(kErrorExitCode), "--log-file", log_file, "--print-limit",
                                   std::to_string(kPrintLimit),
                                   // The kernel and the thread say where; host frames are atomstress's own.
                                   "--show-backtrace", "no",
                                   // atomstress checks every CUDA call itself (a fault is its CRASH).
                                   "--report-api-errors", "no"};
  // Each hazard with its threads and block, not only the analysis's summary.
  if (tool == SanitizeTool::Racecheck) argv.insert(argv.end(), {"--racecheck-report", "hazard"});
  argv.insert(argv.end(), worker_argv.begin(), worker_argv.end());
  return argv;
}

uint64_t Log::errors() const {
  uint64_t shown = 0;
  for (const Report& r : reports) shown += !r.warning;
  return std::max(error_summary.value_or(0), shown);
}

Log parse_log(std::string_view text) {
  Log log;
  std::optional<Report> current;
  auto close = [&] {
    if (current) log.reports.push_back(std::move(*current));
    current.reset();
  };
  for (size_t start = 0; start < text.size();) {
    const size_t nl = std::min(text.find('\n', start), text.size());
    const auto stripped = strip_prefix(text.substr(start, nl - start));
    start = nl + 1;
    if (!stripped) continue;
    const size_t indent = indent_of(*stripped);
    const std::string line(stripped->substr(indent));
    if (line.empty()) {
      close();
      continue;
    }
    if (indent == 0) {
      close();
      if (is_summary(line, log)) continue;
      if (line.rfind("Error: ", 0) == 0 && line.find("Race reported") == std::string::npos) {
        log.tool_error = line;  // the tool could not run the application
        continue;
      }
      current = start_report(line);
      continue;
    }
    if (!current) continue;  // a backtrace frame of a report already closed
    if (line.rfind("Host Frame", 0) == 0 || line.rfind("Device Frame", 0) == 0 || line.rfind("in ", 0) == 0 ||
        line.rfind("Saved host backtrace", 0) == 0)
      continue;
    current->lines.push_back(line);
    read_detail(*current, line);
  }
  close();
  return log;
}

std::string place_address(uint64_t address, uint32_t access_bytes, const std::vector<BufferExtent>& buffers) {
  constexpr uint64_t kNear = 64 * 1024;
  const BufferExtent* best = nullptr;
  uint64_t best_distance = ~uint64_t(0);
  for (const BufferExtent& b : buffers) {
    const uint64_t end = b.data + b.bytes;
    const uint64_t d = address < b.data ? b.data - address : address >= end ? address - end : 0;
    if (d < best_distance) {
      best = &b;
      best_distance = d;
    }
  }
  if (!best || best_distance > kNear) return "";
  const BufferExtent& b = *best;
  const uint64_t elem = std::max<uint32_t>(b.elem_bytes, 1), n = b.bytes / elem, end = b.data + b.bytes;
  const uint64_t last_byte = access_bytes > 1 ? access_bytes - 1 : 0;
  if (address >= end) {
    const uint64_t after = address - end;
    return fmt::format("'{}' +{}{} bytes after its last element ({}[{}]; it has {} element{})", b.name, after,
                       last_byte ? fmt::format("..+{}", after + last_byte) : "", b.name, (address - b.data) / elem, n,
                       n == 1 ? "" : "s");
  }
  if (address < b.data)
    return fmt::format("'{}' {} bytes before its first element", b.name, b.data - address);
  const uint64_t at = address - b.data;
  if (address + std::max<uint32_t>(access_bytes, 1) > end)  // starts inside, reaches past the end (a word CAS of a half)
    return fmt::format("'{}' bytes {}..{}: {}[{}] and +0..+{} bytes after its last element (it has {} element{})", b.name,
                       at, at + last_byte, b.name, at / elem, address + last_byte - end, n, n == 1 ? "" : "s");
  return fmt::format("inside '{}' at byte {} ({}[{}]{})", b.name, at, b.name, at / elem,
                     at % elem ? fmt::format(" + {} bytes", at % elem) : "");
}

std::string describe(const Report& r, const std::vector<BufferExtent>& buffers) {
  std::string s = r.what;
  if (!r.kernel.empty()) s += " in " + r.kernel;
  if (!r.thread.empty()) s += " by thread " + r.thread;
  if (!r.block.empty()) s += " of block " + r.block;
  if (r.address && !r.address_note.empty()) {
    const std::string placed = place_address(*r.address, r.access_bytes, buffers);
    if (!placed.empty()) s += ": " + placed;
    else s += fmt::format(": address {:#x} {}{}", *r.address, r.address_note, r.nearest.empty() ? "" : ", " + r.nearest);
  }
  return s;
}

std::string explain(const Log& log, SanitizeTool tool, const std::vector<BufferExtent>& buffers) {
  const uint64_t errors = log.errors();
  std::string s = fmt::format("compute-sanitizer {} found {} error{}", to_string(tool), errors, errors == 1 ? "" : "s");
  if (log.hazards) s += fmt::format(" ({} hazard{} displayed)", *log.hazards, *log.hazards == 1 ? "" : "s");
  constexpr size_t kShown = 3;
  size_t shown = 0;
  for (const Report& r : log.reports) {
    if (r.warning && errors > 0) continue;  // the errors first; a warning-only log shows its warnings
    if (shown == kShown) break;
    s += (shown++ == 0 ? ": " : "; ") + describe(r, buffers);
  }
  if (log.reports.size() > shown) s += fmt::format(" (and {} more report{} in its log)", log.reports.size() - shown,
                                                   log.reports.size() - shown == 1 ? "" : "s");
  if (log.error_summary && *log.error_summary > log.reports.size())
    s += fmt::format("; {} of its {} errors are not in the log (cut at --print-limit {} or truncated)",
                     *log.error_summary - std::min<uint64_t>(*log.error_summary, log.reports.size()), *log.error_summary,
                     kPrintLimit);
  return s;
}

FailureClass class_of(SanitizeTool tool) {
  return tool == SanitizeTool::Memcheck ? FailureClass::Bounds : FailureClass::Atomicity;
}

void fold(Outcome& out, const Run& run, const Log& log) {
  const bool exited_with_errors = run.exit_status && *run.exit_status == kErrorExitCode;
  if (!run.log_read || !log.tool_error.empty()) {
    // No report to read: the tool failed, not the code under test.
    const std::string why = !run.log_read ? run.log_error : log.tool_error;
    if (out.verdict == Verdict::Pass || exited_with_errors) {
      out.verdict = Verdict::Error;
      out.finding = make_finding(FindingKind::BackendError,
                                 fmt::format("compute-sanitizer {} gave no report: {}", to_string(run.tool), why));
    }
    return;
  }
  const bool found = log.errors() > 0 || exited_with_errors;
  if (!found) return;  // clean: the outcome is the trial's own
  Log shown = log;
  if (shown.errors() == 0)  // its exit status says errors, its log shows none
    shown.error_summary = 1;
  std::string text = explain(shown, run.tool, out.buffers);
  if (shown.reports.empty()) text += " (its exit status says so; its log holds no report)";
  if (out.verdict == Verdict::Fail || out.verdict == Verdict::Hang) {
    out.finding.explanation += "; " + text;
    return;
  }
  // A pass, or the crash that memcheck's stop of the kernel caused: the
  // report is the failure.
  if (out.verdict == Verdict::Crash) text += " (the kernel was stopped: " + out.finding.explanation + ")";
  else if (out.verdict == Verdict::Error) text += " (the trial itself: " + out.finding.explanation + ")";
  out.verdict = Verdict::Fail;
  out.finding = make_finding(FindingKind::WrongOutput, text);
  out.finding.cls = class_of(run.tool);
}

}  // namespace atomstress::sanitizer
