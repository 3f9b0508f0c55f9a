// A void update's history (Entry::returns_nothing): its function returns
// nothing, so no returned value orders its updates.  It is judged by the
// memory it leaves, address by address, by the rule its operation allows
// without an order (spec.cuh, final_memory_checkable_without_order): the
// integer ops fold to one value, a float add is judged by the one float-sum
// rule, an exch leaves one of its operands; an address no op targets keeps
// its initial value.  (Alone, the sequential replay checks every state the
// updates leave: check/sequential.hpp.)
#pragma once

#include "harness/check/finding.hpp"

namespace atomstress {

struct Workload;
struct History;

// `shared`: the trial's words are in shared memory (the spec's phi there).
Finding judge_void_updates(const Workload& w, const History& h, bool shared);

}  // namespace atomstress
