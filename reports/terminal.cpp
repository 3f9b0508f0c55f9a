#include "reports/terminal.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace atomstress::reports {

void print_hotspot_table(const std::vector<Hotspot>& hotspots, int indent) {
  std::printf("%*s%10s %10s %12s %14s\n", indent, "", "address", "ops", "retries", "cycles/op");
  for (const auto& h : hotspots)
    std::printf("%*s%10llu %10llu %12llu %14.0f\n", indent, "", (unsigned long long)h.addr,
                (unsigned long long)h.ops, (unsigned long long)h.retries,
                h.ops ? double(h.cycles) / double(h.ops) : 0.0);
}

bool flush_stdout(std::string& error) {
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return true;
  error = std::string("cannot write standard output") + (errno ? std::string(": ") + std::strerror(errno) : "");
  return false;
}

}  // namespace atomstress::reports
