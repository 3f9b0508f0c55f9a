// Spin locks from atomicCAS(l, 0, 1) or atomicExch(l, 1) around a plain
// read-modify-write.  Trial meaning: the workload's addresses are the locks
// (per block for block-scope locks); each element adds its operand to its
// lock's data word.  Oracle: every lock released, and the values read inside
// the critical sections chain like an atomic add's returned values (a lost
// update is two sections that read the same value).
#include <algorithm>
#include <vector>

#include "atomics_under_test/algorithms/forms.cuh"
#include "harness/backend/backend.hpp"
#include "harness/check/families/chain.hpp"
#include "harness/check/families/scope.hpp"

namespace atomstress::families {

namespace {

class LockFamily final : public Family {
 public:
  const char* name() const override { return "lock"; }
  VK value_kind(const Entry&) const override { return VK::U32; }
  bool profiles_addresses() const override { return true; }
  const char* hang_cause() const override {
    return "the spin lock was never acquired (starvation, or a lock never released)";
  }
  // A lock handed on is slow, not stuck: a ticket lock's waiter that sees
  // other tickets served, and on the GPU any lock's waiter that sees its
  // lock pass among others (prim::Retry::lock_slot), may wait four
  // watchdogs more.
  uint64_t queue_wait_ms(const Entry&, uint64_t watchdog_ms) const override { return 4 * watchdog_ms; }
  LiveWait live_wait() const override {
    return {"waiting for a lock that kept passing among other ops",
            "its lock was handed on until then (an unfair lock may pass a waiter over), so"};
  }

  // The lock words: per block with block-scope locks, else shared by the
  // blocks whose elements take the same lock.
  bool atomic_targets_shared(const Workload& w, const Setup& s) const override {
    return !w.impl->algo->traits_as<algo::LockTraits>().block_scope && keys_shared_across_blocks(w, s.key);
  }

  std::optional<Setup> setup(const Workload& w, std::string& error) const override {
    const auto& a = w.impl->algo->traits_as<algo::LockTraits>();
    Setup s;
    s.key = w.addr;  // the lock
    s.param = uint32_t(w.mem_elems());
    const uint64_t locks = a.block_scope ? uint64_t(s.param) * w.spec.grid : s.param;
    if (2 * locks * 4 > kMaxTrialMemBytes) {
      error = "impossible geometry: per-block locks exceed the 1 GiB trial memory";
      return std::nullopt;
    }
    if (a.ticket && w.ops() > 0xffff) {
      error = "impossible geometry: a ticket lock's 16-bit tickets allow at most 65535 critical sections";
      return std::nullopt;
    }
    s.mem_init.assign(2 * locks, 0);
    for (uint64_t j = 0; j < locks; ++j) s.mem_init[locks + j] = w.init[j % s.param];
    return s;
  }

  Finding check(const Workload& w, const Setup& s, const History& h) const override {
    const auto& a = w.impl->algo->traits_as<algo::LockTraits>();
    const uint64_t locks = s.mem_init.size() / 2;
    for (uint64_t j = 0; j < locks; ++j) {
      // A ticket lock is free when every ticket taken was served.
      const uint64_t word = h.final_mem[j];
      const bool held = a.ticket ? (word >> 16) != (word & 0xffffu) : word != 0;
      if (held) {
        Finding f = make_finding(FindingKind::LockHeld,
                                 "lock " + std::to_string(j) + " is still held after the kernel (word " +
                                     std::to_string(word) + (a.ticket ? ": tickets taken != served" : "") + ")",
                                 -1, int64_t(j));
        f.value_kind = VK::U32;
        f.expected = a.ticket ? (word >> 16) * 0x10001u : 0;
        f.observed = word;
        return f;
      }
    }
    // The protected update is an add emulated by the lock.
    const Entry* add = find_impl("native.add.u32");
    const uint64_t n = w.ops();
    std::vector<uint32_t> addr(n);
    std::vector<uint64_t> arg(n);
    for (uint64_t e = 0; e < n; ++e) {
      addr[e] = uint32_t((a.block_scope ? uint64_t(w.block_of(e)) * s.param : 0) + s.key[e]);
      arg[e] = w.a[e] & 0xffffffffu;
    }
    return check_chain("the protected data (a lost update?)", *add, addr, arg, h.old,
                       std::span<const uint64_t>(s.mem_init).subspan(locks),
                       std::span<const uint64_t>(h.final_mem).subspan(locks), {},
                       uint32_t(std::min<uint64_t>(w.spec.threads(), UINT32_MAX)));
  }

  // At most 2^14 serialised critical sections in a generated trial.
  uint64_t max_ops() const override { return uint64_t(1) << 14; }

  Semantics semantics(const Entry&, const Entry& atomic) const override {
    Semantics s = algorithm_semantics(atomic, "no lost update: data[j] = init + sum of its elements' x, the values read in critical sections "
            "form one chain, every lock released");
    s.wrap = kIntWrap;
    s.scope = Scope::Device;
    return s;
  }
};

}  // namespace

ATOMSTRESS_FAMILY(LockFamily)

}  // namespace atomstress::families
