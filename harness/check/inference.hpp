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

std::string infer_semantics(const Entry& e, const std::vector<ReplayedOp>& ops);

}  // namespace atomstress
