// The bound, derived.  A kernel adds init + v_1 + ... + v_m in an order of
// its threads' making: s_0 = init, s_k = fl(s_{k-1} + v_{pi(k)}), each
// addition rounded to nearest in the format's p significant bits (p = 11
// for __half, 8 for bfloat16, 24 for float, 53 for double); u = 2^-p.
//
//  1. One addition: fl(a + b) = (a + b)(1 + d) with |d| <= u.  This holds
//     for subnormal results too: a and b are multiples of the smallest
//     subnormal, so a sum that small is exact (addition has no absolute
//     underflow error).  A wider intermediate (PyTorch's at::Half adds in
//     float, then rounds) gives the same result: float's 24 bits are at
//     least 2 * 11 + 2, so the double rounding is innocuous (Figueroa 1995),
//     and the bound holds with the half's u.
//  2. Let S_k be the exact partial sum of the same order and e_k = s_k - S_k.
//     Then e_k = e_{k-1} + d_k (S_k + e_{k-1}), so
//     |e_k| <= (1 + u) |e_{k-1}| + u R, where R bounds |S_k| in every order:
//     S_k is a sum of some of the terms, so R = max(the positive terms'
//     sum, |the negative terms' sum|), init counted as a term.  (Any
//     summation tree too, as a block's tree reduction adds: a node's error
//     is at most (1 + u)(|e_left| + |e_right|) + u R, and
//     (1 + u)((a - 1) + (b - 1)) + u <= (1 + u)ab - 1 for a, b >= 1, so the
//     bound of 3. holds for any tree of m additions.)
//  3. Unrolled over the m additions: |e_m| <= ((1 + u)^m - 1) R.  About
//     m u R while m u is small; for a half sum of thousands of values it
//     exceeds R, and past (1 + u)^m's overflow it bounds nothing: a long
//     half sum may drift anywhere (stagnation: 2048 + 1 rounds to 2048), and
//     only a NaN or an unreachable infinity is then wrong.
//  4. Exact when every partial sum is representable: every term is a
//     multiple of 2^q (q the lowest set bit over the terms), so is every
//     S_k, and a multiple of 2^q of magnitude at most 2^(p+q) has at most p
//     significant bits.  So when R <= 2^(p+q) no addition rounds (while none
//     overflows), and a finite result is the exact sum in every order.
//  5. Overflow: an addition gives an infinity when its exact sum reaches the
//     threshold largest + ulp(largest)/2; after that, finite values keep it.
//     The largest partial sum any order (or tree) reaches is the positive
//     terms' sum (plus the error so far), so +inf is a possible result only
//     if that sum + the bound reaches the threshold; -inf likewise.
//  6. NaN: from a NaN term, or an infinity meeting the opposite one.  With
//     +inf and -inf terms every order gives NaN.  With one infinite term,
//     the other side's finite terms may overflow first (two half -65504s
//     make -inf before the +inf term comes): NaN, else that infinity.  With
//     no infinite term, a summation tree may overflow one subtree up and
//     another down: NaN when both overflows are possible.
//  7. Flushing (FloatAdds::AsTheGpu, for a kind whose native atomic add
//     flushes: gpu_atomic_add_flushes).  Such an add replaces a subnormal
//     operand or result by zero.  Every term and partial sum is a multiple of
//     2^q, so when q >= emin (the smallest normal's exponent) nothing is ever
//     subnormal and 1. to 6. hold unchanged.  Otherwise each term is flushed
//     at most once (losing its magnitude: F_t, the subnormal terms' sum, init
//     among them) and so is each of the m results (consumed as the next
//     operand or flushed as it is made, never both: less than the smallest
//     normal N each).  With those losses the recurrence of 2. becomes
//     |e_k| <= (1 + u) |e_{k-1}| + u R + (1 + u) f_k, so the bound grows by
//     (F_t + m N) (1 + u)^m, and 4.'s exactness holds only up to that slack.
//     A kernel that adds in registers (subnormals kept) and then with a
//     flushing atomicAdd is covered: every step is one or the other.
//  8. A summation tree of depth d (a built-in form: a thread's chain, a
//     block's tree, then its atomics) also has |e| <= gamma_d sum|x| with
//     gamma_d = (1 + u)^d - 1 (Higham, Accuracy and Stability, 4.2): where
//     the caller knows d, the smaller of the two bounds applies.
// The oracle accepts a finite result within that bound of the exact sum
// (computed in long double: its 64 bits make its own rounding negligible
// beside u, and a sum that is exact in the format is exact in it), and an
// infinity only as in 5.
#include "harness/check/float_sum.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "harness/prim/half_ops.cuh"
#include "harness/registry/bits.hpp"

namespace atomstress {

namespace {

struct Format {
  int precision, emax;
  int emin() const { return 1 - emax; }  // the smallest normal is 2^emin
};
Format format_of(VK kind) {
  switch (kind) {
    case VK::F16: return {11, 15};
    case VK::BF16: return {8, 127};
    case VK::F32: return {24, 127};
    default: return {53, 1023};
  }
}
// largest + ulp(largest) / 2 = 2^(emax+1) - 2^(emax-p): an exact sum this
// large rounds to infinity.
long double overflow_threshold(VK kind) {
  const Format f = format_of(kind);
  return std::ldexp(1.0L, f.emax + 1) - std::ldexp(1.0L, f.emax - f.precision);
}
// The exponent of the lowest set bit of a finite nonzero double.
int lowest_set_bit(double d) {
  int e = 0;
  const double m = std::frexp(std::fabs(d), &e);  // |d| = m 2^e, m in [0.5, 1)
  const uint64_t significand = uint64_t(std::ldexp(m, 53));
  return e - 53 + std::countr_zero(significand);
}

std::string with_digits(double v) { return fmt::format("{:.9g}", v); }

// (1 + u)^m - 1: infinite past overflow.
double growth(const Format& f, uint64_t additions) {
  return std::expm1(double(additions) * std::log1p(std::ldexp(1.0, -f.precision)));
}

}  // namespace

double float_value(VK kind, uint64_t bits) {
  switch (kind) {
    case VK::F16: return prim::to_double(from_bits<__half>(bits));
    case VK::BF16: return prim::to_double(from_bits<__nv_bfloat16>(bits));
    case VK::F32: return double(from_bits<float>(bits));
    default: return from_bits<double>(bits);
  }
}

bool gpu_atomic_add_flushes(VK kind) {
  // Measured on an H200 (docs/design.md): f32's native add on global memory
  // (scalar, float2/float4, _block, _system) flushes; in shared memory it
  // keeps them, as f64, f16, bf16 and their vector adds do everywhere.
  return kind == VK::F32;
}

bool phi_flushes_subnormals(uint64_t (*phi)(uint64_t, uint64_t, uint64_t)) { return phi(0, 1, 0) == 0; }

double sum_error_bound(VK kind, uint64_t additions, long double reach, int lsb) {
  const Format f = format_of(kind);
  if (reach == 0) return 0;
  if (lsb != INT32_MAX && reach <= std::ldexp(1.0L, f.precision + lsb)) return 0;  // no addition rounds (4.)
  return double(growth(f, additions) * reach);  // infinite past overflow: no bound (3.)
}

FloatSum::FloatSum(VK kind, uint64_t init_bits, SumShape shape) : kind_(kind), shape_(shape) { take(init_bits, true); }

void FloatSum::add(uint64_t value_bits) {
  ++count_;
  take(value_bits, false);
}

void FloatSum::take(uint64_t bits, bool is_init) {
  const double v = float_value(kind_, bits);
  if (std::isnan(v)) nan_ = true;
  else if (std::isinf(v)) (v > 0 ? pos_inf_ : neg_inf_) = true;
  else {
    if (v != 0) lsb_ = std::min(lsb_, lowest_set_bit(v));
    if (v != 0 && std::fabs(v) < std::ldexp(1.0, format_of(kind_).emin())) subnormal_ += std::fabs(v);
    if (is_init) init_ = v;
    else (v > 0 ? pos_ : neg_) += v;
  }
}

FloatSum::Allowed FloatSum::allowed(std::optional<double> bound) const {
  Allowed a;
  // The positive and negative finite terms' sums, init among them: every
  // partial sum of the finite terms (2.) lies between them.
  const long double pos = pos_ + std::max(init_, 0.0L), neg = neg_ + std::min(init_, 0.0L);
  if (bound) {
    a.limit = *bound;
  } else {
    const Format f = format_of(kind_);
    a.limit = sum_error_bound(kind_, count_, std::max(pos, -neg), lsb_);
    if (shape_.depth && a.limit > 0)  // (8.)
      a.limit = std::min(a.limit, double(growth(f, *shape_.depth) * (pos - neg)));
    // (7.) Bits below the smallest normal, and adds that may flush them.
    if (shape_.adds == FloatAdds::AsTheGpu && gpu_atomic_add_flushes(kind_) && lsb_ < f.emin()) {
      const long double slack = subnormal_ + count_ * std::ldexp(1.0L, f.emin());
      a.limit += double(slack * (1 + growth(f, count_)));
      a.flushing = true;
    }
  }
  a.want = init_ + pos_ + neg_;
  // The long double sum's own rounding (64 bits, one rounding a term at
  // most), where the bound allows any rounding at all: beside u it is
  // negligible, but a one-addition bound has no slack where the exact sum
  // lies just above a power of two.
  if (a.limit > 0 && std::isfinite(a.limit))
    a.limit += double((count_ + 1) * std::ldexp(std::max(pos, -neg), -63));
  const long double threshold = overflow_threshold(kind_);
  a.up = pos + a.limit >= threshold;  // (5.)
  a.down = neg - a.limit <= -threshold;
  if (nan_ || (pos_inf_ && neg_inf_)) a.only = Allowed::Nan;
  else if (pos_inf_) a.only = Allowed::PosInf, a.nan_too = a.down;  // (6.)
  else if (neg_inf_) a.only = Allowed::NegInf, a.nan_too = a.up;
  else a.nan_too = a.up && a.down;
  return a;
}

bool FloatSum::accepts(uint64_t got_bits, std::optional<double> bound) const {
  const double got = float_value(kind_, got_bits);
  const Allowed a = allowed(bound);
  if (std::isnan(got)) return a.only == Allowed::Nan || a.nan_too;
  switch (a.only) {
    case Allowed::Nan: return false;
    case Allowed::PosInf: return got == INFINITY;
    case Allowed::NegInf: return got == -INFINITY;
    case Allowed::Finite: break;
  }
  if (std::isinf(got)) return got > 0 ? a.up : a.down;
  return !std::isnan(got) && std::fabs(static_cast<long double>(got) - a.want) <= a.limit;
}

SumJudgement FloatSum::judge(uint64_t got_bits, std::optional<double> bound) const {
  const double got = float_value(kind_, got_bits);
  const Allowed a = allowed(bound);
  SumJudgement j;
  j.ok = accepts(got_bits, bound);
  if (a.only == Allowed::Nan) {
    j.expected = j.cell = "NaN";
    j.why = ", which IEEE makes NaN in any order";
    return j;
  }
  if (a.only != Allowed::Finite) {
    const bool pos = a.only == Allowed::PosInf;
    j.expected = j.cell = std::string(pos ? "+inf" : "-inf") + (a.nan_too ? " or NaN" : "");
    j.why = a.nan_too ? std::string(", which hold an infinity (or NaN, where the ") + (pos ? "negative" : "positive") +
                            " terms overflow to " + (pos ? "-inf" : "+inf") + " first)"
                      : ", which hold an infinity";
    return j;
  }
  j.want = a.want;
  j.limit = a.limit;
  j.flushing = a.flushing;
  const char* flushing = a.flushing ? ", subnormals flushed as the GPU's float atomicAdd flushes them" : "";
  const std::string infinities =
      a.nan_too ? " or an infinity or NaN" : a.up ? " or +inf" : a.down ? " or -inf" : "";
  if (std::isinf(a.limit)) {
    j.expected = fmt::format("any finite value{} ({} roundings bound nothing)", infinities, count_);
    j.cell = "any finite";
  } else if (a.limit == 0 && !bound) {
    j.expected = with_digits(a.want) + infinities + " (exact: no partial sum rounds)";
    j.cell = fmt::format("{:.6g} exactly", a.want);
  } else {
    j.expected = fmt::format("{}{} (within {:.3g}, an order-independent bound{})", with_digits(a.want), infinities,
                             a.limit, flushing);
    j.cell = fmt::format("{:.6g} ±{:.2g}", a.want, a.limit);
  }
  j.why = ": expected " + j.expected + ", off by " +
          (std::isnan(got) ? std::string("NaN") : with_digits(double(static_cast<long double>(got) - a.want)));
  return j;
}

std::string FloatSum::complaint(uint64_t got_bits, const std::string& where, const std::string& terms) const {
  if (accepts(got_bits)) return {};
  const SumJudgement judged = judge(got_bits);
  if (judged.limit == 0 && !judged.flushing && std::isfinite(judged.want))
    return where + fmt::format(" but every partial sum is exact (no addition rounds, in any order): it must be {}",
                               judged.expected);
  if (std::isfinite(judged.limit) && judged.limit > 0)
    return where + fmt::format(" but the exact sum is {:.21g}: error {:.3g} exceeds the bound {:.3g} ({})", judged.want,
                               double(std::fabs(static_cast<long double>(float_value(kind_, got_bits)) - judged.want)),
                               judged.limit, judged.expected);
  return where + " for " + terms + judged.why;
}

}  // namespace atomstress
