// A single atomic's history from the sequential replay (RunOptions::
// sequential: its ops one at a time, in ascending op order, on one thread),
// held op by op against the spec.  Alone, every op's effect is observable:
// what it returned is its own result, and what it stored is what the next op
// on its address returned (or the final memory).  So a sequential failure is
// told as the op that went wrong, in operation terms, and the whole replay
// says which other semantics the code implements (inference.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/check/finding.hpp"

namespace atomstress {

struct Entry;
struct Workload;
struct Setup;
struct History;

// One op of the replay, as observed.
struct ReplayedOp {
  uint64_t op = 0, address = 0;
  uint64_t old = 0, a = 0, b = 0;  // the value it found (the model's), its operands
  uint64_t stored = 0, returned = 0;
};

struct SequentialReplay {
  std::vector<ReplayedOp> ops;  // in the replay's order, up to the first op whose input the model lost
  Finding finding;              // kind None when every op did what the spec says
};

// `h` must come from a sequential run of `w` (single atomics).
SequentialReplay judge_sequential(const Workload& w, const Setup& s, const History& h);

// The replay as a table (repro --trace): a header, then one row per op (the
// first `rows`): op, block, thread, address, operands, what it returned and
// stored, what the spec returns and stores, and a mark where they differ.
std::vector<std::string> sequential_table(const Workload& w, const SequentialReplay& r, size_t rows);

// An op's operands in the entry's operation's terms: "a=3", "compare=1, val=2", "limit=7".
std::string operands_text(const Entry& e, uint64_t a, uint64_t b);
// "max(old=+0, a=-0)", in the entry's operation's terms.
std::string op_call_text(const Entry& e, uint64_t old, uint64_t a, uint64_t b);

}  // namespace atomstress
