#include "fuzz/corpus.hpp"

#include <fmt/format.h>

#include "reports/terminal.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <set>
#include <filesystem>
#include <sstream>

#include "harness/pipeline/run_trial.hpp"
#include "harness/support/atomic_file.hpp"
#include "harness/support/hash.hpp"
#include "harness/support/parse_number.hpp"
#include "harness/support/safe_path.hpp"
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
      // (Its text is not quoted: a file that is no case is never echoed.)
      error = "line " + std::to_string(n) + ": not a 'key: value' line: not a case file";
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
      // Digits only on both sides (no sign, no space, no wraparound).
      const auto slash = value.find('/');
      std::string why;
      const auto f = parse_unsigned(value.substr(0, slash), 0, UINT32_MAX, why);
      const auto r = slash == std::string::npos ? std::nullopt : parse_unsigned(value.substr(slash + 1), 0, UINT32_MAX, why);
      if (!f || !r || *f > *r) {
        error = "line " + std::to_string(n) + ": bad failure_rate '" + value.substr(0, 40) +
                "' (FAILURES/RUNS, whole numbers, failures at most runs)";
        return std::nullopt;
      }
      c.rate_failures = uint32_t(*f);
      c.rate_runs = uint32_t(*r);
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
  // further than a case can be.  A path the user named may be a link.
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    error = "cannot read corpus file '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "cannot read corpus file '" + path + "': not a regular file";
    return std::nullopt;
  }
  return read_corpus_case(resolve_links(path), error, path);
}

std::optional<CorpusCase> read_corpus_case(const std::string& path, std::string& error, const std::string& named) {
  const std::string& shown = named.empty() ? path : named;
  struct stat st{};
  if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && uint64_t(st.st_size) > kMaxCaseBytes) {
    error = "malformed corpus file '" + shown + "': " + std::to_string(st.st_size) + " bytes, more than a case's " +
            std::to_string(kMaxCaseBytes) + " (1 MiB)";
    return std::nullopt;
  }
  std::string text, why;
  if (!read_own_file(path, kMaxCaseBytes, text, why)) {
    error = "cannot read corpus file '" + shown + "': " + why;
    return std::nullopt;
  }
  auto c = parse_case(text, error);
  if (!c) {
    error = "malformed corpus file '" + shown + "': " + error;
    return std::nullopt;
  }
  c->file = shown;
  return c;
}

bool check_no_output_is_a_case(const std::vector<std::pair<std::string, std::string>>& outputs,
                               const std::string& corpus, std::string& error) {
  if (corpus.empty()) return true;
  auto where = [](const std::string& p) {
    std::error_code ec;
    const fs::path w = fs::weakly_canonical(fs::absolute(resolve_links(p)), ec);
    return ec ? fs::path(p) : w;
  };
  const fs::path dir = where(corpus);
  for (const auto& [option, path] : outputs) {
    if (path.empty()) continue;
    const fs::path p = where(path);
    if (p.extension() == ".case" && p.parent_path() == dir) {
      error = option + " '" + path + "' names a case file of the corpus '" + corpus +
              "': writing it would destroy a recorded failure";
      return false;
    }
  }
  return true;
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
  added = false;
  // The file is named after the entry: it must stay one file in `dir`.
  if (std::string why; !is_plain_file_name(c.impl, why)) {
    error = "refused to write a corpus case for entry '" + c.impl.substr(0, 80) + "': " + why +
            " cannot name a file inside the corpus";
    return false;
  }
  c.file = (fs::path(dir) / case_file_name(c)).string();
  if (const std::string kind = why_not_own_file(c.file); !kind.empty()) {
    error = "cannot write corpus case '" + c.file + "': it is " + kind + ", not followed";
    return false;
  }
  if (something_at(c.file)) return true;
  // Nothing malformed reaches a corpus: the case must read back.
  const std::string text = format_case(c);
  if (std::string why; !parse_case(text, why)) {
    error = "refused to write corpus case '" + c.file + "' for " + c.impl + ": " + why;
    return false;
  }
  if (!write_own_file(c.file, text, error)) return false;
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
    if (de.is_symlink(sec)) {  // never followed: it may point anywhere (/etc/shadow)
      reports::print_to(stderr, "atomstress: warning: corpus '{}': a symbolic link, not followed, skipped\n",
                        de.path().string());
      continue;
    }
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
    auto c = read_corpus_case(f, error);
    if (!c) return false;
    cases.push_back(std::move(*c));
  }
  return true;
}

}  // namespace atomstress::fuzz
