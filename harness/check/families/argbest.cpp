// Argmax / argmin: value and index packed in one 64-bit word, by a CAS loop
// with float compares or one atomicMax/atomicMin on an order-preserving key.
// Trial meaning: the elements' first operands are the values (floats), the
// single pattern.  Oracle: the sequential answer under the form's policy (NaN
// never wins, ties to the lowest index, -0 == +0 for cas, -0 < +0 for max/min).
#include <algorithm>
#include <cmath>

#include "atomics_under_test/algorithms/forms.cuh"
#include "harness/backend/backend.hpp"
#include "harness/check/families/chain.hpp"
#include "harness/registry/bits.hpp"

namespace atomstress::families {

namespace {

uint64_t empty_word(const algo::ArgBestTraits& a) { return a.is_cas || !a.is_max ? ~0ull : 0ull; }

std::string describe_winner(const algo::ArgBestTraits& a, uint64_t word) {
  if (word == empty_word(a)) return "no winner";
  uint32_t vb = uint32_t(word >> 32), idx = uint32_t(word);
  if (!a.is_cas) {
    vb = (vb & 0x80000000u) ? (vb & 0x7fffffffu) : ~vb;  // undo the ordering
    if (a.is_max) idx = ~idx;
  }
  return "value " + fmt(VK::F32, vb) + " at element " + std::to_string(idx);
}

class ArgBestFamily final : public Family {
 public:
  const char* name() const override { return "argbest"; }
  uint32_t pattern_mask() const override { return pattern_bit(Pattern::Single); }
  const char* pattern_rule() const override { return "this family uses the single pattern"; }
  VK value_kind(const Entry&) const override { return VK::F32; }
  Domain value_domain(const Entry&) const override { return Domain::Float; }

  std::optional<Setup> setup(const Workload& w, std::string&) const override {
    Setup s;
    s.mem_init = {empty_word(w.impl->algo->traits_as<algo::ArgBestTraits>())};
    return s;
  }

  Finding check(const Workload& w, const Setup& s, const History& h) const override {
    const auto& a = w.impl->algo->traits_as<algo::ArgBestTraits>();
    uint64_t want = s.mem_init[0];
    bool have = false;
    float best = 0;
    for (uint64_t e = 0; e < w.ops(); ++e) {
      const uint32_t vb = uint32_t(w.a[e]);
      const float v = from_bits<float>(vb);
      if (std::isnan(v)) continue;
      if (a.is_cas) {
        // Elements in index order: a tie never replaces (lowest index wins);
        // -0 and +0 compare equal.
        if (!have || (a.is_max ? v > best : v < best)) {
          have = true;
          best = v;
          want = (uint64_t(vb) << 32) | uint32_t(e);
        }
      } else {
        const uint64_t key = (uint64_t(algo::ordered_bits(v)) << 32) | (a.is_max ? ~uint32_t(e) : uint32_t(e));
        want = a.is_max ? std::max(want, key) : std::min(want, key);
      }
    }
    const uint64_t got = h.final_mem[0];
    if (got == want) return {};
    Finding f = make_finding(FindingKind::WrongOutput,
                             std::string("the ") + (a.is_max ? "max" : "min") + " word holds " +
                                 describe_winner(a, got) + " but the sequential answer is " + describe_winner(a, want),
                             -1, 0);
    f.value_kind = VK::U64;
    f.expected = want;
    f.observed = got;
    return f;
  }

  Semantics semantics(const Entry& entry, const Entry& atomic) const override {
    const auto& a = entry.algo->traits_as<algo::ArgBestTraits>();
    Semantics s = algorithm_semantics(atomic, a.is_max ? "the (value, index) of the largest value" : "the (value, index) of the smallest value");
    s.nan = "NaN never wins; no winner if every value is NaN";
    s.signed_zero = a.is_cas ? "-0 == +0 (float compare): a tie" : "-0 < +0 (ordered integer key)";
    s.wrap = "ties go to the lowest index";
    return s;
  }
};

}  // namespace

ATOMSTRESS_FAMILY(ArgBestFamily)

}  // namespace atomstress::families
