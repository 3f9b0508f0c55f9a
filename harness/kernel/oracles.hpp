// The oracles of a kernel case, on host copies of its buffers as bit
// patterns of one value kind.  Each returns nothing when the buffer agrees,
// else a failure in the buffer's own terms: its name, the index, what was
// expected and what it holds.  KernelCase's expect_* (kernel_case.hpp) read
// the device buffers and call these; they are tested on the CPU.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/check/finding.hpp"
#include "harness/check/float_sum.hpp"
#include "harness/registry/value_kind.hpp"

namespace atomstress::kernel {

// One row of an oracle's window onto a difference (repro --trace): where
// ("bins[3]", "value 7"), what the oracle expected there and what it got.
struct DiffRow {
  std::string at, expected, got;
  bool differs = false;
};

struct KernelFailure {
  std::string buffer;          // the buffer it names ("" for a free-form failure)
  int64_t index = -1;          // the element, or -1
  std::string expected, got;   // formatted values, where the oracle has them
  std::string message;         // the explanation, one or two sentences
  FailureClass cls = FailureClass::None;  // set only where the oracle knows (bounds)
  // Rows around the first difference (at most kWindowRows), as data: the
  // explanation's table under repro --trace.
  std::vector<DiffRow> window;
};
inline constexpr size_t kWindowRows = 9;

// Element-wise equality.  Bitwise, except that every NaN equals every NaN
// (a kernel need not keep payloads); +0 and -0 differ.
std::optional<KernelFailure> check_equal(std::string_view buffer, VK kind, std::span<const uint64_t> got,
                                         std::span<const uint64_t> want);
// Equal as multisets (append, compaction: order-free), lengths included.
// Names the first value whose counts differ, with both counts.
std::optional<KernelFailure> check_permutation(std::string_view buffer, VK kind, std::span<const uint64_t> got,
                                               std::span<const uint64_t> want);
// A histogram: bins[b] == init[b] + the number of keys equal to b (wrapping
// at the bins' width); a key outside the bins is the kernel's input error.
std::optional<KernelFailure> check_counts(std::string_view buffer, VK bin_kind, std::span<const uint64_t> bins,
                                          std::span<const uint64_t> keys, std::span<const uint64_t> init);
using atomstress::FloatAdds;
using atomstress::FloatSum;
using atomstress::SumJudgement;
using atomstress::sum_error_bound;

// A float reduction: `got` (one value) against init + sum(values), by the
// one float-sum rule (check/float_sum.hpp): within an order-independent
// bound (per-step rounding in the kind's own precision, p = 11 for __half, 8
// for bfloat16, 24, 53; zero when every partial sum is representable) or
// `bound` when given; with FloatAdds::AsTheGpu (the default) also the
// flushing of subnormals that the GPU's float atomicAdd does.  NaN, inf and
// -inf as IEEE says whatever the order: a NaN or +inf + -inf gives NaN, else
// an infinity wins; an infinity from overflow only where some order's
// partial sum can reach the format's overflow threshold.
std::optional<KernelFailure> check_sum(std::string_view buffer, VK kind, uint64_t got, uint64_t init,
                                       std::span<const uint64_t> values, std::optional<double> bound = std::nullopt,
                                       FloatAdds adds = FloatAdds::AsTheGpu);

// A scatter-add's inputs: keys[i] is the element values[i] goes to.
struct Scattered {
  std::string_view values_name;  // "src": named in the explanation
  VK key_kind = VK::U64;
  std::span<const uint64_t> keys, values;
};
// A scatter-add (index_add, scatter_add, a float histogram): each element
// got[j] is init[j] plus the sum of the values scattered to it, each
// element's sum judged as check_sum judges one (its own bound, from its own
// contributors).  Names the first wrong element, its contributors' count
// and the first of them, what was expected and what it holds; a key
// outside the elements is the case's own input error.
std::optional<KernelFailure> check_scatter_sums(std::string_view buffer, VK kind, std::span<const uint64_t> got,
                                                std::span<const uint64_t> init, const Scattered& in,
                                                std::optional<double> bound = std::nullopt,
                                                FloatAdds adds = FloatAdds::AsTheGpu);
// A map's slots (or a lookup's answers): every key seen other than
// `empty_key` was inserted, its value one inserted with that key (never a
// sentinel); with `each_once`, every inserted key is seen exactly once.
std::optional<KernelFailure> check_map(std::string_view buffer, VK kind, std::span<const uint64_t> seen_keys,
                                       std::span<const uint64_t> seen_values, std::span<const uint64_t> inserted_keys,
                                       std::span<const uint64_t> inserted_values, std::optional<uint64_t> empty_key,
                                       bool each_once);

// The failure's window: its own rows, else the one row its index, expected
// and got make (a sum, a map's slot); empty for a free-form failure.
std::vector<DiffRow> window_of(const KernelFailure& f);

// The failure as a Finding (kind WrongOutput; class as the oracle set it).
Finding to_finding(const KernelFailure& f);

}  // namespace atomstress::kernel
