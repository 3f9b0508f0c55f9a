// The command line's option machinery, shared by every command: one parser
// for every numeric option (Boost.Program_options value semantics that refuse
// negatives, out-of-range values, trailing garbage, empty strings, NaN and
// inf with one line naming the option and its range), no guessing of
// abbreviations, no positional extras, and the one-line error format.
#pragma once

#include <boost/program_options.hpp>

#include "harness/backend/backend.hpp"
#include "harness/backend/run_settings.hpp"
#include "harness/support/parse_number.hpp"
#include "reports/sinks.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace atomstress {
struct Entry;
}  // namespace atomstress

namespace atomstress::cli {

// Parses a finite number of seconds in (0, max] (and at least `min`);
// nullopt with `why`.
std::optional<double> parse_seconds(std::string_view text, double max, std::string& why, double min = 0);

// Refused numbers surface as this Boost error; the parser fills in the option.
class bad_number : public boost::program_options::validation_error {
 public:
  bad_number(const std::string& token, const std::string& why);
};

// The value semantic for an integer option bounded to [lo, hi].  `store` may
// be null (then read it from the variables_map: an option with no default
// that means something when absent).
template <class T>
class BoundedValue : public boost::program_options::typed_value<T> {
 public:
  BoundedValue(T* store, T lo, T hi) : boost::program_options::typed_value<T>(store), lo_(lo), hi_(hi) {}
  void xparse(boost::any& out, const std::vector<std::string>& tokens) const override {
    boost::program_options::validators::check_first_occurrence(out);
    const std::string& token = boost::program_options::validators::get_single_string(tokens);
    std::string why;
    const auto v = parse_unsigned(token, uint64_t(lo_), uint64_t(hi_), why);
    if (!v) throw bad_number(token, why);
    out = T(*v);
  }

 private:
  T lo_, hi_;
};

template <class T>
BoundedValue<T>* bounded(T* store, T lo = 0, T hi = std::numeric_limits<T>::max()) {
  static_assert(std::is_unsigned_v<T>, "counts, sizes and seeds are unsigned");
  return new BoundedValue<T>(store, lo, hi);
}

// Seconds: finite, positive, at most `max` (and at least `min`).
class SecondsValue : public boost::program_options::typed_value<double> {
 public:
  SecondsValue(double* store, double max, double min)
      : boost::program_options::typed_value<double>(store), max_(max), min_(min) {}
  void xparse(boost::any& out, const std::vector<std::string>& tokens) const override;

 private:
  double max_, min_;
};
inline SecondsValue* seconds(double* store, double max, double min = 0) { return new SecondsValue(store, max, min); }

// A switch spelled on|off.
boost::program_options::typed_value<bool>* on_off(bool* store, bool default_on);

// Every run setting `command` offers (backend/run_settings.hpp), bound to
// `run`; each option's default is `run`'s value when declared.
void add_run_settings(boost::program_options::options_description& desc, RunCommand command, RunOptions& run);
// The run settings `vm` was given on the command line, copied from `given`
// into `run` (repro: a token's settings, unless the command line names them).
void keep_given_settings(const boost::program_options::variables_map& vm, const RunOptions& given, RunOptions& run);

// --sanitize memcheck|racecheck|synccheck (check, repro): bound to `tool`.
void add_sanitize_option(boost::program_options::options_description& desc, std::string& tool);
// Sets run.sanitize from the option's text ("" or "none": none); false with
// a one-line `error` for an unknown tool, the cpu backend, --isolate off,
// or no compute-sanitizer to be found (pipeline/sanitizer.hpp locate).
bool apply_sanitize_option(const std::string& tool, BackendKind backend, RunOptions& run, std::string& error);

// The report files a command writes (reports/sinks.hpp), as given.
struct ReportOptions {
  explicit ReportOptions(reports::ReportCommand c);
  reports::ReportCommand command;
  std::vector<std::string> values;  // per row of report_formats(); empty: not asked for
  // The formats asked for, with their values.
  reports::ReportRequest request() const;
};
void add_report_options(boost::program_options::options_description& desc, ReportOptions& o);

// The header a command hands its printers: its command line, backend and
// device ("host" on cpu).
reports::RunHeader run_header(const std::string& command_line, BackendKind backend);

// --backend cuda|cpu|auto and --skip-without-gpu, which every command that
// runs trials offers.
void add_backend_options(boost::program_options::options_description& desc, std::string& backend,
                         bool& skip_without_gpu);
// With --skip-without-gpu and no usable GPU (for cuda or auto): true, with
// the one line to print in `note` (the command then exits 77).
bool skip_for_missing_gpu(const std::string& backend, bool skip_without_gpu, std::string& note);

// Comma-separated items, empty ones kept ("a,,b" is three items, "" none):
// one rule for every list option, which refuses them (refuse_empty_items).
std::vector<std::string> split_commas(std::string_view s);
// True, with a one-line `error`, when `items` (of --option's `list`) holds
// an empty one: "names no WHAT" when all are, else "has an empty item".
bool refuse_empty_items(const std::vector<std::string>& items, const std::string& option, const std::string& list,
                        const char* what, std::string& error);
// The entries `list` names (names, globs or groups, comma-separated), no
// repeats, in the order given; false with a one-line `error` (naming
// `option`) for an empty list or a name that matches nothing.
bool select_entries(const std::string& list, const char* option, std::vector<const Entry*>& out, std::string& error);

// A string option that must not be empty (a file name, a list).
boost::program_options::typed_value<std::string>* non_empty(std::string* store);

// Parses `args` against `desc` (and `positional`, if given): no abbreviation
// guessing, no unregistered options, no positional extras.  Throws Boost's
// errors (main turns them into one line, exit 2).
boost::program_options::variables_map parse_command(
    const std::vector<std::string>& args, const boost::program_options::options_description& desc,
    const boost::program_options::positional_options_description* positional = nullptr);

// `atomstress: error: MSG` on stderr; returns 2.
int usage_error(const std::string& msg);

// The bounds the commands share.
inline constexpr uint32_t kMaxTrials = 1'000'000;
inline constexpr uint32_t kMaxRuns = 1'000'000;
inline constexpr double kMaxBudgetSeconds = 3600;
// Progress lines at most 20 a second: a shorter period floods a CI log.
inline constexpr double kShortestProgressSeconds = 0.05;

}  // namespace atomstress::cli
