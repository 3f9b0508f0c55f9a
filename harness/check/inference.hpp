// Which semantics does the code implement?  A sequential replay's ops (what
// each one found, its operands, what it stored and returned) held against
// every built-in spec of the same operation and type and against the common
// variants people write (ties keep the operand, a NaN wins, flushed
// subnormals, saturation, returns the new value, ...):
//   "matches: ties keep the operand; differs from cas.max.f32 on signed zero only"
#pragma once

#include <string>
#include <vector>

#include "harness/check/sequential.hpp"

namespace atomstress {

struct Entry;
struct CheckInput;

std::string infer_semantics(const Entry& e, const std::vector<ReplayedOp>& ops);

// A concurrent history that no order explains under the entry's spec, held
// against the same other specs: the name of the first under which some
// order explains it ("ties keep the operand, a NaN wins"), else "".  Where
// one does, the failure is that spec difference, not a lost update.
std::string spec_explaining_history(const CheckInput& in);

}  // namespace atomstress
