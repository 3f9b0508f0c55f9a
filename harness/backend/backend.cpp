#include "harness/backend/backend.hpp"

namespace atomstress {

const char* to_string(BackendKind b) { return b == BackendKind::Cuda ? "cuda" : "cpu"; }

std::optional<BackendKind> parse_backend(std::string_view s) {
  for (BackendKind b : {BackendKind::Cpu, BackendKind::Cuda})
    if (s == to_string(b)) return b;
  return std::nullopt;
}

uint64_t effective_watchdog_ms(const RunOptions& o, uint64_t ops) {
  return o.watchdog_ms != 0 ? o.watchdog_ms : 1000 + ops / 50;
}

}  // namespace atomstress
