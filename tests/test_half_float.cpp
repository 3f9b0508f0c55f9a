// The 16-bit float value kinds (f16, bf16) and their adds: the host phi of
// every native and CAS-emulated add against a reference that rounds the
// exact sum with integer arithmetic (no double, no CUDA conversion), over
// every first operand with random and special second operands; the named
// IEEE cases; printing and NaN states; the 64-bit inc/dec wrap formulas.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "atomics_under_test/emulated.cuh"
#include "harness/registry/bits.hpp"
#include "harness/registry/registry.hpp"
#include "harness/workload/workload.hpp"

using namespace atomstress;

namespace {

// ------------------------------------------------------- the reference
// A binary 16-bit format: p significand bits (the implicit one included)
// and an exponent field of `ebits` bits.
struct Format {
  int p, ebits;
  int frac() const { return p - 1; }
  int bias() const { return (1 << (ebits - 1)) - 1; }
  uint32_t emask() const { return (1u << ebits) - 1; }
  int sub_lsb() const { return 1 - bias() - frac(); }  // exponent of the smallest subnormal
  uint16_t nan() const { return uint16_t((emask() << frac()) | (1u << (frac() - 1))); }
};
constexpr Format kHalf{11, 5}, kBf16{8, 8};

struct Decoded {
  bool neg, inf, nan;
  int64_t m;  // value = m * 2^e, m < 2^p
  int e;
};
Decoded decode(const Format& f, uint16_t bits) {
  const uint32_t ef = (bits >> f.frac()) & f.emask(), fr = bits & ((1u << f.frac()) - 1);
  Decoded d{(bits >> 15) != 0, false, false, 0, 0};
  if (ef == f.emask()) {
    (fr == 0 ? d.inf : d.nan) = true;
  } else if (ef == 0) {
    d.m = fr;
    d.e = f.sub_lsb();
  } else {
    d.m = int64_t(fr | (1u << f.frac()));
    d.e = int(ef) - f.bias() - f.frac();
  }
  return d;
}

// s * 2^x, s != 0, rounded to nearest even in the format (overflow to inf).
uint16_t round_exact(const Format& f, __int128 s, int x) {
  const uint16_t sign = s < 0 ? 0x8000 : 0;
  unsigned __int128 mag = s < 0 ? (unsigned __int128)(-s) : (unsigned __int128)s;
  int msb = 127;
  while (!((mag >> msb) & 1)) --msb;
  const int t = std::max(msb + x - f.frac(), f.sub_lsb());  // the result's lsb exponent
  unsigned __int128 q;
  if (t > x) {
    const int sh = t - x;
    q = mag >> sh;
    const unsigned __int128 rem = mag & ((((unsigned __int128)1) << sh) - 1), half = ((unsigned __int128)1) << (sh - 1);
    if (rem > half || (rem == half && (q & 1))) ++q;
  } else {
    q = mag << (x - t);
  }
  int te = t;
  if (q == ((unsigned __int128)1) << f.p) {
    q >>= 1;
    ++te;
  }
  if (q < ((unsigned __int128)1) << f.frac()) return uint16_t(sign | uint16_t(q));  // subnormal (or zero)
  const int ef = te + f.frac() + f.bias();
  if (ef >= int(f.emask())) return uint16_t(sign | (f.emask() << f.frac()));  // infinity
  return uint16_t(sign | (uint32_t(ef) << f.frac()) | uint32_t(q & ((1u << f.frac()) - 1)));
}

// The correctly rounded sum a + b, from the formats' definition alone.
uint16_t reference_add(const Format& f, uint16_t a, uint16_t b) {
  Decoded x = decode(f, a), y = decode(f, b);
  if (x.nan || y.nan || (x.inf && y.inf && x.neg != y.neg)) return f.nan();
  if (x.inf) return a;
  if (y.inf) return b;
  if (x.m == 0 && y.m == 0) return (x.neg && y.neg) ? 0x8000 : 0;
  // Far below the other operand's last bit a value only breaks ties: any
  // such value rounds the same, so move it up to a distance an int128 holds.
  if (x.m != 0 && y.m != 0) {
    if (x.e - y.e > 90) y.e = x.e - 90, y.m = 1;
    if (y.e - x.e > 90) x.e = y.e - 90, x.m = 1;
  }
  const int e = std::min(x.m ? x.e : y.e, y.m ? y.e : x.e);
  __int128 s = 0;
  if (x.m) s += (__int128)(x.neg ? -x.m : x.m) << (x.e - e);
  if (y.m) s += (__int128)(y.neg ? -y.m : y.m) << (y.e - e);
  if (s == 0) return 0;  // x + (-x) = +0 when rounding to nearest
  return round_exact(f, s, e);
}

bool is_nan(const Format& f, uint16_t b) { return decode(f, b).nan; }

// Every first operand, each with random second operands and every special
// value of the kind: phi of both entries (native and CAS-emulated) equals
// the reference, NaNs as the canonical NaN.
void phi_matches_reference(const Format& f, VK kind, const char* native, const char* cas) {
  const Entry* n = find_impl(native);
  const Entry* c = find_impl(cas);
  ASSERT_NE(n, nullptr);
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(n->kind, kind);
  ASSERT_EQ(c->kind, kind);
  const auto specials = special_values(kind, Domain::Float);
  std::mt19937_64 rng(uint64_t(kind) * 7919);
  uint64_t checked = 0, nans = 0, subnormal_results = 0, infinities = 0;
  for (uint32_t a = 0; a <= 0xffff; ++a) {
    auto one = [&](uint16_t b) {
      const uint16_t want = reference_add(f, uint16_t(a), b);
      for (const Entry* e : {n, c}) {
        const uint64_t got = e->phi(a, b, 0);
        if (is_nan(f, want)) {
          ASSERT_EQ(got, 0x7fffu) << e->name << ": " << format_value(kind, a) << " + " << format_value(kind, b)
                                  << " must be the canonical NaN";
        } else {
          ASSERT_EQ(got, want) << e->name << ": " << format_value(kind, a) << " + " << format_value(kind, b)
                               << " gave " << format_value(kind, got) << ", correctly rounded "
                               << format_value(kind, want);
        }
      }
      ++checked;
      nans += is_nan(f, want);
      infinities += decode(f, want).inf;
      subnormal_results += ((want >> f.frac()) & f.emask()) == 0 && (want & 0x7fff) != 0;
    };
    for (int i = 0; i < 24; ++i) ASSERT_NO_FATAL_FAILURE(one(uint16_t(rng())));
    for (uint64_t b : specials) ASSERT_NO_FATAL_FAILURE(one(uint16_t(b)));
  }
  // The sweep reached every class of result.
  EXPECT_GT(checked, 65536u * 24);
  EXPECT_GT(nans, 1000u);
  EXPECT_GT(infinities, 1000u);
  EXPECT_GT(subnormal_results, 100u);
}

uint64_t phi(const char* name, uint64_t old, uint64_t a) { return find_impl(name)->phi(old, a, 0); }

}  // namespace

// The reference itself, on sums whose answers are known by hand.
TEST(HalfFloat, ReferenceRoundsKnownSums) {
  EXPECT_EQ(reference_add(kHalf, 0x3c00, 0x3c00), 0x4000);  // 1 + 1 = 2
  EXPECT_EQ(reference_add(kHalf, 0x3c00, 0x1000), 0x3c00);  // 1 + 2^-11: a tie, to even
  EXPECT_EQ(reference_add(kHalf, 0x3c01, 0x1000), 0x3c02);  // (1 + ulp) + 2^-11: a tie, to even (up)
  EXPECT_EQ(reference_add(kHalf, 0x7bff, 0x4c00), 0x7c00);  // 65504 + 16 = 65520: a tie, to even = overflow
  EXPECT_EQ(reference_add(kHalf, 0x7bff, 0x4bff), 0x7bff);  // 65504 + 15.99: below the tie
  EXPECT_EQ(reference_add(kBf16, 0x3f80, 0x3b80), 0x3f80);  // 1 + 2^-8: a tie, to even
  EXPECT_EQ(reference_add(kBf16, 0x7f00, 0x0001), 0x7f00);  // 2^127 + the smallest subnormal
  EXPECT_EQ(reference_add(kBf16, 0x7f00, 0x8001), 0x7f00);  // 2^127 less a hair far below its half ulp
  EXPECT_EQ(reference_add(kBf16, 0x3f80, 0xbb80), 0x3f7f);  // 1 - 2^-8: exact, in the binade below
}

TEST(HalfFloat, F16AddPhiIsCorrectlyRounded) {
  ASSERT_NO_FATAL_FAILURE(phi_matches_reference(kHalf, VK::F16, "native.add.f16", "cas.add.f16"));
}
TEST(HalfFloat, BF16AddPhiIsCorrectlyRounded) {
  ASSERT_NO_FATAL_FAILURE(phi_matches_reference(kBf16, VK::BF16, "native.add.bf16", "cas.add.bf16"));
}

// The cases a spec line states, for each of the four adds.
TEST(HalfFloat, NamedIeeeCases) {
  for (const char* name : {"native.add.f16", "cas.add.f16"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(phi(name, 0x8000, 0x8000), 0x8000u);  // -0 + -0 = -0
    EXPECT_EQ(phi(name, 0x8000, 0x0000), 0x0000u);  // -0 + +0 = +0
    EXPECT_EQ(phi(name, 0x3c00, 0xbc00), 0x0000u);  // 1 - 1 = +0
    EXPECT_EQ(phi(name, 0x0001, 0x0001), 0x0002u);  // subnormals kept
    EXPECT_EQ(phi(name, 0x03ff, 0x0001), 0x0400u);  // the largest subnormal grows into the smallest normal
    EXPECT_EQ(phi(name, 0x0000, 0x8001), 0x8001u);
    EXPECT_EQ(phi(name, 0x7bff, 0x7bff), 0x7c00u);  // overflow to +inf
    EXPECT_EQ(phi(name, 0x6800, 0x3c00), 0x6800u);  // 2048 + 1: a tie, to even
    EXPECT_EQ(phi(name, 0x6800, 0x4200), 0x6802u);  // 2048 + 3 = 2051: a tie, to even (2052)
    EXPECT_EQ(phi(name, 0x7c00, 0xfc00), 0x7fffu);  // inf - inf: the canonical NaN
    EXPECT_EQ(phi(name, 0x7d01, 0x3c00), 0x7fffu);  // a signalling NaN with a payload: some NaN
    EXPECT_EQ(phi(name, 0x3c00, 0x7c00), 0x7c00u);
  }
  for (const char* name : {"native.add.bf16", "cas.add.bf16"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(phi(name, 0x8000, 0x8000), 0x8000u);
    EXPECT_EQ(phi(name, 0x8000, 0x0000), 0x0000u);
    EXPECT_EQ(phi(name, 0x0001, 0x0001), 0x0002u);
    EXPECT_EQ(phi(name, 0x007f, 0x0001), 0x0080u);
    EXPECT_EQ(phi(name, 0x7f7f, 0x7f7f), 0x7f80u);
    EXPECT_EQ(phi(name, 0x4380, 0x3f80), 0x4380u);  // 256 + 1: a tie, to even
    EXPECT_EQ(phi(name, 0x3f81, 0x3b80), 0x3f82u);  // (1 + ulp) + 2^-8: a tie, to even (up)
    EXPECT_EQ(phi(name, 0x7f00, 0x0001), 0x7f00u);  // far apart: the sum is not exact in a double
    EXPECT_EQ(phi(name, 0xff80, 0x7f80), 0x7fffu);
    EXPECT_EQ(phi(name, 0xff81, 0x3f80), 0x7fffu);
  }
}

// The CAS-emulated adds splice into either half of their 32-bit word and
// leave the other half as it was, whatever its bits (a NaN included).
TEST(HalfFloat, CasAddsTouchOnlyTheirHalfOfTheWord) {
  auto check = [](auto impl, uint16_t one, uint16_t keep) {
    using H = typename decltype(impl)::T;
    for (int target = 0; target < 2; ++target) {
      alignas(4) H mem[2] = {prim::from_bits<H>(keep), prim::from_bits<H>(keep)};
      mem[target] = prim::from_bits<H>(one);
      prim::Retry r;
      const H old = impl(&mem[target], prim::from_bits<H>(one), H{}, r);
      const H want = decltype(impl)::phi(prim::from_bits<H>(one), prim::from_bits<H>(one), H{});
      EXPECT_EQ(prim::to_bits(old), one);
      EXPECT_EQ(prim::to_bits(mem[target]), prim::to_bits(want));
      EXPECT_EQ(prim::to_bits(mem[1 - target]), keep) << impl.name << " target " << target;
      EXPECT_EQ(r.count, 0u);
    }
  };
  check(emulated::AddF16{}, 0x3c00, 0x7d01);
  check(emulated::AddBF16{}, 0x3f80, 0xff81);
}

TEST(HalfFloat, ValueKindsPrintAndCompareAsFloats) {
  EXPECT_EQ(vk_of<__half>(), VK::F16);
  EXPECT_EQ(vk_of<__nv_bfloat16>(), VK::BF16);
  EXPECT_EQ(vk_of<uint16_t>(), VK::U16);
  EXPECT_STREQ(vk_name(VK::F16), "f16");
  EXPECT_STREQ(vk_name(VK::BF16), "bf16");
  EXPECT_EQ(vk_bytes(VK::F16), 2u);
  EXPECT_EQ(vk_bytes(VK::BF16), 2u);
  EXPECT_TRUE(vk_is_float(VK::F16));
  EXPECT_TRUE(vk_is_float(VK::BF16));
  EXPECT_FALSE(vk_is_float(VK::U16));
  EXPECT_EQ(format_value(VK::F16, 0x3c00), "1 (0x3c00)");
  EXPECT_EQ(format_value(VK::F16, 0x7bff), "65504 (0x7bff)");
  EXPECT_EQ(format_value(VK::F16, 0x3555), "0.33325 (0x3555)");
  EXPECT_EQ(format_value(VK::F16, 0x8001), "-5.9605e-08 (0x8001)");
  EXPECT_EQ(format_value(VK::F16, 0xfc00), "-inf (0xfc00)");
  EXPECT_EQ(format_value(VK::F16, 0x7d01), "nan (0x7d01)");
  EXPECT_EQ(format_value(VK::BF16, 0x3f80), "1 (0x3f80)");
  EXPECT_EQ(format_value(VK::BF16, 0x3eab), "0.334 (0x3eab)");
  EXPECT_EQ(format_value(VK::BF16, 0x7f80), "inf (0x7f80)");
  EXPECT_EQ(format_value(VK::U16, 0xffff), "65535");
  // All NaNs one state: every NaN pattern canonicalises, nothing else does.
  const Entry& f16 = *find_impl("native.add.f16");
  const Entry& bf16 = *find_impl("cas.add.bf16");
  EXPECT_TRUE(f16.sem.nan_states_equal);
  EXPECT_TRUE(bf16.sem.nan_states_equal);
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const bool f16_nan = (b & 0x7fff) > 0x7c00, bf16_nan = (b & 0x7fff) > 0x7f80;
    ASSERT_EQ(f16.canon(b), f16_nan ? 0x7fffu : b) << b;
    ASSERT_EQ(bf16.canon(b), bf16_nan ? 0x7fffu : b) << b;
  }
}

// atomicInc/atomicDec's formulas at 64 bits, at their edges.
TEST(IncDec64, WrapFormulasAtTheEdges) {
  constexpr uint64_t kMax = UINT64_MAX;
  EXPECT_EQ(phi("cas.inc.u64", 0, 0), 0u);  // limit 0 always gives 0
  EXPECT_EQ(phi("cas.inc.u64", 12345, 0), 0u);
  EXPECT_EQ(phi("cas.inc.u64", 4, 5), 5u);
  EXPECT_EQ(phi("cas.inc.u64", 5, 5), 0u);
  EXPECT_EQ(phi("cas.inc.u64", 9, 5), 0u);  // old > limit
  EXPECT_EQ(phi("cas.inc.u64", 0xffffffffull, 1ull << 40), 0x100000000ull);  // no wrap at 32 bits
  EXPECT_EQ(phi("cas.inc.u64", kMax - 1, kMax), kMax);
  EXPECT_EQ(phi("cas.inc.u64", kMax, kMax), 0u);
  EXPECT_EQ(phi("cas.dec.u64", 0, 5), 5u);
  EXPECT_EQ(phi("cas.dec.u64", 7, 5), 5u);  // old > limit
  EXPECT_EQ(phi("cas.dec.u64", 5, 5), 4u);
  EXPECT_EQ(phi("cas.dec.u64", 0, 0), 0u);
  EXPECT_EQ(phi("cas.dec.u64", 3, 0), 0u);
  EXPECT_EQ(phi("cas.dec.u64", 0, kMax), kMax);
  EXPECT_EQ(phi("cas.dec.u64", kMax, kMax), kMax - 1);
  EXPECT_EQ(phi("cas.dec.u64", 0x100000000ull, kMax), 0xffffffffull);
  // The functors themselves, through the host CAS loop.
  unsigned long long m = kMax;
  prim::Retry r;
  EXPECT_EQ(emulated::IncU64{}(&m, kMax, 0, r), kMax);
  EXPECT_EQ(m, 0u);
  EXPECT_EQ(emulated::DecU64{}(&m, kMax, 0, r), 0u);
  EXPECT_EQ(m, kMax);
  // The 64-bit limits are drawn as special operands.
  const auto sv = special_values(VK::U64, Domain::IncDec);
  EXPECT_NE(std::find(sv.begin(), sv.end(), kMax), sv.end());
  EXPECT_NE(std::find(sv.begin(), sv.end(), 0x100000000ull), sv.end());
}
