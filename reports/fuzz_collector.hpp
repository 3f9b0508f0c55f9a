// What every file report of `fuzz` and `merge` shares: it keeps the run's
// header and every entry's result, and writes the whole document at the
// end, through a temporary file and a rename (a killed run leaves the old
// file or the new one, never half of one).
#pragma once

#include <algorithm>

#include <fmt/format.h>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "harness/support/atomic_file.hpp"
#include "harness/support/timestamp.hpp"
#include "reports/printer.hpp"

namespace atomstress::reports {

class FuzzCollector : public Printer {
 public:
  explicit FuzzCollector(std::string path) : path_(std::move(path)) {}
  std::string error() const override { return error_; }

  // The whole document.
  virtual std::string render() const = 0;

  // "failed 9 of 10 reruns (flaky); without its stress, 0 of 10", the
  // shrunk case's rate as every report says it; a stressed case's two rates
  // with MC Mutants' reproducibility score 1 - e^-x (x: the failures).
  static std::string shrunk_rate(const FuzzEntryResult& e) {
    std::string s = "failed " + std::to_string(e.rate_failures) + " of " + std::to_string(e.rate_runs) + " reruns" +
                    (e.flaky ? " (flaky)" : "");
    if (e.bare_runs)
      s += " (score " + score(e.rate_failures) + "); without its stress, " + std::to_string(e.bare_failures) +
           " of " + std::to_string(e.bare_runs) + " (score " + score(e.bare_failures) + ")";
    return s;
  }
  static std::string score(uint32_t failures) {
    return fmt::format("{:.3f}", 1.0 - std::exp(-double(failures)));
  }

  // The failure's cause without its class at the head ("alone, in program
  // order: op #0 ...": fuzz's `why` begins with "semantics: ").
  static std::string cause(const FuzzEntryResult& e) {
    const std::string head = std::string(to_string(e.cls)) + ": ";
    if (e.cls != FailureClass::None && e.why.compare(0, head.size(), head) == 0) return e.why.substr(head.size());
    return e.why;
  }
  // What failed, in one line that is never empty: the class and the cause
  // ("semantics: alone, in program order: ..."); without a class (a log
  // written before classes, an entry not run to its end) what stands in
  // for one: "incomplete", "interrupted" or the verdict.  A skip: why.
  static std::string headline(const FuzzEntryResult& e) {
    if (e.skipped) return e.skip_why.empty() ? std::string("skipped") : e.skip_why;
    if (!e.failed()) return "pass";
    std::string head = e.cls != FailureClass::None ? to_string(e.cls)
                       : e.origin == "incomplete" || e.origin == "interrupted" ? e.origin
                                                                               : to_string(e.verdict);
    const std::string c = cause(e);
    return head + ": " + (c.empty() ? std::string("no cause recorded") : c);
  }
  // The user's function an entry belongs to: `form@atomic` (a pairing: an
  // algorithm or lock built on an atomic) is the atomic's; any other entry
  // (an atomic, or a lock or algorithm without @) is its own.
  static std::string function_of(const std::string& impl) {
    const auto at = impl.find('@');
    return at == std::string::npos ? impl : impl.substr(at + 1);
  }
  // An id for an entry's failure, the same in HTML and Markdown: "fail-"
  // and the name, '@' as "-at-", anything but letters, digits, '.', '_'
  // and '-' as '-'.
  static std::string anchor(const std::string& impl) {
    std::string a = "fail-";
    for (char c : impl) {
      if (c == '@') a += "-at-";
      else if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') a += c;
      else a += '-';
    }
    return a;
  }

  // "time: 150.0 s fuzzed; the code under test ran 12.3 s of it (8%: the
  // GPU's busy share)": where a run's time went (shrinking and rates
  // included), in the terminal and the Markdown summary.  Lanes sharing a
  // GPU (fuzz --jobs, `gpu_lanes` on each) time their kernels while the
  // others' run too: their share is not the GPU's.  Trials at once in one
  // lane (fuzz --trials-at-once) count the union of their kernels' times
  // (BusyTime), so theirs is; `at_once_from` below `at_once`: each slice's
  // rounds widened from that many to at most `at_once` (fuzz/at_once_ramp.hpp).
  // `gpu_s` (cuda, one lane): the GPU's busy
  // time, those kernels and the device's checking of their trials; where it
  // adds to the code under test's, the line gives both.
  // `slices_at_once` (fuzz --slices-at-once): that many entries' slices
  // ran at once; the times are then the union over them (PairedTime).
  static std::string busy_line(double fuzzed_s, double ran_s, BackendKind backend, unsigned gpu_lanes = 1,
                               unsigned at_once = 1, double gpu_s = 0, unsigned at_once_from = 0,
                               unsigned slices_at_once = 1) {
    const std::string trials = at_once_from > 0 && at_once_from < at_once
                                   ? fmt::format(", {} to {} trials at once", at_once_from, at_once)
                               : at_once > 1 ? fmt::format(", up to {} trials at once", at_once)
                                             : "";
    const std::string at =
        slices_at_once > 1 ? fmt::format("{} in each of {} slices at once", trials, slices_at_once) : trials;
    auto share = [&](double s) { return fuzzed_s > 0 ? 100 * s / fuzzed_s : 0.0; };
    if (backend == BackendKind::Cuda && gpu_lanes <= 1 && gpu_s > ran_s)
      return fmt::format(
          "time: {:.1f} s fuzzed; the code under test ran {:.1f} s of it ({:.0f}%), the GPU was busy {:.1f} s with it "
          "and the device's checking of its trials ({:.0f}%: the GPU's busy share{})",
          fuzzed_s, ran_s, share(ran_s), gpu_s, share(gpu_s), at);
    const std::string whose =
        backend != BackendKind::Cuda ? at
        : gpu_lanes > 1 ? fmt::format(": {} lanes on each GPU, their kernels time-sliced: not the GPU's busy share{}",
                                      gpu_lanes, at)
                        : ": the GPU's busy share" + at;
    return fmt::format("time: {:.1f} s fuzzed; the code under test ran {:.1f} s of it ({:.0f}%{})", fuzzed_s, ran_s,
                       share(ran_s), whose);
  }

 protected:
  void do_begin(const RunHeader& h) override { header_ = h; }
  void do_record(const Record& r) override {
    if (const auto* e = as<FuzzEntryResult>(r)) entries_.push_back(*e);
  }
  bool do_finish() override {
    if (error_.empty()) write_file_atomically(path_, render(), error_);
    return error_.empty();
  }
  // The whole run's busy_line, over the entries kept.
  std::string busy() const {
    double fuzzed = 0, ran = 0, gpu = 0;
    for (const auto& e : entries_) {
      fuzzed += e.seconds - e.paired.seconds;
      ran += e.run_s - e.paired.run_s;
      gpu += e.gpu_s - e.paired.gpu_s;
    }
    // A run of several lanes on each GPU (fuzz --jobs): the lanes' kernels
    // were time-sliced, so their summed time is no GPU's busy share.
    unsigned lanes = 1, at_once = 1, from = 0, slices = 1;
    for (const auto& [key, value] : header_.options) {
      if (key == "slices_at_once") slices = unsigned(std::max(1, std::atoi(value.c_str())));
      if (key == "jobs") lanes = unsigned(std::max(1, std::atoi(value.c_str())));
      if (key == "trials_at_once") at_once = unsigned(std::max(1, std::atoi(value.c_str())));
      if (key == "trials_at_once_from") from = unsigned(std::max(0, std::atoi(value.c_str())));
    }
    return busy_line(fuzzed, ran, header_.backend, lanes, at_once, gpu, from, slices);
  }
  // Seconds with one decimal, for the tables.
  static std::string fixed(double v) {
    return fmt::format("{:.1f}", v);
  }
  // The entries in report order: failures first, grouped by function
  // (function_of: the groups by name, in each the function itself first,
  // then its pairings by name), then the passes, then the skips, each in
  // the order given.
  std::vector<const FuzzEntryResult*> ordered() const {
    std::vector<const FuzzEntryResult*> fails, passes, skips;
    for (const auto& e : entries_) (e.skipped ? skips : e.failed() ? fails : passes).push_back(&e);
    std::stable_sort(fails.begin(), fails.end(), [](const FuzzEntryResult* a, const FuzzEntryResult* b) {
      const std::string fa = function_of(a->impl), fb = function_of(b->impl);
      if (fa != fb) return fa < fb;
      if ((a->impl == fa) != (b->impl == fb)) return a->impl == fa;
      return a->impl < b->impl;
    });
    fails.insert(fails.end(), passes.begin(), passes.end());
    fails.insert(fails.end(), skips.begin(), skips.end());
    return fails;
  }
  // A function's heading note: how many of its entries fail, and whether
  // the function itself (its atomic) passed where only pairings fail.
  std::string group_note(const std::string& function) const {
    size_t failing = 0;
    const FuzzEntryResult* itself = nullptr;
    for (const auto& e : entries_) {
      if (function_of(e.impl) != function) continue;
      failing += e.failed() && !e.skipped;
      if (e.impl == function) itself = &e;
    }
    std::string note = std::to_string(failing) + " failing";
    if (itself && !itself->failed() && !itself->skipped) note += "; " + function + " itself passed";
    return note;
  }
  // Entries that failed (not those the budget never reached).
  size_t failing() const {
    size_t n = 0;
    for (const auto& e : entries_) n += e.failed() && !e.skipped;
    return n;
  }
  RunHeader header_;
  std::vector<FuzzEntryResult> entries_;

 private:
  std::string path_, error_;
};

}  // namespace atomstress::reports
