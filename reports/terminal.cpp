#include "reports/terminal.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace atomstress::reports {

void print_hotspot_table(const std::vector<Hotspot>& hotspots, int indent) {
  print("{:{}}{:>10} {:>10} {:>12} {:>14}\n", "", indent, "address", "ops", "retries", "cycles/op");
  for (const auto& h : hotspots)
    print("{:{}}{:10} {:10} {:12} {:14.0f}\n", "", indent, h.addr, h.ops, h.retries,
               h.ops ? double(h.cycles) / double(h.ops) : 0.0);
}

bool flush_stdout(std::string& error) {
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return true;
  error = std::string("cannot write standard output") + (errno ? std::string(": ") + std::strerror(errno) : "");
  return false;
}

}  // namespace atomstress::reports
