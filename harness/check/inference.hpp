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

// The other specs, in that order, under which every op of a sequential
// replay does what it did.
std::vector<std::string> specs_explaining_ops(const Entry& e, const std::vector<ReplayedOp>& ops);

// A concurrent history that no order explains under the entry's spec, held
// against the same other specs: the names of those under which some order
// explains it ("ties keep the operand, a NaN wins"), in that order.  One
// history can fit another spec by the chance of its interleaving (a stale
// returned value that happens to fit a different order); the diagnosis
// holds the ops alone against the same names before it believes one.
std::vector<std::string> specs_explaining_history(const CheckInput& in);

}  // namespace atomstress
