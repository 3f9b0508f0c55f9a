#include "harness/check/families/chain.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "harness/check/chain_judging.hpp"
#include "harness/check/checker.hpp"

namespace atomstress::families {

namespace {

// The lent judge's verdict on the chain (chain_judging.hpp); nullopt where
// none is lent, it does not take the chain, or it could not judge it.
std::optional<bool> judged_elsewhere(const HostChain& chain) {
  ChainJudging* j = lent_chain_judge();
  if (j == nullptr || j->judge == nullptr || !j->error.empty() || !j->judge->takes(*chain.atomic, chain.addr.size()))
    return std::nullopt;
  DeviceVerdict v;
  if (!j->judge->explains(chain, v, j->error)) return std::nullopt;
  ++j->judged;
  j->device_ms += v.device_ms;
  j->end_s = std::max(j->end_s, v.end_s);
  return v.ok;
}

void note_disagreement(const char* what, bool judge_ok, const CheckResult& host) {
  ChainJudging* j = lent_chain_judge();
  if (j->disagreed) return;
  j->disagreed = true;
  j->judge_ok = judge_ok;
  j->host_explanation = std::string(what) + ": " + (host.ok ? "the host's checker explains them" : host.explanation);
}

}  // namespace

Finding check_chain(const char* what, const Entry& atomic, std::span<const uint32_t> addr,
                    std::span<const uint64_t> arg, std::span<const uint64_t> old, std::span<const uint64_t> init,
                    std::span<const uint64_t> fin, std::span<const uint64_t> elem, uint32_t threads) {
  const std::optional<bool> elsewhere = judged_elsewhere(HostChain{&atomic, addr, arg, old, init, fin});
  if (elsewhere == true && !lent_chain_judge()->both) return {};
  const std::vector<uint64_t> zeros(arg.size(), 0);
  CheckInput in;
  in.impl = &atomic;
  in.addr = addr;
  in.a = arg;
  in.b = zeros;
  in.old = old;
  in.init = init;
  in.final_mem = fin;
  in.threads = threads;
  const CheckResult r = check_history(in);
  if (elsewhere && *elsewhere != r.ok) note_disagreement(what, *elsewhere, r);
  if (r.ok) return {};
  Finding f = make_finding(FindingKind::Unexplained, std::string(what) + ": " + r.explanation, -1, r.bad_addr);
  f.value_kind = atomic.kind;
  if (r.bad_op < 0) return f;
  if (elem.empty()) {
    f.ops.push_back(r.bad_op);
  } else {
    const int64_t e = int64_t(elem[size_t(r.bad_op)]);
    f.ops.push_back(e);
    f.explanation += " (op #" + std::to_string(r.bad_op) + " is element " + std::to_string(e) + ")";
  }
  f.observed = old[size_t(r.bad_op)];
  return f;
}

}  // namespace atomstress::families
