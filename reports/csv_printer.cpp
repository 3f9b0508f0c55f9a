#include "reports/csv_printer.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace atomstress::reports {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

namespace {

std::string number(double v) { return fmt::format("{:.6g}", v); }

std::string optional_number(const std::optional<double>& v) { return v ? number(*v) : std::string(); }

// Retries are not counted for a kernel entry (its atomics are its own): an
// empty field, not a 0.
std::string counted(const ProfilePoint& p, std::string v) { return p.per_launch ? std::string() : v; }

}  // namespace

std::string CsvPrinter::render() const {
  std::string out =
      "name,entry,backend,k,pattern,grid,block,ops_per_thread,space,dist,unit,items_per_launch,launches,"
      "seconds_per_launch,items_per_second,noise,converged,cold,retries_mean,retries_p50,retries_p99,retries_max,"
      "cycles_per_op,baseline_items_per_second,baseline_noise,ratio_to_baseline,verdict\n";
  for (const auto& p : points_) {
    const auto& s = p.spec;
    const std::string row[] = {
        p.name(), p.impl->name, to_string(p.backend), std::to_string(s.k), to_string(s.pattern),
        std::to_string(s.grid), std::to_string(s.block), std::to_string(s.ops_per_thread), to_string(s.space),
        to_string(s.dist), p.item_unit(), std::to_string(p.items), std::to_string(p.timing.launches),
        number(p.timing.s_per_launch), number(p.items_per_second), number(p.timing.noise),
        p.timing.converged ? "1" : "0", p.cold ? "1" : "0", counted(p, number(p.retries_mean)),
        counted(p, std::to_string(p.retries_p50)), counted(p, std::to_string(p.retries_p99)),
        counted(p, std::to_string(p.retries_max)), optional_number(p.cycles_per_op),
        optional_number(p.baseline_items_per_second),
        p.baseline ? number(p.baseline->noise) : std::string(), optional_number(p.ratio_to_baseline),
        to_string(p.verdict)};
    bool first = true;
    for (const auto& f : row) {
      if (!first) out += ',';
      out += csv_field(f);
      first = false;
    }
    out += "\n";
  }
  return out;
}

}  // namespace atomstress::reports
