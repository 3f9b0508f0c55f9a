// Kernel entries (harness/kernel/): a user's own kernel and its property.
// Trial meaning: the spec is the case's seed, geometry, key contention
// (every pattern is a key shape: kernel/draws.hpp), values and stress; the
// kernel's runner runs the property, and the oracle is the property's verdict.
#include "harness/backend/backend.hpp"
#include "harness/check/families/chain.hpp"
#include "harness/kernel/kernel_entry.hpp"

namespace atomstress::families {

namespace {

class KernelFamily final : public Family {
 public:
  // Generated cases: sizes up to about a million elements.
  uint64_t max_ops() const override { return uint64_t(1) << 20; }
  const char* name() const override { return "kernel"; }
  const char* pattern_rule() const override {
    return "a kernel's keys: single all equal, uniform, zipf, same_line few hot, per_line sorted, per_page "
           "reversed, per_warp and per_block one key per run";
  }
  const char* hang_cause() const override { return "the kernel does not terminate"; }
  // The property's host code (its draws, copies and oracle): 5 s, plus
  // 10 us per op (a case's sizes are at most its op count, about 2^20:
  // 15 s more; an n log n oracle takes well under a second there).
  uint64_t host_code_ms(uint64_t ops) const override { return kKernelHostCodeBaseMs + ops / 100; }
  // A user's kernel runs outside any call scope: no loop of it reports what
  // its word did, so none is given time past the watchdog.
  uint64_t queue_wait_ms(const Entry&, uint64_t) const override { return 0; }

  std::optional<Setup> setup(const Workload&, std::string&) const override { return Setup{}; }

  Finding check(const Workload&, const Setup&, const History& h) const override {
    return h.own_finding ? *h.own_finding : Finding{};
  }

  // Whether blocks share words is the kernel's business: no scope rule.
  bool atomic_targets_shared(const Workload&, const Setup&) const override { return false; }

  Semantics semantics(const Entry&, const Entry& atomic) const override {
    return algorithm_semantics(atomic, "the property registered with the kernel (ATOMSTRESS_KERNEL)");
  }
};

}  // namespace

ATOMSTRESS_FAMILY(KernelFamily)

}  // namespace atomstress::families
