// Append (a parallel filter): loc = atomicAdd(&count, 1); out[loc] = element.
// Trial meaning: zipf_s / 4 of the elements pass the filter (1: a quarter ..
// 4: all), the single pattern.  Oracle: out[0..count) is a permutation of the
// kept elements (no hole, no duplicate, nothing past count), and the
// counter's returned values chain like a sequential history.
#include <algorithm>
#include <vector>

#include "atomics_under_test/algorithms/forms.cuh"
#include "harness/backend/backend.hpp"
#include "harness/check/families/chain.hpp"

namespace atomstress::families {

namespace {

constexpr uint64_t kKeepStream = 40;

class AppendFamily final : public Family {
 public:
  const char* name() const override { return "append"; }
  uint32_t pattern_mask() const override { return pattern_bit(Pattern::Single); }
  const char* pattern_rule() const override { return "this family uses the single pattern"; }

  std::optional<Setup> setup(const Workload& w, std::string&) const override {
    const uint64_t n = w.ops();
    Setup s;
    s.key.resize(n);
    for (uint64_t e = 0; e < n; ++e) s.key[e] = counter_rng(w.spec.seed, kKeepStream, e) % 4 < w.spec.zipf_s;
    s.mem_init = {0};
    s.out_slots = uint32_t(n);
    return s;
  }

  Finding check(const Workload& w, const Setup& s, const History& h) const override {
    const auto& a = w.impl->algo->traits_as<algo::AppendTraits>();
    const auto& spec = w.spec;
    const uint64_t n = w.ops(), threads = spec.threads();
    // The counter's atomics: one per kept element, or one per warp and step.
    std::vector<uint32_t> addr;
    std::vector<uint64_t> arg, old, issuer;
    uint64_t kept = 0;
    for (uint64_t e = 0; e < n; ++e) kept += s.key[e];
    if (!a.warp_agg) {
      for (uint64_t e = 0; e < n; ++e)
        if (s.key[e]) issuer.push_back(e), arg.push_back(1);
    } else {
      for (uint32_t k = 0; k < spec.ops_per_thread; ++k)
        for (uint32_t b = 0; b < spec.grid; ++b)
          for (uint32_t w0 = 0; w0 < spec.block; w0 += 32) {
            const uint32_t width = std::min(32u, spec.block - w0);
            uint64_t leader = ~0ull, votes = 0;
            for (uint32_t l = 0; l < width; ++l) {
              const uint64_t e = uint64_t(k) * threads + uint64_t(b) * spec.block + w0 + l;
              if (s.key[e] && votes++ == 0) leader = e;
            }
            if (votes) issuer.push_back(leader), arg.push_back(votes);
          }
    }
    for (uint64_t e : issuer) addr.push_back(0), old.push_back(h.old[e]);
    const uint64_t count = h.final_mem[0];
    Finding chain = check_chain("the counter's atomic", w.impl->algo->atomic(), addr, arg, old, s.mem_init, h.final_mem, issuer);
    if (!chain.ok()) return chain;
    auto wrong = [&](std::string why, int64_t elem = -1) {
      Finding f = make_finding(FindingKind::WrongOutput, std::move(why), elem);
      f.value_kind = VK::U32;
      return f;
    };
    if (count != kept) {
      Finding f = wrong("count is " + std::to_string(count) + " but the filter keeps " + std::to_string(kept) +
                        " elements");
      f.expected = kept;
      f.observed = count;
      return f;
    }
    std::vector<uint8_t> seen(n, 0);
    for (uint64_t slot = 0; slot < s.out_slots; ++slot) {
      const uint32_t v = h.out[slot];
      if (slot >= count) {
        if (v != kEmptySlot)
          return wrong("slot " + std::to_string(slot) + " past the count " + std::to_string(count) +
                           " was written (element " + std::to_string(v) + ")",
                       v < n ? int64_t(v) : -1);
        continue;
      }
      if (v == kEmptySlot)
        return wrong("slot " + std::to_string(slot) + " below the count " + std::to_string(count) +
                     " was never written: a hole in the output");
      if (v >= n || !s.key[v])
        return wrong("slot " + std::to_string(slot) + " holds element " + std::to_string(v) +
                     ", which the filter does not keep");
      if (seen[v]++)
        return wrong("element " + std::to_string(v) + " appears twice in the output (again in slot " +
                         std::to_string(slot) + "): two appends wrote one slot",
                     int64_t(v));
    }
    return {};
  }

  Semantics semantics(const Entry& entry, const Entry& atomic) const override {
    Semantics s = algorithm_semantics(atomic, "out[0..count) is a permutation of the elements the filter keeps (no hole, no duplicate), "
            "count exact, no slot past count written; the counter's returned values explained by a sequential order");
    (void)entry;
    return s;
  }
};

}  // namespace

ATOMSTRESS_FAMILY(AppendFamily)

}  // namespace atomstress::families
