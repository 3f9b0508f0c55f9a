#include "harness/backend/backend.hpp"

namespace atomstress {

const char* to_string(BackendKind b) { return b == BackendKind::Cuda ? "cuda" : "cpu"; }

uint64_t effective_watchdog_ms(const RunOptions& o, uint64_t ops) {
  return o.watchdog_ms != 0 ? o.watchdog_ms : 1000 + ops / 50;
}

}  // namespace atomstress
