#include "reports/fuzz_text_printer.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "reports/fuzz_collector.hpp"
#include "reports/repro_command.hpp"
#include "reports/terminal.hpp"

namespace atomstress::reports {

std::string fuzz_failure_lines(const FuzzEntryResult& e) {
  return fmt::format(
      "{:<5} {:<32} {:<6} {:8} trials {:10} ops  caught after {:.1f} s ({})\n      {}\n      shrunk: {}  ({})\n"
      "      repro: {}",
      to_string(e.verdict), e.impl, to_string(e.backend), e.trials, e.ops, e.time_to_catch_s, e.origin, e.why, e.spec,
      FuzzCollector::shrunk_rate(e), repro_command(e.token, e.backend));
}

void FuzzTextPrinter::do_note(const std::string& n) {
  print("{}\n", n);
  std::fflush(stdout);
}

void FuzzTextPrinter::do_record(const Record& r) {
  const auto* e = as<FuzzEntryResult>(r);
  // An interrupted run's entries: its note says so.
  if (!e || e->origin == "interrupted") return;
  if (e->skipped) print("SKIP  {:<32} {}\n", e->impl, e->skip_why);
  else if (e->failed()) print("{}\n", fuzz_failure_lines(*e));
  else
    print("PASS  {:<32} {:<6} {:8} trials {:10} ops  {:.1f} s in {} rounds\n", e->impl, to_string(e->backend),
               e->trials, e->ops, e->seconds, e->rounds);
}

bool FuzzTextPrinter::do_finish() { return flush_stdout(error_); }

}  // namespace atomstress::reports
