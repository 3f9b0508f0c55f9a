// The special-value generators feed host-semantics properties: the oracle's
// formulas hold on NaNs, signed zeros, subnormals, boundaries and limits.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "harness/prim/prim.cuh"
#include "harness/workload/workload.hpp"
#include "harness/registry/bits.hpp"
#include "properties/generators.hpp"

using namespace atomstress;

RC_GTEST_PROP(Generators, NativeFloatAddIsFlushedCasAdd, ()) {
  const float x = *properties::gen_float_special(), y = *properties::gen_float_special();
  // Flush-to-zero add == plain add of flushed inputs, result flushed.
  RC_ASSERT(to_bits(prim::fadd_ftz(x, y)) == to_bits(prim::ftz(prim::canon_nan(prim::ftz(x) + prim::ftz(y)))));
  const float r = prim::fadd_ftz(x, y);
  RC_ASSERT(!(std::fpclassify(r) == FP_SUBNORMAL));
}

RC_GTEST_PROP(Generators, EmulatedIncDecMatchNativeFormulas, ()) {
  const uint32_t lim = *properties::gen_wrap_limit(), old = *properties::gen_wrap_limit();
  const auto* ni = find_impl("native.inc.u32");
  const auto* ei = find_impl("cas.inc.u32");
  const auto* nd = find_impl("native.dec.u32");
  const auto* ed = find_impl("cas.dec.u32");
  RC_ASSERT(ni->phi(old, lim, 0) == ei->phi(old, lim, 0));
  RC_ASSERT(nd->phi(old, lim, 0) == ed->phi(old, lim, 0));
  RC_ASSERT(ni->phi(old, lim, 0) <= lim);
  RC_ASSERT(nd->phi(old, lim, 0) <= lim);
}

// The 64-bit inc/dec: within their limit at every edge of 64 bits, and the
// 32-bit native atomics' results wherever both apply.
RC_GTEST_PROP(Generators, IncDec64KeepTheirLimitsAndAgreeWith32Bits, ()) {
  const uint64_t lim = *properties::gen_wrap_limit64(), old = *properties::gen_wrap_limit64();
  const auto* inc = find_impl("cas.inc.u64");
  const auto* dec = find_impl("cas.dec.u64");
  RC_ASSERT(inc->phi(old, lim, 0) <= lim);
  RC_ASSERT(dec->phi(old, lim, 0) <= lim);
  const uint32_t lim32 = *properties::gen_wrap_limit(), old32 = *properties::gen_wrap_limit();
  RC_ASSERT(inc->phi(old32, lim32, 0) == find_impl("native.inc.u32")->phi(old32, lim32, 0));
  RC_ASSERT(dec->phi(old32, lim32, 0) == find_impl("native.dec.u32")->phi(old32, lim32, 0));
}

// The 16-bit float adds (native and CAS-emulated, one spec) against CUDA's
// own host arithmetic (it adds in float and narrows: two roundings, which
// give the once-rounded sum since 24 >= 2p + 2); commutative; -0 the
// identity (a NaN comes back as the canonical NaN).
template <class H>
void half_add_properties(const char* native, const char* cas, uint16_t a, uint16_t b) {
  const auto* n = find_impl(native);
  const auto* c = find_impl(cas);
  const uint64_t sum = n->phi(a, b, 0);
  RC_ASSERT(c->phi(a, b, 0) == sum);
  RC_ASSERT(n->phi(b, a, 0) == sum);
  RC_ASSERT(n->canon(to_bits(__hadd_rn(from_bits<H>(a), from_bits<H>(b)))) == n->canon(sum));
  RC_ASSERT(n->phi(a, 0x8000, 0) == n->canon(a));
}
RC_GTEST_PROP(Generators, F16AddMatchesCudaHostArithmetic, ()) {
  half_add_properties<__half>("native.add.f16", "cas.add.f16", *properties::gen_f16_bits(),
                              *properties::gen_f16_bits());
}
RC_GTEST_PROP(Generators, BF16AddMatchesCudaHostArithmetic, ()) {
  half_add_properties<__nv_bfloat16>("native.add.bf16", "cas.add.bf16", *properties::gen_bf16_bits(),
                                     *properties::gen_bf16_bits());
}

RC_GTEST_PROP(Generators, FmaxNeverReturnsANanWhenANumberIsPresent, ()) {
  const double x = *properties::gen_double_special(), y = *properties::gen_double_special();
  const double m = prim::host_fmaxmin(x, y, true);
  RC_ASSERT((x != x && y != y) || m == m);
  const int32_t i = *properties::gen_int_boundary();
  const auto* add = find_impl("native.add.i32");
  RC_ASSERT(add->phi(to_bits(i), 0, 0) == to_bits(i));
}

TEST(Generators, TrialSpecsAreAlwaysValid) {
  // Every generated spec must expand: an invalid one would be a false failure.
  rc::detail::TestParams params;
  const auto cfg = properties::default_config(BackendKind::Cpu, match_impls("everything"));
  const auto gen = properties::gen_trial_spec(cfg);
  for (int i = 0; i < 2000; ++i) {
    const TrialSpec s = gen(rc::Random(uint64_t(i)), i % 100).value();
    std::string err;
    ASSERT_TRUE(expand(s, err).has_value()) << describe(s) << ": " << err;
    ASSERT_LE(s.ops(), cfg.max_ops);
  }
}
