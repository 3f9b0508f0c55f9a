#include "harness/check/finding.hpp"

namespace atomstress {

const char* to_string(FindingKind k) {
  switch (k) {
    case FindingKind::None: return "none";
    case FindingKind::InvalidTrial: return "invalid_trial";
    case FindingKind::BackendError: return "backend_error";
    case FindingKind::Hang: return "hang";
    case FindingKind::Crash: return "crash";
    case FindingKind::Unexplained: return "unexplained";
    case FindingKind::ScopeViolation: return "scope_violation";
    case FindingKind::WrapRange: return "wrap_range";
    case FindingKind::WrongOutput: return "wrong_output";
    case FindingKind::LockHeld: return "lock_held";
  }
  return "unknown";
}

std::optional<FindingKind> parse_finding_kind(std::string_view s) {
  for (int k = 0; k <= int(FindingKind::LockHeld); ++k)  // LockHeld: the last kind
    if (s == to_string(FindingKind(k))) return FindingKind(k);
  return std::nullopt;
}

}  // namespace atomstress
