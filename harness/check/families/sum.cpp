// Sums: one atomic per element / per thread (grid-stride partial) / per
// block (shared-memory tree) / per warp (shuffles).  Trial meaning: the
// elements of block b go to accumulator b % k (single: one, uniform: k,
// per_block: one per block).  Oracle: integers exact; floats by the one
// float-sum rule (check/float_sum.hpp: within gamma_d * sum|x| of the exact
// sum, exact where every partial sum is exact, NaN/inf rules, the flushing
// of an atomic whose phi flushes); and bitwise, the atomic's returned values must chain the
// form's partial sums (computed here in the form's fixed order).
#include <cmath>

#include <fmt/format.h>
#include <cstdio>
#include <vector>

#include "atomics_under_test/algorithms/forms.cuh"
#include "harness/backend/backend.hpp"
#include "harness/check/families/chain.hpp"
#include "harness/check/families/scope.hpp"
#include "harness/check/float_sum.hpp"
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
                        const std::vector<uint64_t>& terms, uint64_t atomics, uint64_t depth, PhiFn a_phi) {
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
    // The one float-sum rule (check/float_sum.hpp), with the form's depth:
    // flushing allowed where the atomic's own phi flushes a subnormal.
    const bool flushes = phi_flushes_subnormals(a_phi);
    FloatSum sum(k, s.mem_init[j], {flushes ? FloatAdds::AsTheGpu : FloatAdds::StrictIeee, depth});
    for (uint64_t e : terms) sum.add(w.a[e]);
    return sum.complaint(got_bits, "accumulator " + std::to_string(j) + " holds " + fmt(k, got_bits),
                         "init + its " + std::to_string(atomics) + " atomics' terms");
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
    const std::string why = sum_numeric<T>(w, s, h, j, terms[j], atomics[j], depth,
                                           a.atomic().phi_in(w.spec.space == Space::Shared));
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
