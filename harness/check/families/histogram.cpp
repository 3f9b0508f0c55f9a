// Histograms: one atomic per element on global bins, or privatised
// shared-memory bins merged with one atomic per bin.  Trial meaning: the
// workload's addresses are the bins (every pattern).  Oracle: exact counts.
#include <vector>

#include "atomics_under_test/algorithms/forms.cuh"
#include "harness/backend/backend.hpp"
#include "harness/check/families/chain.hpp"
#include "harness/check/families/scope.hpp"

namespace atomstress::families {

namespace {

class HistogramFamily final : public Family {
 public:
  const char* name() const override { return "histogram"; }
  // Privatised bins stay within 32 KiB of shared memory in a generated trial.
  uint64_t max_region_bytes(const Entry& entry) const override {
    return entry.algo->traits_as<algo::HistogramTraits>().shared_bins ? 32768 : 0;
  }

  std::optional<Setup> setup(const Workload& w, std::string& error) const override {
    const AlgoInfo& a = *w.impl->algo;
    const unsigned mbytes = vk_bytes(a.mem_kind);
    Setup s;
    s.key = w.addr;  // the bin
    s.param = uint32_t(w.mem_elems());
    s.mem_init = w.init;
    if (a.traits_as<algo::HistogramTraits>().shared_bins) {
      const uint64_t bytes = uint64_t(s.param) * mbytes;
      if (bytes > kMaxSharedBytes) {
        error = "impossible geometry: " + std::to_string(s.param) + " privatised bins of " + std::to_string(mbytes) +
                " bytes need " + std::to_string(bytes) + " bytes of shared memory per block (limit 227 KiB)";
        return std::nullopt;
      }
      s.smem_bytes = uint32_t(bytes);
    }
    return s;
  }

  // Accumulators (sums) and bins (histograms, shared ones merged into
  // global ones) are their keys.
  bool atomic_targets_shared(const Workload& w, const Setup& s) const override {
    return keys_shared_across_blocks(w, s.key);
  }

  Finding check(const Workload& w, const Setup& s, const History& h) const override {
    const VK k = w.impl->algo->mem_kind;
    std::vector<uint64_t> count(s.param, 0);
    for (uint32_t b : s.key) ++count[b];
    for (uint32_t b = 0; b < s.param; ++b) {
      const uint64_t want = (s.mem_init[b] + count[b]) & width_mask(k), got = h.final_mem[b];
      if (got != want) {
        const int64_t lost = int64_t((want - got) & width_mask(k));
        Finding f = make_finding(
            FindingKind::WrongOutput,
            "bin " + std::to_string(b) + " holds " + fmt(k, got) + " but init " + fmt(k, s.mem_init[b]) + " + " +
                std::to_string(count[b]) + " elements is " + fmt(k, want) +
                (lost > 0 && uint64_t(lost) <= count[b] ? " (" + std::to_string(lost) + " increments lost)" : ""),
            -1, b);
        f.value_kind = k;
        f.expected = want;
        f.observed = got;
        return f;
      }
    }
    return {};
  }

  Semantics semantics(const Entry&, const Entry& atomic) const override {
    Semantics s = algorithm_semantics(atomic, "bin = init + number of its elements, exact (wrapping)");
    return s;
  }
};

}  // namespace

ATOMSTRESS_FAMILY(HistogramFamily)

}  // namespace atomstress::families
