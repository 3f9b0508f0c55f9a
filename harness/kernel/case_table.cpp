#include "harness/kernel/case_table.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace atomstress::kernel {

namespace {

void add_draws(const CaseRecord& r, std::vector<std::string>& out) {
  out.push_back("drawn:");
  if (r.draws.empty()) out.push_back("  (nothing: the property drew no size or range)");
  for (const Drawn& d : r.draws) out.push_back(fmt::format("  {:<20} {}", d.name, d.value));
  for (size_t i = 0; i < r.launches.size(); ++i) {
    const Geometry& g = r.launches[i];
    out.push_back(fmt::format("  {:<20} grid {} x block {}{}", fmt::format("launch {}", i + 1), g.grid, g.block,
                              g.shared_bytes ? fmt::format(", {} bytes of dynamic shared memory", g.shared_bytes) : ""));
  }
}

void add_buffers(const CaseRecord& r, size_t rows, std::vector<std::string>& out) {
  for (const TracedBuffer& b : r.buffers) {
    out.push_back(fmt::format("buffer '{}' ({} elements of {}), as written before the launch:", b.name,
                              b.initial.size(), vk_name(b.kind)));
    const size_t shown = std::min(rows, b.initial.size());
    for (size_t i = 0; i < shown; ++i) out.push_back(fmt::format("  {:>8}  {}", i, format_value(b.kind, b.initial[i])));
    if (b.initial.size() > shown) out.push_back(fmt::format("  ... {} more", b.initial.size() - shown));
  }
}

void add_window(const KernelFailure& f, std::vector<std::string>& out) {
  const std::vector<DiffRow> rows = window_of(f);
  if (rows.empty()) {
    out.push_back("the oracle: " + f.message);
    return;
  }
  out.push_back(fmt::format("the oracle{}, around the first difference:", f.buffer.empty() ? "" : " on '" + f.buffer + "'"));
  size_t width = 8;
  for (const DiffRow& d : rows) width = std::max(width, d.at.size());
  out.push_back(fmt::format("  {:<{}}  {:>12}  {:>12}", "at", width, "expected", "got"));
  for (const DiffRow& d : rows)
    out.push_back(fmt::format("  {:<{}}  {:>12}  {:>12}{}", d.at, width, d.expected, d.got, d.differs ? "  <-" : ""));
}

}  // namespace

std::vector<std::string> case_table(const CaseRecord& r, size_t rows_per_buffer) {
  std::vector<std::string> out;
  add_draws(r, out);
  add_buffers(r, rows_per_buffer, out);
  if (r.failure) add_window(*r.failure, out);
  else out.push_back("the oracles: every check held");
  return out;
}

}  // namespace atomstress::kernel
