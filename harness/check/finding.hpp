// What an oracle found, as data: the kind of fault, where, which operations,
// the expected and observed values, and (apart from the verdict) the
// explanation in words.  Printers render it; nothing parses the prose.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/registry/value_kind.hpp"

namespace atomstress {

enum class FindingKind : uint8_t {
  None,             // explained: the history passes
  InvalidTrial,     // the spec cannot run (bad input)
  BackendError,     // the device or host backend failed
  Hang,             // a bounded loop gave up (retry budget or watchdog)
  Crash,            // the trial's kernel faulted
  Unexplained,      // no sequential order explains the returned values and final memory
  ScopeViolation,   // a block-scope atomic on an address other blocks use
  WrapRange,        // an inc/dec result outside every wrap limit
  WrongOutput,      // an algorithm's output is not what the sequential oracle gives
  LockHeld,         // a lock still held after the kernel
};
const char* to_string(FindingKind k);
std::optional<FindingKind> parse_finding_kind(std::string_view s);

struct Finding {
  FindingKind kind = FindingKind::None;
  int64_t address = -1;          // element, accumulator, bin or lock; -1: none
  std::vector<int64_t> ops;      // the operations (elements) involved, the one named first
  VK value_kind = VK::U64;
  std::optional<uint64_t> expected, observed;  // value bits, where the oracle has them
  std::string explanation;       // one or two sentences

  bool ok() const { return kind == FindingKind::None; }
  int64_t first_op() const { return ops.empty() ? -1 : ops.front(); }
};

inline Finding make_finding(FindingKind kind, std::string explanation, int64_t op = -1, int64_t address = -1) {
  Finding f;
  f.kind = kind;
  f.explanation = std::move(explanation);
  f.address = address;
  if (op >= 0) f.ops.push_back(op);
  return f;
}

}  // namespace atomstress
