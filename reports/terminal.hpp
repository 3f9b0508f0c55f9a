// What the terminal printers share: libfmt text written through stdio, the
// hottest-address table, and the check that standard output kept
// everything written to it.
#pragma once

#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "harness/pipeline/run_trial.hpp"

namespace atomstress::reports {

// Formats with libfmt and writes with stdio.  fmt::print throws on a failed
// write; a full disk or closed pipe must instead surface once, as the
// command's one-line error from its final flush (flush_stdout).
template <class... Args>
void print_to(std::FILE* to, fmt::format_string<Args...> f, Args&&... args) {
  const std::string text = fmt::format(f, std::forward<Args>(args)...);
  std::fwrite(text.data(), 1, text.size(), to);
}
template <class... Args>
void print(fmt::format_string<Args...> f, Args&&... args) {
  print_to(stdout, f, std::forward<Args>(args)...);
}

// address, ops, retries, cycles per op; each row indented by `indent` spaces.
void print_hotspot_table(const std::vector<Hotspot>& hotspots, int indent);

// Flushes stdout; false with a one-line `error` when it lost something (a
// full disk, a closed pipe).
bool flush_stdout(std::string& error);

}  // namespace atomstress::reports
