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
#include "harness/trial/spec.hpp"

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
  HostCodeTimeout,  // a kernel entry's property: its host code did not finish within the trial's deadline (an Error)
};
const char* to_string(FindingKind k);
std::optional<FindingKind> parse_finding_kind(std::string_view s);

// What kind of bug a failure is, in the user's terms (docs/diagnosing.md).  A finding's kind says what the oracle saw; its class says
// what that means, decided once the failing case has been replayed alone
// (harness/pipeline/diagnose.hpp).
enum class FailureClass : uint8_t {
  None,         // a pass, or not a failure of the code under test
  Semantics,    // wrong even alone: one thread, in program order
  ReturnValue,  // memory right, a returned old value wrong
  Atomicity,    // right alone, wrong concurrently (a lost update, a torn read-modify-write)
  Neighbour,    // bytes outside the target changed
  Scope,        // a narrower scope than the sharing needs
  MemoryOrder,  // needs the weak-memory stress or a missing fence to show
  Bounds,       // a write outside the buffer
  Hang,         // a loop that does not end
  Crash,        // a fault
};
const char* to_string(FailureClass c);
const char* describe(FailureClass c);  // one line: what the class means
std::optional<FailureClass> parse_failure_class(std::string_view s);

struct Finding {
  FindingKind kind = FindingKind::None;
  int64_t address = -1;          // element, accumulator, bin or lock; -1: none
  std::vector<int64_t> ops;      // the operations (elements) involved, the one named first
  VK value_kind = VK::U64;
  std::optional<uint64_t> expected, observed;  // value bits, where the oracle has them
  std::string explanation;       // one or two sentences
  FailureClass cls = FailureClass::None;
  // The failing case replayed alone, for a sequential failure: the op that
  // went wrong in operation terms ("max(old=+0, a=-0): the spec stores +0
  // and returns +0; stored -0").
  std::vector<std::string> trace;
  // Which semantics the code implements instead (semantics failures):
  // "matches: ties keep the operand; differs from cas.max.f32 on signed zero only".
  std::string inference;
  // The other specs (check/inference.hpp) under which the evidence holds:
  // every op of a replay alone, or some order of a concurrent history.  A
  // diagnosis takes a concurrent history's spec for the code's own only
  // where the ops alone agree with it too.
  std::vector<std::string> explaining_specs;
  // The ops the explanation names, with their operands:
  // "op #3 (block 0, thread 3): address 0, a=-3, returned 5".
  std::vector<std::string> operands;

  bool ok() const { return kind == FindingKind::None; }
  int64_t first_op() const { return ops.empty() ? -1 : ops.front(); }
};

// A second, distinct failure of the same entry that a diagnosis met: the
// failing case's own ops pass alone (its failure needs concurrency), but a
// longer replay alone fails another way (a NaN rule, say).  Reported apart,
// shrunk and with its own token, never merged into the first's class.
struct DistinctFailure {
  TrialSpec spec;
  std::string why;
  FailureClass cls = FailureClass::None;
  std::vector<std::string> trace;
  std::string inference;
};

// A trace line about what was seen other than by the replay alone (the
// history held against other specs, a kernel's reruns across geometries)
// starts with this; the others tell the replay alone.
inline constexpr std::string_view kSeenMark = "seen: ";

// A failure's class with what the replay alone showed (pipeline/diagnose.hpp).
struct Diagnosis {
  FailureClass cls = FailureClass::None;
  std::vector<std::string> trace;  // Finding::trace
  std::string inference;           // Finding::inference
  std::optional<DistinctFailure> distinct;
};
// The causes the checker guesses from a concurrent history, said at the end
// of its explanation (check/checker.cpp).
inline constexpr std::string_view kLostUpdateCause = "a later update was lost or read a stale value";
inline constexpr std::string_view kUnreadWriteCause = "an update was lost";
inline constexpr std::string_view kDoubleReadCause = "two operations read the same value, so an update was lost";

// Such a guess is wrong once the replay alone shows an op itself wrong (the
// class semantics or return-value): the explanation then says so instead,
// the op and its operands being in the diagnosis' trace.  Other classes
// leave it as it is.
void settle_cause(FailureClass cls, std::string& explanation);

inline void apply(const Diagnosis& d, Finding& f) {
  f.cls = d.cls;
  if (!d.trace.empty()) f.trace = d.trace;
  if (!d.inference.empty()) f.inference = d.inference;
  settle_cause(d.cls, f.explanation);
}

// The class a finding's kind implies before any replay (None where only a
// replay can tell: a wrong value).
FailureClass class_of_kind(FindingKind k);

inline Finding make_finding(FindingKind kind, std::string explanation, int64_t op = -1, int64_t address = -1) {
  Finding f;
  f.kind = kind;
  f.cls = class_of_kind(kind);
  f.explanation = std::move(explanation);
  f.address = address;
  if (op >= 0) f.ops.push_back(op);
  return f;
}

}  // namespace atomstress
