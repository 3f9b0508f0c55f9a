// KernelCase's 16-bit element types on the CPU (issue #30): their value
// kinds; the draws of __half, bfloat16, int16 and uint16 values (small,
// full range, specials); the oracles' words for them; the float sum's
// order-independent bound against sums computed in many orders with half
// rounding (accepted), and results off by more (rejected); the scatter-add
// oracle's explanation; the half_scatter_add example's host pieces: the
// word arithmetic, and where each twin's CAS reaches (the buggy one's bytes
// outside the tensor are written back unchanged: the canaries stay); and a
// twin only a sanitizer sees, as list, check and selftest tell it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <random>
#include <set>

#include "examples/kernels/half_word.cuh"
#include "fuzz/selftest.hpp"
#include "harness/kernel/draws.hpp"
#include "harness/check/float_sum.hpp"
#include "harness/kernel/guarded.hpp"
#include "harness/kernel/kernel_case.hpp"
#include "harness/kernel/kernel_entry.hpp"
#include "harness/kernel/oracles.hpp"
#include "harness/prim/half_ops.cuh"
#include "harness/registry/registry.hpp"
#include "reports/text_printer.hpp"

using namespace atomstress;
using namespace atomstress::kernel;

namespace {

TrialSpec spec_with(uint64_t seed, uint32_t special_permille = 0, Dist dist = Dist::Small) {
  TrialSpec s;
  s.impl = "test.kernel.half";
  s.grid = 3;
  s.block = 64;
  s.ops_per_thread = 5;
  s.seed = seed;
  s.special_permille = special_permille;
  s.dist = dist;
  return s;
}

template <class H>
uint64_t bits_of_value(double v) {
  return prim::to_bits(prim::narrow<H>(v));
}
template <class H>
double value_of(uint64_t bits) {
  return prim::to_double(prim::from_bits<H>(bits));
}
template <class H>
constexpr VK kind_of() {
  return std::is_same_v<H, __half> ? VK::F16 : VK::BF16;
}

}  // namespace

// ------------------------------------------------------------ value kinds
TEST(KernelHalf, SixteenBitElementTypesHaveTheirOwnKinds) {
  EXPECT_EQ(value_kind_of<__half>(), VK::F16);
  EXPECT_EQ(value_kind_of<__nv_bfloat16>(), VK::BF16);
  EXPECT_EQ(value_kind_of<uint16_t>(), VK::U16);
  EXPECT_EQ(value_kind_of<int16_t>(), VK::I16);
  EXPECT_EQ(vk_of<int16_t>(), VK::I16);  // the registry's mapping agrees
  EXPECT_EQ(vk_of<uint16_t>(), VK::U16);
  EXPECT_STREQ(vk_name(VK::I16), "i16");
  EXPECT_EQ(parse_vk("i16"), VK::I16);
  EXPECT_EQ(vk_bytes(VK::I16), 2u);
  EXPECT_FALSE(vk_is_float(VK::I16));
  // Signed printing for int16, unsigned for uint16: the same bits.
  EXPECT_EQ(format_value(VK::I16, 0xffff), "-1");
  EXPECT_EQ(format_value(VK::I16, 0x8000), "-32768");
  EXPECT_EQ(format_value(VK::U16, 0xffff), "65535");
  // Bits round-trip through the 16-bit types (what a buffer's upload does).
  const __half h = prim::narrow<__half>(-2.5);
  EXPECT_EQ(to_bits(h), 0xc100u);
  EXPECT_EQ(to_bits(from_bits<__half>(0xc100u)), 0xc100u);
  EXPECT_EQ(to_bits(from_bits<int16_t>(0xffffu)), 0xffffu);
  EXPECT_EQ(from_bits<int16_t>(0xffffu), -1);
}

// ------------------------------------------------------------------ draws
template <class H>
void small_half_values_are_quarters() {
  const VK kind = kind_of<H>();
  std::set<double> seen;
  for (uint64_t b : draw_value_bits(spec_with(5), "v", 2000, kind)) {
    ASSERT_LT(b, 0x10000u);
    const double v = value_of<H>(b);
    ASSERT_TRUE(v >= -8 && v < 8) << v;
    ASSERT_EQ(v * 4, std::floor(v * 4)) << v;  // k/4: exact in the format
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 64u);  // every k/4 in [-8, 8)
}

TEST(KernelHalf, SmallHalfValuesAreQuartersInMinusEightToEight) {
  small_half_values_are_quarters<__half>();
  small_half_values_are_quarters<__nv_bfloat16>();
}

TEST(KernelHalf, FullRangeAndSpecialHalfValuesCoverEveryClass) {
  for (VK kind : {VK::F16, VK::BF16}) {
    const uint32_t exp_mask = kind == VK::F16 ? 0x7c00u : 0x7f80u, frac_mask = kind == VK::F16 ? 0x3ffu : 0x7fu;
    const uint32_t largest = kind == VK::F16 ? 0x7bffu : 0x7f7fu;
    // The special values: every class, each of its patterns.
    bool nan = false, pos_zero = false, neg_zero = false, inf = false, neg_inf = false, subnormal = false;
    bool extreme = false;
    for (uint64_t b : draw_value_bits(spec_with(9, 1000), "v", 4000, kind)) {
      ASSERT_LT(b, 0x10000u);
      const uint32_t e = uint32_t(b) & exp_mask, f = uint32_t(b) & frac_mask;
      nan |= e == exp_mask && f != 0;
      inf |= b == exp_mask;
      neg_inf |= b == (0x8000u | exp_mask);
      pos_zero |= b == 0;
      neg_zero |= b == 0x8000u;
      subnormal |= e == 0 && f != 0;
      extreme |= (uint32_t(b) & 0x7fffu) == largest;
    }
    EXPECT_TRUE(nan && inf && neg_inf && pos_zero && neg_zero && subnormal && extreme)
        << vk_name(kind) << " nan " << nan << " inf " << inf << " -inf " << neg_inf << " +0 " << pos_zero << " -0 "
        << neg_zero << " subnormal " << subnormal << " largest " << extreme;
    // Full range: any bit pattern of the width, so every exponent field
    // (NaNs and infinities in the top one, subnormals in the bottom), both signs.
    std::set<uint32_t> exponents, signs;
    for (uint64_t b : draw_value_bits(spec_with(9, 0, Dist::Full), "v", 20000, kind)) {
      ASSERT_LT(b, 0x10000u);
      exponents.insert(uint32_t(b) & exp_mask);
      signs.insert(uint32_t(b) >> 15);
    }
    EXPECT_EQ(exponents.size(), kind == VK::F16 ? 32u : 256u) << vk_name(kind);
    EXPECT_EQ(signs.size(), 2u);
  }
}

TEST(KernelHalf, SixteenBitIntegersDrawSignedAndUnsignedSmallValuesAndLimits) {
  bool negative = false;
  for (uint64_t b : draw_value_bits(spec_with(4), "v", 500, VK::I16)) {
    const int16_t v = int16_t(uint16_t(b));
    ASSERT_LT(b, 0x10000u);
    ASSERT_TRUE(v >= -8 && v <= 7) << v;
    negative |= v < 0;
  }
  EXPECT_TRUE(negative);
  for (uint64_t b : draw_value_bits(spec_with(4), "v", 500, VK::U16)) ASSERT_LE(b, 15u);
  std::set<uint64_t> limits;
  for (uint64_t b : draw_value_bits(spec_with(4, 1000), "v", 500, VK::I16)) limits.insert(b);
  EXPECT_TRUE(limits.count(0x8000u) && limits.count(0x7fffu) && limits.count(0xffffu)) << limits.size();
}

// ---------------------------------------------------------------- oracles
TEST(KernelHalf, EqualityAndPermutationSpeakTheBuffersTerms) {
  const std::vector<uint64_t> want{0x3c00, 0x4000, 0x3c00, 0x7e00}, got{0x3c00, 0x4000, 0x3e00, 0x7d01};
  const auto f = check_equal("out", VK::F16, got, want);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->index, 2);
  EXPECT_NE(f->message.find("out[2] holds 1.5 (0x3e00), the reference 1 (0x3c00) (1 of 4 elements differ)"),
            std::string::npos)
      << f->message;  // out[3]: two NaNs (payloads differ) are equal
  EXPECT_TRUE(check_equal("h", VK::F16, std::vector<uint64_t>{0x8000}, std::vector<uint64_t>{0}));  // -0 is not +0
  const auto b = check_equal("out", VK::BF16, std::vector<uint64_t>{0x3f81}, std::vector<uint64_t>{0x3f80});
  ASSERT_TRUE(b);
  EXPECT_NE(b->message.find("out[0] holds 1.008 (0x3f81), the reference 1 (0x3f80)"), std::string::npos) << b->message;
  const auto i = check_equal("delta", VK::I16, std::vector<uint64_t>{0xffff}, std::vector<uint64_t>{1});
  ASSERT_TRUE(i);
  EXPECT_NE(i->message.find("delta[0] holds -1, the reference 1"), std::string::npos) << i->message;
  // Multisets: any NaN is one value; a lost 2 named with its bits.
  EXPECT_FALSE(check_permutation("s", VK::F16, std::vector<uint64_t>{0x7d01, 0x4000}, std::vector<uint64_t>{0x4000, 0x7e00}));
  const auto p = check_permutation("s", VK::F16, std::vector<uint64_t>{0x3c00, 0x3c00}, std::vector<uint64_t>{0x3c00, 0x4000});
  ASSERT_TRUE(p);
  EXPECT_NE(p->message.find("1 (0x3c00) appears 2 times, expected 1 (duplicated or invented); first at s[0]"),
            std::string::npos)
      << p->message;
  ASSERT_EQ(p->window.size(), 2u);
  EXPECT_EQ(p->window[1].at, "count of 2 (0x4000)");
  EXPECT_EQ(p->window[1].got, "0");
}

TEST(KernelHalf, SixteenBitCountsWrapAtTheirWidth) {
  // 65535 + 2 keys wraps to 1 in a uint16 bin.
  const std::vector<uint64_t> keys{1, 1, 0}, init{0, 65535};
  EXPECT_FALSE(check_counts("bins", VK::U16, std::vector<uint64_t>{1, 1}, keys, init));
  const auto f = check_counts("bins", VK::U16, std::vector<uint64_t>{1, 0}, keys, init);
  ASSERT_TRUE(f);
  EXPECT_NE(f->message.find("bins[1] holds 0 but 2 keys are 1 (initial 65535): expected 1 (1 increment lost)"),
            std::string::npos)
      << f->message;
}

// ------------------------------------------------------ the sum's bound
namespace {

// init + values in the given order, each addition rounded to H (the GPU's
// add, reproduced on the host bit for bit: harness/prim/half_ops.cuh).
template <class H>
uint64_t sum_in_order(uint64_t init, const std::vector<uint64_t>& values, const std::vector<size_t>& order) {
  H s = prim::from_bits<H>(init);
  for (size_t i : order) s = prim::hadd(s, prim::from_bits<H>(values[i]));
  return prim::to_bits(s);
}

// The same terms added as a tree reduction does (pairwise halves), init a
// leaf wherever `at` puts it: no sequential order's result in general.
template <class H>
H tree_sum(const std::vector<H>& leaves, size_t from, size_t to) {
  if (to - from == 1) return leaves[from];
  const size_t mid = from + (to - from) / 2;
  return prim::hadd(tree_sum(leaves, from, mid), tree_sum(leaves, mid, to));
}
template <class H>
uint64_t tree_in_order(uint64_t init, const std::vector<uint64_t>& values, const std::vector<size_t>& order, size_t at) {
  std::vector<H> leaves;
  for (size_t i : order) leaves.push_back(prim::from_bits<H>(values[i]));
  leaves.insert(leaves.begin() + std::min(at, leaves.size()), prim::from_bits<H>(init));
  return prim::to_bits(tree_sum(leaves, 0, leaves.size()));
}

// A value whose sums round: sign * (1 + m) * 2^e with m of `frac` random
// bits and e in [-span, span], now and then a subnormal or a quarter.
template <class H>
uint64_t rounding_value(std::mt19937_64& rng) {
  const int frac = std::is_same_v<H, __half> ? 10 : 7, span = std::is_same_v<H, __half> ? 6 : 10;
  const uint64_t r = rng();
  if (r % 11 == 0) return bits_of_value<H>(double(int64_t(r >> 8) % 64 - 32) / 4.0);
  if (r % 13 == 0) return (r >> 20) & (std::is_same_v<H, __half> ? 0x3ffu : 0x7fu);  // a subnormal (or zero)
  const int e = int((r >> 8) % uint64_t(2 * span + 1)) - span;
  const double m = 1.0 + std::ldexp(double((r >> 32) & ((1ull << frac) - 1)), -frac);
  return bits_of_value<H>(((r & 1) ? -1.0 : 1.0) * std::ldexp(m, e));
}

// Every finite value of H, ascending (ties: one pattern per value).
template <class H>
const std::vector<std::pair<double, uint64_t>>& finite_values() {
  static const std::vector<std::pair<double, uint64_t>> all = [] {
    std::vector<std::pair<double, uint64_t>> v;
    for (uint64_t b = 0; b <= 0xffff; ++b)
      if (std::isfinite(value_of<H>(b)) && b != 0x8000) v.push_back({value_of<H>(b), b});
    std::sort(v.begin(), v.end());
    return v;
  }();
  return all;
}
// The finite value of H just beyond want + limit (above) or want - limit;
// nullopt past the format's range.
template <class H>
std::optional<uint64_t> just_outside(double want, double limit, bool above) {
  const auto& all = finite_values<H>();
  if (above) {
    const auto it = std::upper_bound(all.begin(), all.end(), std::pair<double, uint64_t>{want + limit, ~0ull});
    return it == all.end() ? std::nullopt : std::optional(it->second);
  }
  const auto it = std::lower_bound(all.begin(), all.end(), std::pair<double, uint64_t>{want - limit, 0});
  return it == all.begin() ? std::nullopt : std::optional(std::prev(it)->second);
}

template <class H>
void bound_accepts_every_order_and_rejects_more() {
  const VK kind = kind_of<H>();
  std::mt19937_64 rng(std::is_same_v<H, __half> ? 11 : 12);
  size_t inexact_cases = 0, rejected = 0;
  for (int c = 0; c < 400; ++c) {
    const size_t n = 1 + rng() % 12;
    std::vector<uint64_t> values(n);
    for (uint64_t& v : values) v = rounding_value<H>(rng);
    const uint64_t init = rounding_value<H>(rng);
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    FloatSum sum(kind, init);
    for (uint64_t v : values) sum.add(v);
    std::set<uint64_t> results;
    for (int o = 0; o < 30; ++o) {  // identity, reversed, then shuffles; the last 10 as trees
      if (o == 1) std::reverse(order.begin(), order.end());
      if (o >= 2) std::shuffle(order.begin(), order.end(), rng);
      // Sequential (the atomics' arrival order) for most, a tree for the rest.
      const uint64_t got = o < 20 ? sum_in_order<H>(init, values, order) : tree_in_order<H>(init, values, order, rng() % (n + 1));
      results.insert(got);
      ASSERT_FALSE(check_sum("total", kind, got, init, values)) << "case " << c << " order " << o << ": "
                                                                << check_sum("total", kind, got, init, values)->message;
    }
    inexact_cases += results.size() > 1;
    // A result just beyond the bound, on either side, is rejected.
    const SumJudgement j = sum.judge(*results.begin());
    for (bool above : {true, false}) {
      const auto off = just_outside<H>(j.want, j.limit, above);
      if (!off) continue;  // beyond the format: an overflow case of its own
      const auto f = check_sum("total", kind, *off, init, values);
      ASSERT_TRUE(f) << "case " << c << ": " << format_value(kind, *off) << " accepted for " << j.expected;
      ++rejected;
    }
  }
  EXPECT_GT(inexact_cases, 40u);  // the orders really gave different results
  EXPECT_GT(rejected, 700u);
}

}  // namespace

TEST(KernelHalf, TheSumBoundAcceptsEverySummationOrderAndRejectsMore) {
  bound_accepts_every_order_and_rejects_more<__half>();
  bound_accepts_every_order_and_rejects_more<__nv_bfloat16>();
}

TEST(KernelHalf, AHalfSumIsExactWhenNoPartialSumRounds) {
  const std::vector<uint64_t> values{0x3400, 0x3e00, 0xc000, 0x4380};  // 0.25, 1.5, -2, 3.75
  const uint64_t init = 0x3c00;                                         // 1: the sum is 4.5 (0x4480)
  EXPECT_FALSE(check_sum("total", VK::F16, 0x4480, init, values));
  const auto f = check_sum("total", VK::F16, 0x4481, init, values);  // one ulp off
  ASSERT_TRUE(f);
  EXPECT_NE(f->message.find("total[0] holds 4.5039 (0x4481) for init + the sum of 4 values: expected 4.5 (exact: no "
                            "partial sum rounds), off by 0.00390625"),
            std::string::npos)
      << f->message;
  EXPECT_EQ(sum_error_bound(VK::F16, 4, 8.5L, -2), 0.0);  // 8.5 <= 2^(11-2)
  EXPECT_GT(sum_error_bound(VK::F16, 4, 600.0L, -2), 0.0);
}

TEST(KernelHalf, StagnationAndOverflowAreWhatSomeOrderGives) {
  // 2048 + 1 rounds back to 2048 (a tie, to even): eight ones vanish.
  std::vector<uint64_t> ones(8, 0x3c00);
  const uint64_t h2048 = 0x6800;
  EXPECT_EQ(sum_in_order<__half>(h2048, ones, {0, 1, 2, 3, 4, 5, 6, 7}), h2048);
  EXPECT_FALSE(check_sum("total", VK::F16, h2048, h2048, ones));           // the bound (8.03) covers 8 lost
  EXPECT_TRUE(check_sum("total", VK::F16, bits_of_value<__half>(2040), h2048, ones));  // 16 off: no order
  // 60000 + 60000 overflows in one order: +inf is possible, -inf is not.
  const uint64_t big = bits_of_value<__half>(60000), minus_big = bits_of_value<__half>(-60000);
  const std::vector<uint64_t> up{big, big, minus_big};
  EXPECT_EQ(sum_in_order<__half>(0, up, {0, 1, 2}), 0x7c00u);
  EXPECT_FALSE(check_sum("total", VK::F16, 0x7c00, 0, up));
  EXPECT_TRUE(check_sum("total", VK::F16, 0xfc00, 0, up));
  // 60000 - 60000: no partial sum passes 60000 in any order.
  EXPECT_TRUE(check_sum("total", VK::F16, 0x7c00, 0, std::vector<uint64_t>{big, minus_big}));
  // NaN and infinities as IEEE says.
  EXPECT_FALSE(check_sum("t", VK::F16, 0x7fff, 0, std::vector<uint64_t>{0x7c00, 0xfc00}));
  EXPECT_FALSE(check_sum("t", VK::BF16, 0xff80, 0x3f80, std::vector<uint64_t>{0xff80, 0x3f80}));
}

// Infinities, NaN and overflow together: every result any sequential order
// or tree of a few such terms gives is accepted (an infinity beside terms
// that overflow the other way first gives NaN: the GPU found that one).
template <class H>
void every_order_of_special_terms_is_accepted() {
  const VK kind = kind_of<H>();
  const double big = std::is_same_v<H, __half> ? 65504.0 : 3.3895313892515355e38;
  const std::vector<uint64_t> pool{bits_of_value<H>(INFINITY), bits_of_value<H>(-INFINITY), bits_of_value<H>(big), bits_of_value<H>(-big),
                                   bits_of_value<H>(big / 2), bits_of_value<H>(-big / 2), bits_of_value<H>(1.0),
                                   bits_of_value<H>(-0.5), bits_of_value<H>(0.0)};
  std::mt19937_64 rng(std::is_same_v<H, __half> ? 21 : 22);
  size_t nan_results = 0, inf_results = 0;
  for (int c = 0; c < 300; ++c) {
    const size_t n = 2 + rng() % 4;
    std::vector<uint64_t> values(n);
    for (uint64_t& v : values) v = pool[rng() % pool.size()];
    const uint64_t init = pool[2 + rng() % (pool.size() - 2)];  // a finite init
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    do {
      for (size_t at = 0; at <= n; ++at) {
        for (uint64_t got : {sum_in_order<H>(init, values, order), tree_in_order<H>(init, values, order, at)}) {
          const double g = value_of<H>(got);
          nan_results += std::isnan(g);
          inf_results += std::isinf(g);
          const auto f = check_sum("total", kind, got, init, values);
          ASSERT_FALSE(f) << "case " << c << ": " << f->message;
        }
      }
    } while (std::next_permutation(order.begin(), order.end()));
  }
  EXPECT_GT(nan_results, 0u);  // the cases reached NaN and infinities
  EXPECT_GT(inf_results, 0u);
}

TEST(KernelHalf, EveryOrderOfInfinitiesAndOverflowingTermsIsAccepted) {
  every_order_of_special_terms_is_accepted<__half>();
  every_order_of_special_terms_is_accepted<__nv_bfloat16>();
  // One +inf term, and negative terms that overflow before it in some order:
  // +inf or NaN, never -inf or a finite value.
  const uint64_t inf = 0x7c00, minus_max = bits_of_value<__half>(-65504.0);
  const std::vector<uint64_t> v{inf, minus_max, minus_max};
  EXPECT_FALSE(check_sum("t", VK::F16, 0x7fff, 0, v));
  EXPECT_FALSE(check_sum("t", VK::F16, 0x7c00, 0, v));
  EXPECT_TRUE(check_sum("t", VK::F16, 0xfc00, 0, v));
  EXPECT_TRUE(check_sum("t", VK::F16, 0, 0, v));
  // One +inf and nothing that can overflow: only +inf.
  EXPECT_TRUE(check_sum("t", VK::F16, 0x7fff, 0, std::vector<uint64_t>{inf, minus_max}));
}

// ------------------------------------------------------- scatter sums
TEST(KernelHalf, ScatterSumsNameTheElementItsContributorsExpectedAndGot) {
  // self[j] += src[i] at index[i]: element 2 gets 1.5 + 0.25 + 2 from 1.
  const std::vector<uint64_t> keys{2, 0, 2, 2}, src{0x3e00, 0x3c00, 0x3400, 0x4000};  // 1.5, 1, 0.25, 2
  const std::vector<uint64_t> init{0, 0x4000, 0x3c00, 0xbc00};                        // 0, 2, 1, -1
  const Scattered in{"src", VK::I64, keys, src};
  const std::vector<uint64_t> right{0x3c00, 0x4000, 0x44c0, 0xbc00};  // 1, 2, 4.75, -1
  EXPECT_FALSE(check_scatter_sums("self", VK::F16, right, init, in));
  std::vector<uint64_t> lost = right;
  lost[2] = bits_of_value<__half>(2.75);  // src[3] (2) lost
  const auto f = check_scatter_sums("self", VK::F16, lost, init, in);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->index, 2);
  EXPECT_EQ(f->buffer, "self");
  EXPECT_NE(f->message.find("self[2] holds 2.75 (0x4180), its initial value 1 (0x3c00) plus the sum of the 3 values "
                            "scattered to it (src[0] = 1.5 (0x3e00), src[2] = 0.25 (0x3400), src[3] = 2 (0x4000)): "
                            "expected 4.75 (exact: no partial sum rounds), off by -2 (1 of 4 elements wrong)"),
            std::string::npos)
      << f->message;
  ASSERT_EQ(f->window.size(), 4u);
  EXPECT_EQ(f->window[2].at, "self[2]");
  EXPECT_EQ(f->window[2].expected, "4.75 exactly");
  EXPECT_TRUE(f->window[2].differs);
  EXPECT_FALSE(f->window[1].differs);
  // An element no value goes to must keep its value.
  std::vector<uint64_t> touched = right;
  touched[3] = 0x0000;
  const auto t = check_scatter_sums("self", VK::F16, touched, init, in);
  ASSERT_TRUE(t);
  EXPECT_NE(t->message.find("self[3] holds 0 (0x0000), its initial value -1 (0xbc00), and no value is scattered to it"),
            std::string::npos)
      << t->message;
  // A key outside the tensor is the case's own input error, said so.
  const std::vector<int64_t> bad_keys_signed{0, -1};
  std::vector<uint64_t> bad_keys;
  for (int64_t k : bad_keys_signed) bad_keys.push_back(uint64_t(k));
  const auto k = check_scatter_sums("self", VK::F16, right, init, Scattered{"src", VK::I64, bad_keys, src});
  ASSERT_TRUE(k);
  EXPECT_NE(k->message.find("key #1 is -1, outside the 4 elements of self"), std::string::npos) << k->message;
}

TEST(KernelHalf, ScatterSumsAcceptEveryOrderOfEveryElement) {
  std::mt19937_64 rng(21);
  for (int c = 0; c < 200; ++c) {
    const size_t elements = 1 + rng() % 5, n = rng() % 20;
    std::vector<uint64_t> keys(n), src(n), init(elements);
    for (size_t i = 0; i < n; ++i) keys[i] = rng() % elements, src[i] = rounding_value<__half>(rng);
    for (uint64_t& v : init) v = rounding_value<__half>(rng);
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    for (int o = 0; o < 5; ++o) {
      std::shuffle(order.begin(), order.end(), rng);  // the atomics' arrival order
      std::vector<__half> self;
      for (uint64_t v : init) self.push_back(prim::from_bits<__half>(v));
      for (size_t i : order) self[keys[i]] = prim::hadd(self[keys[i]], prim::from_bits<__half>(src[i]));
      std::vector<uint64_t> got;
      for (__half h : self) got.push_back(prim::to_bits(h));
      const auto f = check_scatter_sums("self", VK::F16, got, init, Scattered{"src", VK::U64, keys, src});
      ASSERT_FALSE(f) << "case " << c << ": " << f->message;
    }
  }
}

// ------------------------------------- the half_scatter_add example's host pieces
TEST(KernelHalfExample, AddingIntoAWordChangesOnlyItsHalfCorrectlyRounded) {
  std::mt19937_64 rng(3);
  for (uint32_t a = 0; a <= 0xffff; ++a) {
    const uint16_t other = uint16_t(rng()), b = uint16_t(rng());
    const __half val = prim::from_bits<__half>(b);
    const uint16_t want = uint16_t(prim::to_bits(prim::hadd(prim::from_bits<__half>(a), val)));
    for (bool high : {false, true}) {
      const unsigned word = high ? (unsigned(a) << 16) | other : (unsigned(other) << 16) | a;
      const unsigned out = half_word::with_half_added(word, high, val);
      const uint16_t mine = uint16_t(high ? out >> 16 : out), kept = uint16_t(high ? out : out >> 16);
      ASSERT_EQ(kept, other) << a;
      // PyTorch's float-then-half add is __hadd, NaNs aside (the GPU's NaN is canonical).
      if (!prim::is_nan(prim::from_bits<__half>(want))) ASSERT_EQ(mine, want) << std::hex << a << " + " << b;
      else ASSERT_TRUE(prim::is_nan(prim::from_bits<__half>(mine))) << std::hex << a << " + " << b;
    }
  }
}

namespace {

// One twin's scatter-add run on the host over guarded bytes laid out as
// KernelCase lays a buffer (front guard, `offset` elements, the data, back
// guard): each add through the example's own word or half path, the bytes
// each touches recorded.
struct Footprint {
  std::vector<uint8_t> arena;
  size_t data_at = 0, numel = 0;
  size_t lowest = SIZE_MAX, highest = 0;  // bytes touched, relative to the arena
  bool outside() const { return lowest < data_at || highest > data_at + 2 * numel; }
};

Footprint scatter_on_host(bool word_always, size_t offset, const std::vector<uint64_t>& init,
                          const std::vector<uint64_t>& keys, const std::vector<uint64_t>& src) {
  Footprint fp;
  fp.numel = init.size();
  fp.data_at = kGuardBytes + 2 * offset;
  std::vector<uint32_t> storage((2 * kGuardBytes + 2 * offset + 2 * init.size() + 8) / 4);  // 4-byte aligned
  fp.arena.assign(storage.size() * 4, 0);
  for (size_t i = 0; i < kGuardBytes; ++i) fp.arena[fp.data_at - kGuardBytes + i] = canary_byte(1, i);
  for (size_t i = 0; i < kGuardBytes && fp.data_at + 2 * init.size() + i < fp.arena.size(); ++i)
    fp.arena[fp.data_at + 2 * init.size() + i] = canary_byte(1, i);
  for (size_t j = 0; j < init.size(); ++j) std::memcpy(&fp.arena[fp.data_at + 2 * j], &init[j], 2);
  std::memcpy(storage.data(), fp.arena.data(), fp.arena.size());
  auto* self = reinterpret_cast<__half*>(reinterpret_cast<uint8_t*>(storage.data()) + fp.data_at);
  const uintptr_t base = reinterpret_cast<uintptr_t>(storage.data());
  for (size_t i = 0; i < keys.size(); ++i) {
    __half* address = self + keys[i];
    const __half val = prim::from_bits<__half>(src[i]);
    uintptr_t lo = reinterpret_cast<uintptr_t>(address), hi = lo + 2;
    if (word_always || half_word::word_inside(self, init.size(), keys[i])) {  // the kernel's choice
      const half_word::Slot s = half_word::slot_of(address);
      unsigned word;
      std::memcpy(&word, reinterpret_cast<void*>(s.word), 4);
      word = half_word::with_half_added(word, s.high, val);
      std::memcpy(reinterpret_cast<void*>(s.word), &word, 4);
      lo = s.word, hi = s.word + 4;
    } else {
      unsigned short bits;
      std::memcpy(&bits, static_cast<const void*>(address), 2);
      bits = half_word::half_added(bits, val);
      std::memcpy(static_cast<void*>(address), &bits, 2);
    }
    fp.lowest = std::min<size_t>(fp.lowest, lo - base);
    fp.highest = std::max<size_t>(fp.highest, hi - base);
  }
  std::memcpy(fp.arena.data(), storage.data(), fp.arena.size());
  return fp;
}

}  // namespace

TEST(KernelHalfExample, OnlyTheBuggyTwinReachesOutsideAndItsCanariesStayIntact) {
  // Every element of every small tensor at every alignment KernelCase draws.
  for (size_t offset : {0, 1, 3}) {
    for (size_t numel = 1; numel <= 9; ++numel) {
      std::vector<uint64_t> init(numel), keys, src;
      for (size_t j = 0; j < numel; ++j) {
        init[j] = bits_of_value<__half>(double(j) / 4);
        keys.push_back(j);
        src.push_back(0x3c00);  // 1
      }
      const Footprint good = scatter_on_host(false, offset, init, keys, src);
      const Footprint bad = scatter_on_host(true, offset, init, keys, src);
      EXPECT_FALSE(good.outside()) << "offset " << offset << " numel " << numel;
      const bool starts_mid_word = offset % 2 == 1, ends_mid_word = (offset + numel) % 2 == 1;
      EXPECT_EQ(bad.outside(), starts_mid_word || ends_mid_word) << "offset " << offset << " numel " << numel;
      // memcheck's exact allocation is the offset and the data: only an end
      // mid-word reaches past it.
      EXPECT_EQ(bad.highest > bad.data_at + 2 * numel, ends_mid_word) << "offset " << offset << " numel " << numel;
      // The same bytes, guards and all: the write-back outside is of the
      // bytes it read, so the canaries cannot tell the twins apart...
      EXPECT_EQ(good.arena, bad.arena) << "offset " << offset << " numel " << numel;
      // ... nor can the oracle: every element holds its sum.
      std::vector<uint64_t> got(numel);
      for (size_t j = 0; j < numel; ++j) std::memcpy(&got[j], &bad.arena[bad.data_at + 2 * j], 2);
      EXPECT_FALSE(check_scatter_sums("self", VK::F16, got, init, Scattered{"src", VK::I64, keys, src}));
    }
  }
}

// -------------------------------------------- a twin only a sanitizer sees
namespace {
const bool memcheck_twin_registered = [] {
  register_kernel("test.kernel.needs_memcheck", [](KernelCase&) {},
                  KernelTraits{.bug = "writes 2 bytes past the end back unchanged", .needs_sanitizer = "memcheck"});
  return true;
}();
}  // namespace

TEST(KernelTwins, ATwinOnlyASanitizerSeesSaysSoAndIsNotCountedAsMissed) {
  ASSERT_TRUE(memcheck_twin_registered);
  const Entry* e = find_impl("test.kernel.needs_memcheck");
  ASSERT_NE(e, nullptr);
  EXPECT_STREQ(e->needs_sanitizer, "memcheck");
  EXPECT_NE(describe_spec(*e).find("seen by:     --sanitize memcheck only (the oracles and guard zones cannot see it)"),
            std::string::npos)
      << describe_spec(*e);
  // selftest: not counted, with the command that does test it; on the cpu
  // backend the GPU's reason comes first.
  EXPECT_EQ(fuzz::not_counted_reason(*e, BackendKind::Cuda),
            "its bug shows only under --sanitize memcheck: not counted (check --impl test.kernel.needs_memcheck "
            "--backend cuda --sanitize memcheck)");
  EXPECT_EQ(fuzz::not_counted_reason(*e, BackendKind::Cpu), "needs a GPU: not counted on the cpu backend");
  const Entry* plain = find_impl("test.kernel.real");
  ASSERT_NE(plain, nullptr);
  EXPECT_FALSE(fuzz::not_counted_reason(*plain, BackendKind::Cuda));
  // check: its PASS carries the note; a correct entry's does not.
  auto pass_line = [](const Entry* entry) {
    reports::ImplSummary s;
    s.impl = entry;
    s.backend = BackendKind::Cuda;
    s.trials = 1;
    reports::TextPrinter printer(false, false);
    testing::internal::CaptureStdout();
    printer.record(s);
    return testing::internal::GetCapturedStdout();
  };
  EXPECT_NE(pass_line(e).find("note: its bug shows only under --sanitize memcheck"), std::string::npos) << pass_line(e);
  EXPECT_EQ(pass_line(plain).find("note:"), std::string::npos) << pass_line(plain);
}

// The one float-sum rule and the GPU's flushing adds (check/float_sum.hpp):
// native float atomicAdd flushes subnormal operands and results, so a
// correct scatter-add may lose exactly its subnormals; FloatAdds::StrictIeee
// asks for them kept.  A normal value lost is wrong either way.
namespace {
std::optional<KernelFailure> scatter_f(VK kind, uint64_t got, uint64_t init, std::vector<uint64_t> values,
                                       FloatAdds adds) {
  const std::vector<uint64_t> keys(values.size(), 0);
  const Scattered in{"src", VK::U64, keys, values};
  const std::vector<uint64_t> g{got}, i{init};
  return check_scatter_sums("self", kind, g, i, in, std::nullopt, adds);
}
}  // namespace

TEST(FloatSumRule, TheGpusFlushedSubnormalsPassAndStrictIeeeRefusesThem) {
  // self[0] = 2^-126 (the smallest normal) plus 2^-149 (the smallest
  // subnormal): the GPU's add flushes the operand and keeps 2^-126.
  EXPECT_FALSE(scatter_f(VK::F32, 0x00800000, 0x00800000, {0x1}, FloatAdds::AsTheGpu));
  const auto strict = scatter_f(VK::F32, 0x00800000, 0x00800000, {0x1}, FloatAdds::StrictIeee);
  ASSERT_TRUE(strict);
  EXPECT_NE(strict->message.find("exact: no partial sum rounds"), std::string::npos) << strict->message;
  // Only subnormals, into zero: the GPU gives 0, IEEE the exact sum.
  EXPECT_FALSE(scatter_f(VK::F32, 0, 0, {0x1, 0x2, 0x80000003, 0x7fffff}, FloatAdds::AsTheGpu));
  EXPECT_TRUE(scatter_f(VK::F32, 0, 0, {0x1, 0x2, 0x80000003, 0x7fffff}, FloatAdds::StrictIeee));
  EXPECT_FALSE(scatter_f(VK::F32, 0x7fffff, 0, {0x1, 0x7ffffe}, FloatAdds::AsTheGpu));  // or kept: both pass
  // The rule says why it allows more.
  const auto far = scatter_f(VK::F32, 0x3f800000, 0, {0x1, 0x2}, FloatAdds::AsTheGpu);
  ASSERT_TRUE(far);
  EXPECT_NE(far->message.find("subnormals flushed as the GPU's float atomicAdd flushes them"), std::string::npos)
      << far->message;
  // A normal term lost is wrong under either rule: nothing near it is subnormal.
  EXPECT_TRUE(scatter_f(VK::F32, 0, 0, {0x00800000}, FloatAdds::AsTheGpu));
  EXPECT_TRUE(scatter_f(VK::F32, 0x3f800000, 0x3f800000, {0x3f800000}, FloatAdds::AsTheGpu));
  // double's native add keeps subnormals: no flushing to allow.
  EXPECT_FALSE(gpu_atomic_add_flushes(VK::F64));
  EXPECT_TRUE(scatter_f(VK::F64, 0, 0, {0x1, 0x2}, FloatAdds::AsTheGpu));
}

TEST(FloatSumRule, OneAdditionIsJudgedAgainstTheExactSumNotItsDouble) {
  // A correctly rounded double add that the GPU made (a void update's one
  // op, H200): init + a lies 7.1e-15 below the result, half an ulp.  The
  // rule once rounded the exact sum to double first, which put the result a
  // whole ulp (1.42e-14) off, past one addition's bound u * R = 1.28e-14.
  const uint64_t init = 0xbf4d4d40b2b0fff4, a = 0x405cb7da3e12575b, sum = 0x405cb7cb9771fe03;
  ASSERT_EQ(to_bits<double>(from_bits<double>(init) + from_bits<double>(a)), sum);
  FloatSum one(VK::F64, init);
  one.add(a);
  EXPECT_TRUE(one.accepts(sum)) << one.judge(sum).why;
  EXPECT_TRUE(one.accepts(sum - 1));  // the other neighbour of the exact sum, half an ulp away too
  EXPECT_FALSE(one.accepts(sum + 1)) << "an ulp and a half off";
}

TEST(FloatSumRule, ATreesDepthTightensTheBound) {
  // 1000 terms of 1 + 2^-20: in any order the bound grows with the 1000
  // additions; a tree of depth 12 (a built-in form) allows far less.
  const uint64_t term = to_bits<float>(1.0f + 0x1p-20f);
  FloatSum flat(VK::F32, 0), tree(VK::F32, 0, {FloatAdds::AsTheGpu, 12});
  for (int i = 0; i < 1000; ++i) flat.add(term), tree.add(term);
  const uint64_t off = to_bits<float>(1000.0f);  // 1000 * 2^-20 below the exact sum
  EXPECT_TRUE(flat.accepts(off));
  EXPECT_FALSE(tree.accepts(off));
  EXPECT_LT(tree.judge(off).limit, flat.judge(off).limit);
}
