#include "reports/text_printer.hpp"

#include "reports/terminal.hpp"
#include "reports/repro_command.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

namespace atomstress::reports {

void TextPrinter::do_note(const std::string& n) {
  print("{}\n", n);
  std::fflush(stdout);
}

// A failure's class in words, its ops' operands, what its replay alone
// showed, and which semantics the code implements.
static void print_diagnosis(FailureClass cls, const std::vector<std::string>& trace, const std::string& inference,
                     const std::vector<std::string>& operands) {
  for (const auto& o : operands) print("      operands: {}\n", o);
  if (cls != FailureClass::None) print("      class: {} ({})\n", to_string(cls), describe(cls));
  for (const auto& t : trace) {
    if (t.starts_with(kSeenMark)) print("      {}\n", t);
    else print("      alone, in program order: {}\n", t);
  }
  if (!inference.empty()) print("      {}\n", inference);
}

void TextPrinter::do_record(const Record& r) {
  if (const auto* s = as<ImplSummary>(r)) summary(*s);
  else if (const auto* k = as<SkippedEntry>(r)) skipped(*k);
  else if (const auto* p = as<ReproSummary>(r)) repro(*p);
  // Each entry's lines as it ends: piped into a CI log (or tee), a run
  // killed later must not lose the verdicts already printed.
  std::fflush(stdout);
}

void TextPrinter::summary(const ImplSummary& s) {
  const bool pass = s.verdict == Verdict::Pass;
  if (pass && quiet_) return;
  const std::string ops = s.ops >= 1000000 ? fmt::format("{:.1f}M", s.ops / 1e6) : fmt::format("{:.1f}k", s.ops / 1e3);
  // A failure's class ends its verdict line: the shrunk case's, else the first failure's.
  const FailureClass cls = s.shrunk ? s.shrunk->diagnosis.cls : s.first_failure.finding.cls;
  const std::string cls_text = !pass && cls != FailureClass::None ? std::string("  [") + to_string(cls) + "]" : "";
  print("{:<5} {:<32} {:<4} {:4} trials {:>8} ops  run {:8.1f} ms  check {:8.1f} ms  retries max {}{}{}\n",
             to_string(s.verdict), s.impl->name, to_string(s.backend), s.trials, ops, s.run_ms, s.check_ms,
             s.max_retries, s.skipped && !s.impl->algo ? "  (some pattern/space combinations n/a)" : "", cls_text);
  // A verdict on code with atomics atomstress could not see says so, every time.
  if (s.impl->not_intercepted) print("      note: {}\n", s.impl->not_intercepted);
  // A bug only a sanitizer sees: a PASS without it clears nothing.
  if (pass && s.impl->needs_sanitizer)
    print("      note: its bug shows only under --sanitize {} (the oracles and guard zones cannot see it)\n",
          s.impl->needs_sanitizer);
  if (!pass && s.shrunk) {
    // The shrunk case replaces the first failure: smaller, and it is what
    // the repro line replays.
    const auto& c = *s.shrunk;
    print("      {}\n", c.why);
    print_diagnosis(c.diagnosis.cls, c.diagnosis.trace, c.diagnosis.inference, {});
    print("      first: {}\n      shrunk: {}  (failed {} of {} reruns; {} smaller cases tried in {:.1f} s{})\n"
               "      repro: {}\n",
               describe(s.first_failure.spec), describe(c.spec), c.rate_failures, c.rate_runs, c.candidates,
               c.seconds, c.timed_out ? ", stopped at --shrink-time" : "",
               repro_command(encode_token(c.spec, c.knobs), s.backend));
  } else if (!pass) {
    const auto& f = s.first_failure;
    print("      {}\n", f.why());
    print_diagnosis(f.finding.cls, f.finding.trace, f.finding.inference, f.finding.operands);
    print("      spec: {}\n      repro: {}\n", describe(f.spec), repro_command(encode_token(f.spec, f.knobs), s.backend));
  }
  if (!pass && s.distinct) {
    // Another bug of the same code: its own case, class and token.
    const auto& c = *s.distinct;
    const FailureClass dcls = c.diagnosis.cls;
    print("      also, a distinct failure{}: {}\n", dcls != FailureClass::None ? std::string(" [") + to_string(dcls) + "]" : "",
          c.why);
    print_diagnosis(dcls, c.diagnosis.trace, c.diagnosis.inference, {});
    print("      its case: {}  (failed {} of {} reruns)\n      repro: {}\n", describe(c.spec), c.rate_failures,
          c.rate_runs, repro_command(encode_token(c.spec, c.knobs), s.backend));
  }
  if (profile_ && !s.most_contended.hotspots.empty()) {
    const auto& m = s.most_contended;
    print("      hotspots of the busiest trial ({}, {}, k={}):\n", to_string(m.spec.pattern),
               to_string(m.spec.space), m.spec.k);
    print_hotspot_table(m.hotspots, 8);
  }
}

void TextPrinter::skipped(const SkippedEntry& s) {
  if (quiet_) return;
  print("SKIP  {:<32} {:<4}  {}\n", s.entry->name, to_string(s.backend), s.why);
}

void TextPrinter::repro(const ReproSummary& r) {
  if (r.first_failed_run) print("run {}: {}\n", r.first_failed_run, r.first_why);
  // MC Mutants' reproducibility score: with x the expected number of
  // failures in a rerun of this many runs, 1 - e^-x.
  const double x = double(r.failures);
  print("failed {} of {} runs (rate {:.3f}); reproducibility score 1-e^-x = {:.3f} (x = {:.1f} expected failures per "
             "{} runs)\n",
             r.failures, r.runs, double(r.failures) / r.runs, 1.0 - std::exp(-x), x, r.runs);
}

bool TextPrinter::do_finish() { return flush_stdout(error_); }

}  // namespace atomstress::reports
