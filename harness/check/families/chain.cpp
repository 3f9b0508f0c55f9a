#include "harness/check/families/chain.hpp"

#include <vector>

#include "harness/check/checker.hpp"

namespace atomstress::families {

Finding check_chain(const char* what, const Entry& atomic, std::span<const uint32_t> addr,
                    std::span<const uint64_t> arg, std::span<const uint64_t> old, std::span<const uint64_t> init,
                    std::span<const uint64_t> fin, std::span<const uint64_t> elem, uint32_t threads) {
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
