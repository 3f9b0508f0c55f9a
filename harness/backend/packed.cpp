#include "harness/backend/packed.hpp"

#include "harness/trial/patterns.hpp"

#include <algorithm>
#include <numeric>

#include "harness/registry/value_kind.hpp"

namespace atomstress {

namespace {

// splitmix64: the layout's shuffles (any good mixer would do; this one is
// the same on every platform, unlike std::shuffle).
struct Mixer {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
};

constexpr uint32_t kMaxBlockThreads = 1024;

// An open physical block of one kind (shared-memory instances or global).
struct OpenBlock {
  uint32_t index = 0, threads = 0, smem = 0;
  bool open = false;
};

// The placement of logical block `logical` (of `block` threads) of an
// instance from slot `first` on: a multiplier co-prime with the block size
// and an offset, drawn from `mix`.
PackPlacement place_threads(uint64_t first, uint32_t instance, uint32_t logical, uint32_t block, uint32_t smem_elem,
                            Mixer& mix) {
  uint32_t m = 1;
  for (int tries = 0; tries < 8 && block > 2; ++tries) {
    const uint32_t cand = 1 + uint32_t(mix.below(block - 1));
    if (std::gcd(cand, block) == 1) {
      m = cand;
      break;
    }
  }
  const uint32_t c = uint32_t(mix.below(block));
  return PackPlacement{first, instance, logical, block, m, c, smem_elem};
}

}  // namespace

bool packable_spec(const Entry* impl, const TrialSpec& spec) {
  // A stressed trial runs alone: its incantations are launch-wide.
  return impl != nullptr && impl->algo == nullptr && impl->run_cuda_packed != nullptr && !spec.stress.any() &&
         spec.ops() <= kPackMaxOps && spec.block <= kMaxBlockThreads;
}

bool packable(const Workload& w) {
  return packable_spec(w.impl, w.spec) && w.ops() <= kPackMaxOps &&
         w.mem_elems() * vk_bytes(w.impl->kind) <= kPackMaxInstanceBytes;
}

bool copy_back_in_bulk(size_t to_host, size_t instances) {
  // Each copy costs a few microseconds whatever its size; the whole launch's
  // arrays (at most kPackLaunchOps ops) take about as long as a few dozen.
  constexpr size_t kMostSingleCopies = 16;
  return to_host > kMostSingleCopies || (instances > 0 && to_host * 4 > instances);
}

std::optional<PackPlan> plan_pack(std::span<const PackItem> items, uint32_t elem_bytes, uint64_t seed,
                                  uint64_t max_smem_bytes, std::string& error) {
  PackPlan plan;
  if (items.empty() || elem_bytes == 0 || kLineBytes % elem_bytes != 0) {
    error = "packing: nothing to pack, or an element size that does not divide a line";
    return std::nullopt;
  }
  const uint64_t line_elems = kLineBytes / elem_bytes, max_smem_elems = max_smem_bytes / elem_bytes;
  uint32_t widest = 32;
  plan.instances.resize(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const Workload& w = *items[i].w;
    const TrialSpec& s = w.spec;
    const bool shared = s.space == Space::Shared;
    if (s.block == 0 || s.block > kMaxBlockThreads || (shared && w.region_elems > max_smem_elems)) {
      error = "packing: " + describe(s) + " does not fit one block of a packed launch";
      return std::nullopt;
    }
    PackInstance& in = plan.instances[i];
    in.op_base = plan.ops;
    in.mem_base = plan.mem_elems;
    in.threads = uint32_t(s.threads());
    in.per_thread = s.ops_per_thread;
    in.block = s.block;
    in.region_elems = w.region_elems;
    in.shared = shared ? 1u : 0u;
    plan.ops += w.ops();
    const uint64_t words = pack_words(items[i]);
    in.words = uint32_t(words);  // within kPackMaxInstanceBytes
    plan.mem_elems += (words + line_elems - 1) / line_elems * line_elems;  // whole lines: nothing shared
    widest = std::max(widest, s.block);
  }
  plan.block_threads = std::min<uint32_t>(kMaxBlockThreads, std::max<uint32_t>(256, (widest + 31) / 32 * 32));

  // The logical blocks in a shuffled order, placed next-fit, shared-memory
  // blocks and global ones in separate physical blocks.
  struct Logical {
    uint32_t instance, block;
  };
  std::vector<Logical> order;
  for (uint32_t i = 0; i < items.size(); ++i)
    for (uint32_t b = 0; b < items[i].w->spec.grid; ++b) order.push_back({i, b});
  plan.placements.reserve(order.size());
  Mixer mix{seed ^ 0x5eedba5eull};
  for (size_t j = order.size(); j > 1; --j) std::swap(order[j - 1], order[mix.below(j)]);

  OpenBlock open[2];
  for (const Logical& l : order) {
    const PackInstance& in = plan.instances[l.instance];
    const uint32_t need_smem = in.shared ? in.region_elems : 0;
    OpenBlock& ob = open[in.shared];
    if (!ob.open || ob.threads + in.block > plan.block_threads || ob.smem + need_smem > max_smem_elems) {
      ob = OpenBlock{plan.blocks++, 0, 0, true};
    }
    plan.placements.push_back(
        place_threads(size_t(ob.index) * plan.block_threads + ob.threads, l.instance, l.block, in.block, ob.smem, mix));
    ob.threads += in.block;
    ob.smem += need_smem;
    plan.smem_elems = std::max(plan.smem_elems, ob.smem);
  }
  return plan;
}

std::vector<PackSlot> plan_slots(const PackPlan& plan) {
  std::vector<PackSlot> slots(plan.slot_count(), PackSlot{kIdleSlot, 0, 0});
  for (const PackPlacement& p : plan.placements)
    // (t * m + c) mod block, one step at a time (m < block): no division.
    for (uint32_t t = 0, lane = p.c; t < p.block; ++t) {
      slots[p.first + lane] = PackSlot{p.instance, p.logical * p.block + t, p.smem_elem};
      lane += p.m;
      if (lane >= p.block) lane -= p.block;
    }
  return slots;
}

}  // namespace atomstress
