// Message passing through a flag (algorithms/weak_memory.cuh): each element
// writes its data word, raises its flag, and reads its partner's message if
// the partner's flag comes within its polls.  Trial meaning: the single
// pattern (the form lays out its flags and data).  Oracle: a receiver that
// saw the flag read the data the sender wrote before raising it, and after
// the kernel every flag is raised over its sender's data.
#include <vector>

#include "atomics_under_test/algorithms/weak_memory.cuh"
#include "harness/backend/backend.hpp"
#include "harness/check/families/chain.hpp"

namespace atomstress::families {

namespace {

class MessageFamily final : public Family {
 public:
  const char* name() const override { return "message"; }
  uint32_t pattern_mask() const override { return pattern_bit(Pattern::Single); }
  const char* pattern_rule() const override { return "this family uses the single pattern"; }

  std::optional<Setup> setup(const Workload& w, std::string& error) const override {
    const uint64_t n = w.ops();
    if (2 * n * 4 > kMaxTrialMemBytes) {
      error = "impossible geometry: the messages' flags and data exceed the 1 GiB trial memory";
      return std::nullopt;
    }
    Setup s;
    s.mem_init.assign(2 * n, 0);
    return s;
  }

  Finding check(const Workload& w, const Setup&, const History& h) const override {
    const auto& spec = w.spec;
    const uint64_t n = w.ops(), threads = spec.threads();
    for (uint64_t e = 0; e < n; ++e) {
      const uint64_t flag = h.final_mem[e], data = h.final_mem[n + e];
      if (flag != 1 || data != algo::message_value(e)) {
        Finding f = make_finding(FindingKind::WrongOutput,
                                 "message " + std::to_string(e) + " ends with flag " + std::to_string(flag) +
                                     " and data " + std::to_string(data) + " (sent: flag 1, data " +
                                     std::to_string(algo::message_value(e)) + ")",
                                 int64_t(e), int64_t(e));
        f.value_kind = VK::U32;
        f.expected = algo::message_value(e);
        f.observed = data;
        return f;
      }
    }
    for (uint64_t e = 0; e < n; ++e) {
      if ((h.old[e] & algo::kMessageSeen) == 0) continue;  // the flag did not come in time: nothing read
      const uint64_t t = e % threads, k = e / threads;
      const uint64_t p = k * threads + algo::message_partner(t, spec.grid, spec.block);
      const uint32_t got = uint32_t(h.old[e]), sent = algo::message_value(p);
      if (got != sent) {
        Finding f = make_finding(
            FindingKind::WrongOutput,
            "thread " + std::to_string(t) + " saw the flag of message " + std::to_string(p) + " (thread " +
                std::to_string(p % threads) + ") raised, then read its data as " + std::to_string(got) + ", not the " +
                std::to_string(sent) + " written before the flag: the data store became visible after the flag",
            int64_t(e), int64_t(p));
        f.ops.push_back(int64_t(p));
        f.value_kind = VK::U32;
        f.expected = sent;
        f.observed = got;
        return f;
      }
    }
    return {};
  }

  Semantics semantics(const Entry&, const Entry& atomic) const override {
    Semantics s = algorithm_semantics(atomic, "a receiver that sees a message's flag reads the data written before it; "
                                              "every flag raised over its data at the end");
    s.scope = Scope::Device;
    return s;
  }
};

}  // namespace

ATOMSTRESS_FAMILY(MessageFamily)

}  // namespace atomstress::families
