// The one rule for a float sum judged without its order: init + values, each
// addition rounded in the values' own format (double, float, __half,
// __nv_bfloat16), what result every summation order may give, with an error
// bound derived from the per-step rounding (float_sum.cpp says how) and, as
// the GPU's float atomicAdd does, subnormals flushed.  The built-in sum forms
// (families/sum.cpp) and users' kernels (kernel/oracles.hpp check_sum,
// check_scatter_sums) are both judged by it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "harness/registry/value_kind.hpp"

namespace atomstress {

// Which additions made the sum.
enum class FloatAdds : uint8_t {
  // What the GPU's adds may do (the default): IEEE round to nearest, except
  // that its native float atomicAdd on global memory flushes subnormal
  // operands and results to zero (float2/float4, _block and _system too;
  // shared memory keeps them; measured on an H200: docs/design.md,
  // "Semantics measured on the GPU").  A sum of such adds, register or
  // shared-memory adds that keep subnormals, or a mix, all pass.
  AsTheGpu,
  // IEEE round to nearest with subnormals kept at every step: code that must
  // not flush (a CAS loop, a library that promises IEEE sums).
  StrictIeee,
};
// Whether the GPU's native atomic add of `kind` flushes subnormals.
bool gpu_atomic_add_flushes(VK kind);

// Whether an atomic's phi (on bit patterns) flushes a subnormal: 0 + the
// smallest subnormal.  Such an atomic's sums are judged FloatAdds::AsTheGpu.
bool phi_flushes_subnormals(uint64_t (*phi)(uint64_t old, uint64_t a, uint64_t b));

// A float bit pattern's value (exact: every kind widens exactly to double).
double float_value(VK kind, uint64_t bits);

// The bound for `additions` rounded additions whose exact partial sums stay
// within `reach`, every term a multiple of 2^lsb: ((1 + 2^-p)^additions - 1)
// * reach, or 0 when reach <= 2^(p + lsb) (no addition rounds); infinite
// when it overflows.
double sum_error_bound(VK kind, uint64_t additions, long double reach, int lsb);

// What the rule says of one result.
struct SumJudgement {
  bool ok = true;
  std::string expected;  // "NaN", "+inf", "4.25 (within 0.0039, an order-independent bound)"
  std::string cell;      // the same, short, for a window row: "4.25 ±0.0039", "4.25 exactly"
  std::string why;       // after "x[3] holds G for ...": ", which IEEE makes NaN in any order", ": expected ..., off by ..."
  long double want = 0;        // a finite sum: the exact sum (long double: a double's rounding of it is as large as the bound)
  double limit = 0;            // and the bound
  bool flushing = false;       // the bound allows flushed subnormals (FloatAdds::AsTheGpu)
};

// How the sum was made, where the caller knows more than its terms.
struct SumShape {
  FloatAdds adds = FloatAdds::AsTheGpu;
  // The longest chain of additions any term goes through (a tree's depth):
  // the bound is then also at most gamma_depth * sum|x|, whichever is less.
  std::optional<uint64_t> depth;
};

// init + values, fed one value at a time, then judged.
class FloatSum {
 public:
  FloatSum(VK kind, uint64_t init_bits, SumShape shape = {});
  void add(uint64_t value_bits);
  size_t count() const { return count_; }
  // `bound` replaces the derived one (the caller's own tolerance).  accepts:
  // the verdict alone (no text: a large scatter's many elements stay cheap).
  bool accepts(uint64_t got_bits, std::optional<double> bound = std::nullopt) const;
  SumJudgement judge(uint64_t got_bits, std::optional<double> bound = std::nullopt) const;
  // Why got_bits is not a result the rule allows, as a sentence that goes on
  // from `where` ("accumulator 3 holds 4.5"), naming the sum by `terms`
  // ("init + its 5 atomics' terms"); empty when it is allowed.
  std::string complaint(uint64_t got_bits, const std::string& where, const std::string& terms) const;

 private:
  // What the sum may be: only a NaN or one infinity, or a finite value
  // within limit of want (and an infinity where a partial sum can overflow).
  struct Allowed {
    enum { Finite, Nan, PosInf, NegInf } only = Finite;
    long double want = 0;  // (never rounded to double: 1 + 1 ulp's error would take half the bound of one addition)
    double limit = 0;
    bool up = false, down = false;  // the finite terms can overflow to +inf / -inf (5.)
    bool nan_too = false;           // NaN is a possible result as well (6.)
    bool flushing = false;          // limit includes the flushing slack (7.)
  };
  Allowed allowed(std::optional<double> bound) const;
  void take(uint64_t bits, bool is_init);
  VK kind_;
  SumShape shape_;
  size_t count_ = 0;  // values (additions)
  bool nan_ = false, pos_inf_ = false, neg_inf_ = false;
  long double init_ = 0, pos_ = 0, neg_ = 0;  // the finite values' positive and negative parts, init apart
  long double subnormal_ = 0;                 // the subnormal terms' magnitudes, init among them
  int lsb_ = INT32_MAX;                       // lowest set bit's exponent over the nonzero finite terms
};

}  // namespace atomstress
