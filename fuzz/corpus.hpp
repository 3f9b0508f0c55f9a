// The failure corpus: one small text file per distinct failure (entry name
// + shrunk token), `key: value` lines a person can read and `repro` can
// replay.  Files are written through a temporary file and a rename, and an
// existing case is never rewritten (its first-seen time stays).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace atomstress::fuzz {

struct CorpusCase {
  std::string impl, token, spec, verdict, why;
  std::string version, backend, device, first_seen;
  uint32_t rate_failures = 0, rate_runs = 0;
  std::string file;  // where it was read from or written to
};

// A case file is a few hundred bytes: one larger than this is refused
// before it is read whole.
inline constexpr uint64_t kMaxCaseBytes = 1 << 20;

// How many runs in a row must pass before a corpus case is called fixed:
// enough that a bug still there, failing at a quarter of its recorded rate
// (a loaded host runs a race's threads apart, and it shows less), would have
// failed one of them with probability 1 - 1e-6.  A case recorded without a
// rate, or with none failing, counts as failing 1 run in 10.
uint32_t runs_to_call_fixed(const CorpusCase& c);

// "<impl>-<16 hex digits of the token's hash>.case"
std::string case_file_name(const CorpusCase& c);

std::string format_case(const CorpusCase& c);
// Parses a case file's text (CRLF line ends accepted); nullopt with a
// one-line `error` (without the file name) when a field is missing or
// given twice, the verdict is not FAIL, HANG or CRASH, the text holds a NUL
// byte, or the token is malformed.
std::optional<CorpusCase> parse_case(const std::string& text, std::string& error);

// Reads one file the user named (a link is followed); the error names it.
std::optional<CorpusCase> read_case(const std::string& path, std::string& error);
// Reads one file of a corpus: never through a link, never a FIFO; the error
// names `named` (default: `path`).
std::optional<CorpusCase> read_corpus_case(const std::string& path, std::string& error, const std::string& named = "");
// Writes `c` into `dir` unless its file exists; `added` says which.  An
// entry name that is not one plain file name (a '/', "..") is refused, and
// a link at the case's name is refused, never written through.
bool add_case(const std::string& dir, CorpusCase& c, bool& added, std::string& error);
// Every *.case file of `dir`, by file name; false on the first malformed
// one.  One that is a symbolic link or not a regular file (a FIFO, a
// directory) is skipped with a warning on stderr, never opened.
bool load_corpus(const std::string& dir, std::vector<CorpusCase>& cases, std::string& error);
// An output (option, path) that names a *.case file of `corpus` (links
// followed): false with a one-line `error`; writing it would destroy a
// recorded failure, and the corpus would no longer read.
bool check_no_output_is_a_case(const std::vector<std::pair<std::string, std::string>>& outputs,
                               const std::string& corpus, std::string& error);
// Creates `dir` (and parents) if missing.
bool ensure_dir(const std::string& dir, std::string& error);

}  // namespace atomstress::fuzz
