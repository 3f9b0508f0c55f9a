// The checker: is a history explained by some sequential order?
//
// Per address, every operation is an edge old -> phi(old, a, b).  The
// returned values are explained by a sequential order iff that multigraph has
// an Eulerian trail from the initial value to the final value: every state's
// out-degree minus in-degree is [state == initial] - [state == final], and
// every edge is connected to the initial state.  That is exact for any
// fetch-and-phi, including float adds whose rounding depends on the order,
// and it needs no timestamps.  Linear time apart from one radix sort.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "harness/registry/registry.hpp"

namespace atomstress {

struct CheckInput {
  const Entry* impl = nullptr;
  std::span<const uint32_t> addr;    // per op: element index
  std::span<const uint64_t> a, b;    // per op: operands
  std::span<const uint64_t> old;     // per op: returned value
  std::span<const uint64_t> init;    // per element
  std::span<const uint64_t> final_mem;  // per element
  bool shared = false;                // shared memory: the spec's shared-memory phi
  uint32_t threads = 0;              // for messages: op o belongs to thread o % threads (0: unknown)
};

struct CheckResult {
  bool ok = true;
  std::string explanation;  // one or two sentences on failure
  int64_t bad_op = -1;      // an operation the explanation names, if any
  int64_t bad_addr = -1;    // the element whose history is not explainable
  uint64_t ops_checked = 0;
};

CheckResult check_history(const CheckInput& in);

// check_history is the fast path's verdict where it accepts, else the
// message-producing checker's.  For tests, each alone: the fast path says
// false also for a shape it does not cover (states wider than 63 bits with
// the addresses, a NaN canonicalisation other than the float kinds').
bool check_history_fast(const CheckInput& in);
CheckResult check_history_reference(const CheckInput& in);

// The exact fast path exists twice: portable x86-64 code and x86-64-v3 code
// (AVX2, BMI2: docs/performance.md), chosen by the CPU at run
// time.  Tests pin the portable copy to check both.
bool checker_fast_path_v3();
void checker_pin_portable(bool pin);

}  // namespace atomstress
