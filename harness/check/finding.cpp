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
    case FindingKind::HostCodeTimeout: return "host_code_timeout";
  }
  return "unknown";
}

std::optional<FindingKind> parse_finding_kind(std::string_view s) {
  for (int k = 0; k <= int(FindingKind::HostCodeTimeout); ++k)  // HostCodeTimeout: the last kind
    if (s == to_string(FindingKind(k))) return FindingKind(k);
  return std::nullopt;
}

const char* to_string(FailureClass c) {
  switch (c) {
    case FailureClass::None: return "none";
    case FailureClass::Semantics: return "semantics";
    case FailureClass::ReturnValue: return "return-value";
    case FailureClass::Atomicity: return "atomicity";
    case FailureClass::Neighbour: return "neighbour";
    case FailureClass::Scope: return "scope";
    case FailureClass::MemoryOrder: return "memory-order";
    case FailureClass::Bounds: return "bounds";
    case FailureClass::Hang: return "hang";
    case FailureClass::Crash: return "crash";
  }
  return "unknown";
}

const char* describe(FailureClass c) {
  switch (c) {
    case FailureClass::None: return "";
    case FailureClass::Semantics: return "wrong even alone: one thread, in program order; or the same wrong output every run, not a race";
    case FailureClass::ReturnValue: return "memory right, a returned old value wrong";
    case FailureClass::Atomicity: return "right alone, wrong concurrently: a lost update or a torn read-modify-write";
    case FailureClass::Neighbour: return "bytes outside the target changed";
    case FailureClass::Scope: return "an atomic's scope is narrower than the threads that share its address";
    case FailureClass::MemoryOrder: return "shows only under weak-memory stress or for lack of a fence";
    case FailureClass::Bounds: return "a write outside its buffer";
    case FailureClass::Hang: return "a loop that does not end";
    case FailureClass::Crash: return "the code under test faulted";
  }
  return "";
}

std::optional<FailureClass> parse_failure_class(std::string_view s) {
  for (int c = 0; c <= int(FailureClass::Crash); ++c)  // Crash: the last class
    if (s == to_string(FailureClass(c))) return FailureClass(c);
  return std::nullopt;
}

void settle_cause(FailureClass cls, std::string& explanation) {
  const std::string_view instead =
      cls == FailureClass::Semantics     ? "alone, in program order, an op already stores what its spec does not"
      : cls == FailureClass::ReturnValue ? "alone, in program order, an op already returns what its spec does not"
                                         : "";
  if (instead.empty()) return;
  // The longest first: one cause is the end of another.
  for (const std::string_view cause : {kDoubleReadCause, kLostUpdateCause, kUnreadWriteCause}) {
    const std::string said = ": " + std::string(cause);
    const auto at = explanation.find(said);
    if (at == std::string::npos) continue;
    explanation.replace(at + 2, cause.size(), instead);
    return;
  }
}

FailureClass class_of_kind(FindingKind k) {
  switch (k) {
    case FindingKind::Hang: return FailureClass::Hang;
    case FindingKind::Crash: return FailureClass::Crash;
    case FindingKind::ScopeViolation: return FailureClass::Scope;
    default: return FailureClass::None;
  }
}

}  // namespace atomstress
