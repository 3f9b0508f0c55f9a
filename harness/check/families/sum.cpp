// Sums: one atomic per element / per thread (grid-stride partial) / per
// block (shared-memory tree) / per warp (shuffles).  Trial meaning: the
// elements of block b go to accumulator b % k (single: one, uniform: k,
// per_block: one per block).  Oracle: integers exact; floats within
// gamma_d * sum|x| of the exact sum, exact where every partial sum is exact,
// NaN/inf rules; and bitwise, the atomic's returned values must chain the
// form's partial sums (computed here in the form's fixed order).
#include <cmath>

#include <fmt/format.h>
#include <cstdio>
#include <limits>
#include <vector>

#include "atomics_under_test/algorithms/forms.cuh"
#include "harness/backend/backend.hpp"
#include "harness/check/families/chain.hpp"
#include "harness/check/families/scope.hpp"
#include "harness/registry/bits.hpp"

namespace atomstress::families {

namespace {

// ----------------------------------------------------------------------- sums
template <class T>
struct SumIssuers {
  std::vector<uint64_t> elem;  // the element that issued each atomic
  std::vector<uint32_t> acc;
  std::vector<uint64_t> arg;
};

template <class T>
T xv(const Workload& w, uint64_t e) { return from_bits<T>(w.a[e]); }

// A float of any width, exactly, in the oracle's arithmetic.
template <class T>
long double wide(T v) {
  if constexpr (prim::is_half_float_v<T>) return prim::to_double(v);
  else return v;
}

// What the bound needs of a float format.  std::numeric_limits knows no
// 16-bit float (libcu++'s does, but its headers are nvcc's alone): theirs
// are read off their bit patterns, as libcu++ defines them.
struct FormatLimits {
  long double max, min_normal, epsilon;
  int digits;
};
template <class T>
FormatLimits limits_of() {
  auto bits = [](uint16_t b) { return wide(from_bits<T>(b)); };
  if constexpr (std::is_same_v<T, __half>) return {bits(0x7bff), bits(0x0400), bits(0x1400), 11};
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return {bits(0x7f7f), bits(0x0080), bits(0x3c00), 8};
  else {
    using L = std::numeric_limits<T>;
    return {L::max(), L::min(), L::epsilon(), L::digits};
  }
}

template <class T>
T thread_partial(const Workload& w, uint64_t gt) {
  const uint64_t threads = w.spec.threads();
  T acc = xv<T>(w, gt);
  for (uint32_t k = 1; k < w.spec.ops_per_thread; ++k) acc = algo::plus(acc, xv<T>(w, uint64_t(k) * threads + gt));
  return acc;
}

template <class T>
SumIssuers<T> sum_issuers(const Workload& w, const Setup& s, algo::SumForm form) {
  const auto& spec = w.spec;
  const uint64_t threads = spec.threads(), n = w.ops();
  SumIssuers<T> out;
  auto push = [&](uint64_t e, uint32_t b, T v) {
    out.elem.push_back(e);
    out.acc.push_back(b % s.param);
    out.arg.push_back(to_bits<T>(v));
  };
  switch (form) {
    case algo::SumForm::Element:
      for (uint64_t e = 0; e < n; ++e) push(e, w.block_of(e), xv<T>(w, e));
      break;
    case algo::SumForm::Thread:
      for (uint64_t t = 0; t < threads; ++t) push(t, uint32_t(t / spec.block), thread_partial<T>(w, t));
      break;
    case algo::SumForm::Block: {
      std::vector<T> sh(spec.block);
      uint32_t top = 1;
      while (top < spec.block) top <<= 1;
      for (uint32_t b = 0; b < spec.grid; ++b) {
        for (uint32_t t = 0; t < spec.block; ++t) sh[t] = thread_partial<T>(w, uint64_t(b) * spec.block + t);
        for (uint32_t half = top >> 1; half > 0; half >>= 1)
          for (uint32_t t = 0; t < half && t + half < spec.block; ++t) sh[t] = algo::plus(sh[t], sh[t + half]);
        push(uint64_t(b) * spec.block, b, sh[0]);
      }
      break;
    }
    case algo::SumForm::WarpDown:
    case algo::SumForm::WarpXor: {
      T v[32], nv[32];
      for (uint32_t b = 0; b < spec.grid; ++b)
        for (uint32_t w0 = 0; w0 < spec.block; w0 += 32) {
          const uint32_t width = std::min(32u, spec.block - w0);
          const uint64_t first = uint64_t(b) * spec.block + w0;
          for (uint32_t l = 0; l < width; ++l) v[l] = thread_partial<T>(w, first + l);
          for (uint32_t off = 16; off > 0; off >>= 1) {
            for (uint32_t l = 0; l < width; ++l) {
              const uint32_t src = form == algo::SumForm::WarpDown ? l + off : (l ^ off);
              nv[l] = src < width ? algo::plus(v[l], v[src]) : v[l];
            }
            std::copy(nv, nv + width, v);
          }
          push(first, b, v[0]);
        }
      break;
    }
  }
  return out;
}

// The numeric oracle of one accumulator.
template <class T>
std::string sum_numeric(const Workload& w, const Setup& s, const History& h, uint32_t j,
                        const std::vector<uint64_t>& terms, uint64_t atomics, uint64_t depth) {
  const VK k = vk_of<T>();
  const uint64_t got_bits = h.final_mem[j];
  if constexpr (std::is_integral_v<T>) {
    uint64_t sum = s.mem_init[j];
    for (uint64_t e : terms) sum += w.a[e];
    sum &= width_mask(k);
    if (got_bits != sum)
      return "accumulator " + std::to_string(j) + " holds " + fmt(k, got_bits) + " but init + its " +
             std::to_string(terms.size()) + " elements is " + fmt(k, sum) + " (exact, wrapping)";
    return {};
  } else {
    const FormatLimits limits = limits_of<T>();
    const long double got = wide(from_bits<T>(got_bits)), inf = INFINITY;
    const long double maxv = limits.max;
    bool nan = false, pinf = false, ninf = false, integral = true;
    long double exact = 0, sumabs = 0;
    auto take = [&](T t) {
      const long double v = wide(t);
      if (std::isnan(v)) nan = true;
      else if (std::isinf(v)) (v > 0 ? pinf : ninf) = true;
      else {
        exact += v;
        sumabs += std::fabs(v);
        integral = integral && v == std::trunc(v);
      }
    };
    take(from_bits<T>(s.mem_init[j]));
    for (uint64_t e : terms) take(from_bits<T>(w.a[e]));
    // Made only for a failure: a passing accumulator formats nothing.
    auto where = [&] { return "accumulator " + std::to_string(j) + " holds " + fmt(k, got_bits); };
    if (nan || (pinf && ninf)) {
      if (!std::isnan(got))
        return where() + " but its terms include " + (nan ? "a NaN" : "+inf and -inf") + ", so the sum must be a NaN";
      return {};
    }
    if (sumabs >= maxv / 2) return {};  // partial sums may overflow in an order-dependent way
    if (pinf || ninf) {
      if (got != (pinf ? inf : -inf))
        return where() + " but its terms include " + (pinf ? "+inf" : "-inf") + " and no opposite infinity";
      return {};
    }
    // gamma_d holds while d * u < 1; past that (long 16-bit float sums) the
    // bound says nothing and only the checks below and the bitwise chain apply.
    const long double u = limits.epsilon / 2;
    if (depth * u < 1) {
      const long double gamma = depth * u / (1 - depth * u);
      const long double bound = gamma * sumabs + 2 * atomics * limits.min_normal + sumabs * 0x1p-60L;
      const long double err = std::fabs(got - exact);
      if (!(err <= bound)) {
        return where() + fmt::format(" but the exact sum is {:.21g}: error {:.3g} exceeds the bound {:.3g} "
                                   "(gamma_{} * sum|x| = {:.3g}, plus flushing slack)",
                                   exact, err, bound, depth, gamma * sumabs);
      }
    }
    // Integers below 2^(mantissa+1): every partial sum is exact, whatever the order.
    const long double exact_limit = std::ldexp(1.0L, limits.digits);
    if (integral && sumabs <= exact_limit && got != exact) {
      return where() + fmt::format(" but every term is an integer and every partial sum is exact: it must be {:.21g}",
                                 exact);
    }
    return {};
  }
}

template <class T>
Finding check_sum_t(const Workload& w, const Setup& s, const History& h) {
  const AlgoInfo& a = *w.impl->algo;
  const auto& spec = w.spec;
  const algo::SumForm form = a.traits_as<algo::SumTraits>().form;
  const SumIssuers<T> iss = sum_issuers<T>(w, s, form);
  // The oracle the issue states: exact integers, bounded floats.
  std::vector<std::vector<uint64_t>> terms(s.param);
  for (uint64_t e = 0; e < w.ops(); ++e) terms[s.key[e]].push_back(e);
  std::vector<uint64_t> atomics(s.param, 0);
  for (uint32_t j : iss.acc) ++atomics[j];
  uint32_t log2_block = 0;
  while ((1u << log2_block) < spec.block) ++log2_block;
  // An atomic with its own phi (a saturating add, say) is held to that phi
  // alone, by the chain below: the exact and bounded sums assume the usual add.
  for (uint32_t j = 0; j < s.param && !a.atomic().own_phi; ++j) {
    uint64_t depth = 0;
    switch (form) {
      case algo::SumForm::Element: depth = terms[j].size() + 1; break;
      case algo::SumForm::Thread: depth = spec.ops_per_thread + atomics[j]; break;
      case algo::SumForm::Block: depth = spec.ops_per_thread + log2_block + atomics[j]; break;
      default: depth = spec.ops_per_thread + 5 + atomics[j]; break;
    }
    const std::string why = sum_numeric<T>(w, s, h, j, terms[j], atomics[j], depth);
    if (!why.empty()) {
      Finding f = make_finding(FindingKind::WrongOutput, why, -1, j);
      f.value_kind = vk_of<T>();
      f.observed = h.final_mem[j];
      return f;
    }
  }
  // Bitwise: the atomic's returned values must chain the form's partial sums
  // in some order (its phi, flushing included).
  std::vector<uint64_t> old;
  for (uint64_t e : iss.elem) old.push_back(h.old[e]);
  return check_chain("the partial sums' atomics", a.atomic(), iss.acc, iss.arg, old, s.mem_init, h.final_mem,
                     iss.elem);
}


class SumFamily final : public Family {
 public:
  const char* name() const override { return "sum"; }
  uint32_t pattern_mask() const override {
    return pattern_bit(Pattern::Single) | pattern_bit(Pattern::Uniform) | pattern_bit(Pattern::PerBlock);
  }
  const char* pattern_rule() const override { return "sums use single, uniform (k accumulators) or per_block"; }
  Domain value_domain(const Entry& e) const override { return e.algo->atomic().domain; }

  std::optional<Setup> setup(const Workload& w, std::string&) const override {
    const uint64_t n = w.ops();
    Setup s;
    s.key.resize(n);
    s.param = uint32_t(w.mem_elems());
    for (uint64_t e = 0; e < n; ++e) s.key[e] = w.block_of(e) % s.param;
    s.mem_init = w.init;
    if (w.impl->algo->traits_as<algo::SumTraits>().form == algo::SumForm::Block)
      s.smem_bytes = w.spec.block * vk_bytes(w.impl->algo->mem_kind);
    return s;
  }

  // Accumulators (sums) and bins (histograms, shared ones merged into
  // global ones) are their keys.
  bool atomic_targets_shared(const Workload& w, const Setup& s) const override {
    return keys_shared_across_blocks(w, s.key);
  }

  Finding check(const Workload& w, const Setup& s, const History& h) const override {
    switch (w.impl->algo->mem_kind) {
      case VK::I32: return check_sum_t<int32_t>(w, s, h);
      case VK::U32: return check_sum_t<uint32_t>(w, s, h);
      case VK::U64: return check_sum_t<unsigned long long>(w, s, h);
      case VK::F32: return check_sum_t<float>(w, s, h);
      case VK::F64: return check_sum_t<double>(w, s, h);
      case VK::F16: return check_sum_t<__half>(w, s, h);
      case VK::BF16: return check_sum_t<__nv_bfloat16>(w, s, h);
      default: return make_finding(FindingKind::WrongOutput, "sum over an unsupported type");
    }
  }

  Semantics semantics(const Entry&, const Entry& atomic) const override {
    Semantics s = algorithm_semantics(atomic, "accumulator = init + its elements: integers exact; floats: a sequential order of the form's "
            "partial sums (checked bitwise on the atomic's returned values), within gamma_d * sum|x| of the exact "
            "sum (d: the form's longest chain of additions), and exact where every partial sum is exact");
    s.nan = "a NaN among the terms gives a NaN; +inf and -inf together give a NaN";
    s.subnormals = atomic.sem.subnormals;
    s.wrap = vk_is_float(atomic.kind) ? kNA : kIntWrap;
    return s;
  }
};

}  // namespace

ATOMSTRESS_FAMILY(SumFamily)

}  // namespace atomstress::families
