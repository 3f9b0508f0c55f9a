#include "fuzz/corpus.hpp"

#include <fmt/format.h>

#include "reports/terminal.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/pipeline/run_trial.hpp"
#include "harness/support/atomic_file.hpp"
#include "harness/support/hash.hpp"
#include "harness/trial/token.hpp"
#include "reports/repro_command.hpp"

namespace fs = std::filesystem;

namespace atomstress::fuzz {

uint32_t runs_to_call_fixed(const CorpusCase& c) {
  const double recorded = c.rate_runs == 0 || c.rate_failures == 0 ? 0.1 : double(c.rate_failures) / c.rate_runs;
  const double p = recorded / 4;  // the rate assumed now, at worst
  const double runs = std::ceil(std::log(1e6) / -std::log1p(-p));
  return uint32_t(std::min(runs, 1e6));
}

std::string case_file_name(const CorpusCase& c) {
  return fmt::format("{}-{:016x}.case", c.impl, fnv1a64(c.impl + "\n" + c.token));
}

std::string format_case(const CorpusCase& c) {
  std::ostringstream o;
  o << "# atomstress failure case: replay with `" << reports::program_name() << " repro THIS_FILE`\n"
    << "token: " << c.token << "\n"
    << "impl: " << c.impl << "\n"
    << "spec: " << c.spec << "\n"
    << "verdict: " << c.verdict << "\n"
    << "why: " << c.why << "\n"
    << "version: " << c.version << "\n"
    << "backend: " << c.backend << "\n"
    << "device: " << c.device << "\n"
    << "first_seen: " << c.first_seen << "\n"
    << "failure_rate: " << c.rate_failures << "/" << c.rate_runs << "\n";
  return o.str();
}

std::optional<CorpusCase> parse_case(const std::string& text, std::string& error) {
  CorpusCase c;
  if (text.find('\0') != std::string::npos) {
    error = "it holds a NUL byte at offset " + std::to_string(text.find('\0')) + ": not a text file";
    return std::nullopt;
  }
  std::istringstream in(text);
  std::string line;
  bool have_rate = false;
  std::set<std::string> keys;
  size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // written on Windows (CRLF)
    if (line.empty() || line[0] == '#') continue;
    const auto colon = line.find(": ");
    if (colon == std::string::npos) {
      error = "line " + std::to_string(n) + ": not a 'key: value' line: '" + line.substr(0, 60) + "'";
      return std::nullopt;
    }
    const std::string key = line.substr(0, colon), value = line.substr(colon + 2);
    if (!keys.insert(key).second) {
      error = "line " + std::to_string(n) + ": '" + key + "' a second time";
      return std::nullopt;
    }
    if (key == "token") c.token = value;
    else if (key == "impl") c.impl = value;
    else if (key == "spec") c.spec = value;
    else if (key == "verdict") {
      // Empty: none recorded (a case made by hand or by a test); else one a failure has.
      const auto v = parse_verdict(value);
      if (!value.empty() && (!v || *v == Verdict::Pass || *v == Verdict::Error)) {
        error = "line " + std::to_string(n) + ": unknown verdict '" + value.substr(0, 40) + "' (FAIL, HANG or CRASH)";
        return std::nullopt;
      }
      c.verdict = value;
    }
    else if (key == "why") c.why = value;
    else if (key == "version") c.version = value;
    else if (key == "backend") c.backend = value;
    else if (key == "device") c.device = value;
    else if (key == "first_seen") c.first_seen = value;
    else if (key == "failure_rate") {
      unsigned f = 0, r = 0;
      char tail = 0;
      if (std::sscanf(value.c_str(), "%u/%u%c", &f, &r, &tail) != 2 || f > r) {
        error = "line " + std::to_string(n) + ": bad failure_rate '" + value + "'";
        return std::nullopt;
      }
      c.rate_failures = f;
      c.rate_runs = r;
      have_rate = true;
    }
    // Unknown keys are kept by nobody but refused by nobody: newer versions may add some.
  }
  if (c.token.empty()) {
    error = "no 'token:' line";
    return std::nullopt;
  }
  const auto spec = decode_token(c.token, error);
  if (!spec) return std::nullopt;
  if (c.impl.empty()) c.impl = spec->impl;
  if (c.impl != spec->impl) {
    error = "impl '" + c.impl + "' does not match the token's '" + spec->impl + "'";
    return std::nullopt;
  }
  if (!have_rate) c.rate_runs = 0;
  return c;
}

std::optional<CorpusCase> read_case(const std::string& path, std::string& error) {
  // Checked before it is opened (a FIFO would block the open) and read no
  // further than a case can be.
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    error = "cannot read corpus file '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "cannot read corpus file '" + path + "': not a regular file";
    return std::nullopt;
  }
  if (uint64_t(st.st_size) > kMaxCaseBytes) {
    error = "malformed corpus file '" + path + "': " + std::to_string(st.st_size) + " bytes, more than a case's " +
            std::to_string(kMaxCaseBytes) + " (1 MiB)";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read corpus file '" + path + "'";
    return std::nullopt;
  }
  std::string text(kMaxCaseBytes + 1, '\0');
  in.read(text.data(), std::streamsize(text.size()));
  text.resize(size_t(in.gcount()));
  if (text.size() > kMaxCaseBytes) {  // it grew since
    error = "malformed corpus file '" + path + "': more than a case's " + std::to_string(kMaxCaseBytes) + " bytes (1 MiB)";
    return std::nullopt;
  }
  auto c = parse_case(text, error);
  if (!c) {
    error = "malformed corpus file '" + path + "': " + error;
    return std::nullopt;
  }
  c->file = path;
  return c;
}

bool ensure_dir(const std::string& dir, std::string& error) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    error = "cannot create directory '" + dir + "'" + (ec ? ": " + ec.message() : "");
    return false;
  }
  return true;
}

bool add_case(const std::string& dir, CorpusCase& c, bool& added, std::string& error) {
  c.file = (fs::path(dir) / case_file_name(c)).string();
  added = false;
  if (fs::exists(c.file)) return true;
  // Nothing malformed reaches a corpus: the case must read back.
  const std::string text = format_case(c);
  if (std::string why; !parse_case(text, why)) {
    error = "refused to write corpus case '" + c.file + "' for " + c.impl + ": " + why;
    return false;
  }
  if (!write_file_atomically(c.file, text, error)) return false;
  added = true;
  return true;
}

bool load_corpus(const std::string& dir, std::vector<CorpusCase>& cases, std::string& error) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return true;  // a first run: nothing recorded yet
  std::vector<std::string> files;
  for (const auto& de : fs::directory_iterator(dir, ec)) {
    if (de.path().extension() != ".case") continue;
    std::error_code sec;
    if (!de.is_regular_file(sec)) {  // a FIFO would block the run, a directory is no case
      reports::print_to(stderr, "atomstress: warning: corpus '{}': not a regular file, skipped\n", de.path().string());
      continue;
    }
    files.push_back(de.path().string());
  }
  if (ec) {
    error = "cannot read corpus directory '" + dir + "': " + ec.message();
    return false;
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    auto c = read_case(f, error);
    if (!c) return false;
    cases.push_back(std::move(*c));
  }
  return true;
}

}  // namespace atomstress::fuzz
