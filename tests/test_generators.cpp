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
