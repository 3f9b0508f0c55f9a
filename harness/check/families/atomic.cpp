// The family of single atomics: each op is one call of the atomic on its
// address.  Oracle: the scope rule, the wrap rule, then the Eulerian checker
// over every returned value and the final memory (a user's void update,
// which returns nothing: its final memory, check/void_updates.hpp).
#include <algorithm>
#include <vector>

#include "harness/backend/backend.hpp"
#include "harness/check/checker.hpp"
#include "harness/check/inference.hpp"
#include "harness/check/families/chain.hpp"
#include "harness/check/void_updates.hpp"

namespace atomstress::families {

namespace {

// Scope: a block-scope atomic is atomic only among the threads of one block.
// If another block touches the same address, the accesses race (PTX memory
// model), whether or not this run happened to lose an update.
Finding scope_rule(const Workload& w, const History& h) {
  if (w.spec.space != Space::Global) return {};
  std::vector<uint32_t> owner(w.mem_elems(), UINT32_MAX);
  std::vector<uint8_t> shared_by_blocks(w.mem_elems(), 0);
  for (uint64_t o = 0; o < w.ops(); ++o) {
    const uint32_t e = w.addr[o], blk = w.block_of(o);
    if (owner[e] == UINT32_MAX) owner[e] = blk;
    else if (owner[e] != blk) shared_by_blocks[e] = 1;
  }
  for (uint64_t o = 0; o < w.ops(); ++o) {
    const uint32_t e = w.addr[o];
    if ((h.gave_up[o] & kBlockScopeBit) && shared_by_blocks[e])
      return make_finding(FindingKind::ScopeViolation,
                          "address " + std::to_string(e) + ": op #" + std::to_string(o) + " (block " +
                              std::to_string(w.block_of(o)) +
                              ") used a block-scope atomic on an address that threads of other blocks also update: "
                              "a data race under the PTX memory model (scope violation), whatever this run returned",
                          int64_t(o), e);
  }
  return {};
}

// Wraparound counters: every returned value is within [0, limit] for some
// limit used at its address, or is the address's initial value.
Finding wrap_rule(const Workload& w, const History& h) {
  if (w.impl->domain != Domain::IncDec) return {};
  std::vector<uint64_t> max_lim(w.mem_elems(), 0);
  for (uint64_t o = 0; o < w.ops(); ++o) max_lim[w.addr[o]] = std::max(max_lim[w.addr[o]], w.a[o]);
  for (uint64_t o = 0; o < w.ops(); ++o) {
    const uint32_t e = w.addr[o];
    if (h.old[o] > max_lim[e] && h.old[o] != w.init[e]) {
      Finding f = make_finding(FindingKind::WrapRange,
                               "address " + std::to_string(e) + ": op #" + std::to_string(o) + " returned " +
                                   std::to_string(h.old[o]) + ", above every wrap limit used there (at most " +
                                   std::to_string(max_lim[e]) + ") and not the initial value " +
                                   std::to_string(w.init[e]),
                               int64_t(o), e);
      f.value_kind = w.impl->kind;
      f.observed = h.old[o];
      f.expected = max_lim[e];
      return f;
    }
  }
  return {};
}

class AtomicFamily final : public Family {
 public:
  const char* name() const override { return "atomic"; }
  bool shared_space_ok() const override { return true; }
  bool profiles_addresses() const override { return true; }
  std::optional<Setup> setup(const Workload& w, std::string&) const override {
    Setup s;  // the key is the workload's address
    s.mem_init = w.init;
    if (w.spec.space == Space::Shared) s.smem_bytes = uint32_t(uint64_t(w.region_elems) * vk_bytes(w.impl->kind));
    return s;
  }
  Finding check(const Workload& w, const Setup&, const History& h) const override {
    if (Finding f = scope_rule(w, h); !f.ok()) return f;
    if (Finding f = wrap_rule(w, h); !f.ok()) return f;
    if (w.impl->returns_nothing) return judge_void_updates(w, h, w.spec.space == Space::Shared);
    CheckInput in;
    in.impl = w.impl;
    in.addr = w.addr;
    in.a = w.a;
    in.b = w.b;
    in.old = h.old;
    in.init = w.init;
    in.final_mem = h.final_mem;
    in.shared = w.spec.space == Space::Shared;
    in.threads = uint32_t(std::min<uint64_t>(w.spec.threads(), UINT32_MAX));
    const CheckResult r = check_history(in);
    if (r.ok) return {};
    Finding f = make_finding(FindingKind::Unexplained, r.explanation, r.bad_op, r.bad_addr);
    f.value_kind = w.impl->kind;
    if (r.bad_op >= 0 && size_t(r.bad_op) < h.old.size()) f.observed = h.old[size_t(r.bad_op)];
    // Concurrent or not: where another spec of the op explains every
    // returned value and the final memory, the code may implement that
    // spec; the diagnosis believes it only where the ops alone agree.
    f.explaining_specs = specs_explaining_history(in);
    if (!f.explaining_specs.empty()) {
      const std::string& other = f.explaining_specs.front();
      const Entry& e = *w.impl;
      const std::string spec = e.registered_spec ? e.registered_spec : e.buggy() ? "its spec" : e.name;
      f.cls = FailureClass::Semantics;
      f.inference = "matches: " + other + " (every returned value and the final memory); differs from " + spec;
      f.trace.push_back(std::string(kSeenMark) + "no order of the ops explains the history under " + spec + ", but one does under \"" + other +
                        "\": the code implements that rule, not a lost update");
    }
    return f;
  }
  Semantics semantics(const Entry& entry, const Entry&) const override { return entry.sem; }
};

}  // namespace

ATOMSTRESS_FAMILY(AtomicFamily)

}  // namespace atomstress::families
