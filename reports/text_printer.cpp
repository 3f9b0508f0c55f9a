#include "reports/text_printer.hpp"

#include "reports/terminal.hpp"
#include "reports/repro_command.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace atomstress::reports {

void TextPrinter::do_note(const std::string& n) {
  std::printf("%s\n", n.c_str());
  std::fflush(stdout);
}

// A failure's class in words, its ops' operands, what its replay alone
// showed, and which semantics the code implements.
static void print_diagnosis(FailureClass cls, const std::vector<std::string>& trace, const std::string& inference,
                     const std::vector<std::string>& operands) {
  for (const auto& o : operands) std::printf("      operands: %s\n", o.c_str());
  if (cls != FailureClass::None) std::printf("      class: %s (%s)\n", to_string(cls), describe(cls));
  for (const auto& t : trace) std::printf("      alone, in program order: %s\n", t.c_str());
  if (!inference.empty()) std::printf("      %s\n", inference.c_str());
}

void TextPrinter::do_record(const Record& r) {
  if (const auto* s = as<ImplSummary>(r)) summary(*s);
  else if (const auto* k = as<SkippedEntry>(r)) skipped(*k);
  else if (const auto* p = as<ReproSummary>(r)) repro(*p);
}

void TextPrinter::summary(const ImplSummary& s) {
  const bool pass = s.verdict == Verdict::Pass;
  if (pass && quiet_) return;
  char ops[32];
  if (s.ops >= 1000000) std::snprintf(ops, sizeof ops, "%.1fM", s.ops / 1e6);
  else std::snprintf(ops, sizeof ops, "%.1fk", s.ops / 1e3);
  // A failure's class ends its verdict line: the shrunk case's, else the first failure's.
  const FailureClass cls = s.shrunk ? s.shrunk->diagnosis.cls : s.first_failure.finding.cls;
  const std::string cls_text = !pass && cls != FailureClass::None ? std::string("  [") + to_string(cls) + "]" : "";
  std::printf("%-5s %-32s %-4s %4u trials %8s ops  run %8.1f ms  check %8.1f ms  retries max %u%s%s\n",
              to_string(s.verdict), s.impl->name, to_string(s.backend), s.trials, ops, s.run_ms, s.check_ms,
              s.max_retries, s.skipped && !s.impl->algo ? "  (some pattern/space combinations n/a)" : "",
              cls_text.c_str());
  // A verdict on code with atomics atomstress could not see says so, every time.
  if (s.impl->not_intercepted) std::printf("      note: %s\n", s.impl->not_intercepted);
  if (!pass && s.shrunk) {
    // The shrunk case replaces the first failure: smaller, and it is what
    // the repro line replays.
    const auto& c = *s.shrunk;
    std::printf("      %s\n", c.why.c_str());
    print_diagnosis(c.diagnosis.cls, c.diagnosis.trace, c.diagnosis.inference, {});
    std::printf("      first: %s\n      shrunk: %s  (failed %u of %u reruns; %llu smaller cases tried "
                "in %.1f s%s)\n      repro: %s\n",
                describe(s.first_failure.spec).c_str(), describe(c.spec).c_str(), c.rate_failures,
                c.rate_runs, (unsigned long long)c.candidates, c.seconds, c.timed_out ? ", stopped at --shrink-time" : "",
                repro_command(encode_token(c.spec, c.knobs), s.backend).c_str());
  } else if (!pass) {
    const auto& f = s.first_failure;
    std::printf("      %s\n", f.why().c_str());
    print_diagnosis(f.finding.cls, f.finding.trace, f.finding.inference, f.finding.operands);
    std::printf("      spec: %s\n      repro: %s\n", describe(f.spec).c_str(),
                repro_command(encode_token(f.spec, f.knobs), s.backend).c_str());
  }
  if (profile_ && !s.most_contended.hotspots.empty()) {
    const auto& m = s.most_contended;
    std::printf("      hotspots of the busiest trial (%s, %s, k=%u):\n", to_string(m.spec.pattern),
                to_string(m.spec.space), m.spec.k);
    print_hotspot_table(m.hotspots, 8);
  }
  std::fflush(stdout);
}

void TextPrinter::skipped(const SkippedEntry& s) {
  if (quiet_) return;
  std::printf("SKIP  %-32s %-4s  %s\n", s.entry->name, to_string(s.backend), s.why.c_str());
}

void TextPrinter::repro(const ReproSummary& r) {
  if (r.first_failed_run) std::printf("run %u: %s\n", r.first_failed_run, r.first_why.c_str());
  // MC Mutants' reproducibility score: with x the expected number of
  // failures in a rerun of this many runs, 1 - e^-x.
  const double x = double(r.failures);
  std::printf("failed %u of %u runs (rate %.3f); reproducibility score 1-e^-x = %.3f (x = %.1f expected failures per %u runs)\n",
              r.failures, r.runs, double(r.failures) / r.runs, 1.0 - std::exp(-x), x, r.runs);
}

bool TextPrinter::do_finish() { return flush_stdout(error_); }

}  // namespace atomstress::reports
