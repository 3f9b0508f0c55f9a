// The "last block" reduction (algorithms/weak_memory.cuh, CUDA's
// threadFenceReduction sample): blocks store partial sums and take tickets;
// the last ticket's block sums the partials.  Trial meaning: the single
// pattern; the elements' values are u32 integers.  Oracle: every partial is
// its block's sum, the tickets were 0 .. grid-1 once each, the total is the
// sum of every element (wrapping) and the counter is back to 0.
#include <vector>

#include "harness/backend/backend.hpp"
#include "harness/check/families/chain.hpp"

namespace atomstress::families {

namespace {

class LastBlockFamily final : public Family {
 public:
  const char* name() const override { return "last_block"; }
  VK value_kind(const Entry&) const override { return VK::U32; }
  uint32_t pattern_mask() const override { return pattern_bit(Pattern::Single); }
  const char* pattern_rule() const override { return "this family uses the single pattern"; }

  std::optional<Setup> setup(const Workload& w, std::string& error) const override {
    const uint32_t grid = w.spec.grid;
    if ((uint64_t(grid) + 2) * 4 > kMaxTrialMemBytes) {
      error = "impossible geometry: the partial sums exceed the 1 GiB trial memory";
      return std::nullopt;
    }
    Setup s;
    s.mem_init.assign(uint64_t(grid) + 2, 0);
    // Partials start as garbage, so a stale one is seen for what it is.
    for (uint32_t b = 0; b < grid; ++b) s.mem_init[2 + b] = w.init[0] ^ (0x9e3779b9u * (b + 1));
    s.smem_bytes = (w.spec.block + 1) * 4;  // the block's partial sums and the "last block" flag
    return s;
  }

  Finding check(const Workload& w, const Setup& s, const History& h) const override {
    const auto& spec = w.spec;
    const uint64_t threads = spec.threads();
    auto u32 = [](uint64_t v) { return uint32_t(v); };
    std::vector<uint32_t> block_sum(spec.grid, 0);
    uint32_t total = 0;
    for (uint64_t e = 0; e < w.ops(); ++e) {
      const uint32_t x = u32(w.a[e]);
      block_sum[(e % threads) / spec.block] += x;
      total += x;
    }
    auto wrong = [&](std::string why, int64_t addr, uint64_t want, uint64_t got) {
      Finding f = make_finding(FindingKind::WrongOutput, std::move(why), -1, addr);
      f.value_kind = VK::U32;
      f.expected = want;
      f.observed = got;
      return f;
    };
    std::vector<uint8_t> ticket_seen(spec.grid, 0);
    for (uint32_t b = 0; b < spec.grid; ++b) {
      const uint64_t t = h.old[uint64_t(b) * spec.block];
      if (t >= spec.grid || ticket_seen[t]++)
        return wrong("block " + std::to_string(b) + " took ticket " + std::to_string(t) +
                         ", but the tickets of " + std::to_string(spec.grid) + " blocks are 0 .. " +
                         std::to_string(spec.grid - 1) + " once each",
                     0, b, t);
      if (u32(h.final_mem[2 + b]) != block_sum[b])
        return wrong("block " + std::to_string(b) + "'s partial sum is " + std::to_string(u32(h.final_mem[2 + b])) +
                         ", its elements add to " + std::to_string(block_sum[b]),
                     2 + b, block_sum[b], h.final_mem[2 + b]);
    }
    if (u32(h.final_mem[1]) != total)
      return wrong("the last block stored the total " + std::to_string(u32(h.final_mem[1])) +
                       ", but the blocks' partial sums add to " + std::to_string(total) +
                       ": it summed a partial that was not visible yet",
                   1, total, h.final_mem[1]);
    if (h.final_mem[0] != 0)
      return wrong("the block counter ends at " + std::to_string(h.final_mem[0]) + ", not reset to 0", 0, 0,
                   h.final_mem[0]);
    (void)s;
    return {};
  }

  Semantics semantics(const Entry&, const Entry& atomic) const override {
    Semantics s = algorithm_semantics(atomic, "total = sum of every element (wrapping u32), each block's partial its "
                                              "sum, tickets 0 .. grid-1 once each, the counter reset to 0");
    s.wrap = kIntWrap;
    s.scope = Scope::Device;
    return s;
  }
};

}  // namespace

ATOMSTRESS_FAMILY(LastBlockFamily)

}  // namespace atomstress::families
