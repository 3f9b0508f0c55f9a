#include "reports/selftest_printer.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "reports/repro_command.hpp"
#include "reports/terminal.hpp"

namespace atomstress::reports {

void SelftestPrinter::do_note(const std::string& n) {
  print("{}\n", n);
  std::fflush(stdout);
}

void SelftestPrinter::header() {
  if (header_printed_) return;
  header_printed_ = true;
  print("{:<32} {:<6} {:<5} {:<13} {:>9} {:>6}  {:<26} {}\n", "implementation", "caught", "how", "class",
             "to catch", "specs", "shrunk: grid x block x ops", "rate of shrunk case");
}

void SelftestPrinter::do_record(const Record& r) {
  if (const auto* s = as<SkippedEntry>(r)) {
    header();
    print("{:<32} {:<6} ({})\n", s->entry->name, "n/a", s->why);
  } else if (const auto* c = as<CampaignRecord>(r)) {
    header();
    const std::string shrunk =
        c->found ? fmt::format("{} x {} x {} = {} ops", c->shrunk.grid, c->shrunk.block, c->shrunk.ops_per_thread,
                               c->shrunk.ops())
                 : "-";
    const std::string rate = c->found ? fmt::format("{}/{}{}", c->rate_failures, c->rate_runs, c->flaky ? " (flaky)" : "")
                                      : "-";
    const std::string when = c->found ? fmt::format("{:.3f} s", c->time_to_catch_s) : "-";
    print("{:<32} {:<6} {:<5} {:<13} {:>9} {:>6}  {:<26} {}\n", c->impl->name,
               c->found ? "yes" : c->impl->rate_only ? "unseen" : "NO", c->found ? to_string(c->verdict) : "-",
               c->found ? to_string(c->cls) : "-", when, c->specs, shrunk, rate);
    if (c->found) {
      print("      {}\n      repro: {}\n", c->why, repro_command(encode_token(c->shrunk, c->knobs), c->backend));
      if (c->shrunk.stress.any()) print("      shrunk case's {}\n", describe(c->shrunk.stress));
    }
  } else {
    return;
  }
  std::fflush(stdout);
}

bool SelftestPrinter::do_finish() { return flush_stdout(error_); }

}  // namespace atomstress::reports
