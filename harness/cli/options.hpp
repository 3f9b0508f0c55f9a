// The command line's option machinery, shared by every command: one parser
// for every numeric option (Boost.Program_options value semantics that refuse
// negatives, out-of-range values, trailing garbage, empty strings, NaN and
// inf with one line naming the option and its range), no guessing of
// abbreviations, no positional extras, and the one-line error format.
#pragma once

#include <boost/program_options.hpp>

#include "harness/backend/backend.hpp"
#include "harness/support/parse_number.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace atomstress {
// Boost's value type for --checker needs the stream operators (found by
// argument-dependent lookup, so here); the option parses with parse_checker.
std::istream& operator>>(std::istream& in, CheckerKind& c);
std::ostream& operator<<(std::ostream& out, CheckerKind c);
}  // namespace atomstress

namespace atomstress::cli {

// Parses a finite number of seconds in (0, max]; nullopt with `why`.
std::optional<double> parse_seconds(std::string_view text, double max, std::string& why);

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

// Seconds: finite, positive, at most `max`.
class SecondsValue : public boost::program_options::typed_value<double> {
 public:
  SecondsValue(double* store, double max) : boost::program_options::typed_value<double>(store), max_(max) {}
  void xparse(boost::any& out, const std::vector<std::string>& tokens) const override;

 private:
  double max_;
};
inline SecondsValue* seconds(double* store, double max) { return new SecondsValue(store, max); }

// --isolate on|off|auto: whether trials run in a supervised worker process
// (harness/pipeline/execute_trial.hpp); auto, the default, is on.
boost::program_options::typed_value<bool>* isolation(bool* store);
inline constexpr const char* kIsolationHelp =
    "on, off or auto (on): run each trial in a worker process, so that a hang, trap or fault costs one verdict "
    "(HANG, CRASH) and the run goes on; off runs them in this process (for debugging)";

// A switch spelled on|off.
boost::program_options::typed_value<bool>* on_off(bool* store, bool default_on);

// --checker auto|cpu|gpu|both (RunOptions::checker).
boost::program_options::typed_value<CheckerKind>* checker_kind(CheckerKind* store);
inline constexpr const char* kCheckerHelp =
    "auto, cpu, gpu or both (auto): which checker judges a single atomic's trial on the cuda backend. gpu expands, "
    "runs and checks it on the device and copies back only a trial it cannot pass (the host's checker explains "
    "it); cpu copies every history back; both checks every history with each and makes a disagreement an "
    "error; auto is gpu for trials of 2048 ops or more where the entry's device oracle agrees with its host phi "
    "and the history fits the GPU checker. Algorithms and the cpu backend always use the host's checker";

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
inline constexpr uint64_t kMaxWatchdogMs = 3'600'000;  // one hour
inline constexpr uint32_t kMaxCpuThreads = 256;
inline constexpr uint32_t kMaxTrials = 1'000'000;
inline constexpr uint32_t kMaxRuns = 1'000'000;
inline constexpr double kMaxBudgetSeconds = 3600;

}  // namespace atomstress::cli
