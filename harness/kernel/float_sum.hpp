// The order-independent judgement of a float sum (init + values, each
// addition rounded in the values' own format: double, float, __half,
// __nv_bfloat16): what result every summation order may give, with an
// error bound derived from the per-step rounding (float_sum.cpp says how).
// The sums' oracles (oracles.hpp check_sum, check_scatter_sums) word it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "harness/registry/value_kind.hpp"

namespace atomstress::kernel {

// A float bit pattern's value (exact: every kind widens exactly to double).
double float_value(VK kind, uint64_t bits);

// See oracles.hpp: the bound for `additions` rounded additions whose exact
// partial sums stay within `reach`, every term a multiple of 2^lsb.
double sum_error_bound(VK kind, uint64_t additions, long double reach, int lsb);

// What the oracle says of one result.
struct SumJudgement {
  bool ok = true;
  std::string expected;  // "NaN", "+inf", "4.25 (within 0.0039, an order-independent bound)"
  std::string cell;      // the same, short, for a window row: "4.25 ±0.0039", "4.25 exactly"
  std::string why;       // after "x[3] holds G for ...": ", which IEEE makes NaN in any order", ": expected ..., off by ..."
  double want = 0, limit = 0;  // a finite sum: the exact sum (rounded to double) and the bound
};

// init + values, fed one value at a time, then judged.
class FloatSum {
 public:
  FloatSum(VK kind, uint64_t init_bits);
  void add(uint64_t value_bits);
  size_t count() const { return count_; }
  // `bound` replaces the derived one (the caller's own tolerance).  accepts:
  // the verdict alone (no text: a large scatter's many elements stay cheap).
  bool accepts(uint64_t got_bits, std::optional<double> bound = std::nullopt) const;
  SumJudgement judge(uint64_t got_bits, std::optional<double> bound = std::nullopt) const;

 private:
  // What the sum may be: only a NaN or one infinity, or a finite value
  // within limit of want (and an infinity where a partial sum can overflow).
  struct Allowed {
    enum { Finite, Nan, PosInf, NegInf } only = Finite;
    double want = 0, limit = 0;
    bool up = false, down = false;  // the finite terms can overflow to +inf / -inf (5.)
    bool nan_too = false;           // NaN is a possible result as well (6.)
  };
  Allowed allowed(std::optional<double> bound) const;
  void take(uint64_t bits, bool is_init);
  VK kind_;
  size_t count_ = 0;  // values (additions)
  bool nan_ = false, pos_inf_ = false, neg_inf_ = false;
  long double init_ = 0, pos_ = 0, neg_ = 0;  // the finite values' positive and negative parts, init apart
  int lsb_ = INT32_MAX;                       // lowest set bit's exponent over the nonzero finite terms
};

}  // namespace atomstress::kernel
