#include "harness/check/void_updates.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "harness/backend/backend.hpp"
#include "harness/check/float_sum.hpp"
#include "harness/registry/registry.hpp"
#include "harness/workload/workload.hpp"

namespace atomstress {

namespace {

// The ops on the failing address a finding names (operand_lines prints four).
constexpr uint64_t kOpsNamed = 4;

// The ops on each address, in op order: ops[first[x] .. first[x + 1]).
struct OpsByAddress {
  std::vector<uint64_t> first, ops;
};
OpsByAddress ops_by_address(const Workload& w, uint64_t words) {
  OpsByAddress out;
  out.first.assign(words + 1, 0);
  for (uint64_t o = 0; o < w.ops(); ++o) ++out.first[w.addr[o] + 1];
  for (uint64_t x = 0; x < words; ++x) out.first[x + 1] += out.first[x];
  out.ops.resize(w.ops());
  std::vector<uint64_t> next(out.first.begin(), out.first.end() - 1);
  for (uint64_t o = 0; o < w.ops(); ++o) out.ops[next[w.addr[o]]++] = o;
  return out;
}

std::string holds(const Entry& e, uint64_t x, uint64_t got) {
  return "address " + std::to_string(x) + " holds " + format_value(e.kind, got);
}
std::string updates_text(const Entry& e, size_t n) {
  return "its " + std::to_string(n) + " void " + op_word(e.op) + (n == 1 ? " update" : " updates");
}

// What the address's ops leave, judged; empty when allowed.
std::string complaint_at(const Workload& w, const History& h, bool shared, uint64_t x, const uint64_t* ops, size_t n,
                         std::optional<uint64_t>& expected) {
  const Entry& e = *w.impl;
  const uint64_t init = w.init[x], got = h.final_mem[x];
  if (n == 0) {
    if (e.canon(got) == e.canon(init)) return {};
    expected = init;
    return "address " + std::to_string(x) + ", which no op targets, changed from " + format_value(e.kind, init) +
           " to " + format_value(e.kind, got) + ": an op wrote outside its target";
  }
  if (e.op == Op::Exch) {
    for (size_t i = 0; i < n; ++i)
      if (e.canon(w.a[ops[i]]) == e.canon(got)) return {};
    return holds(e, x, got) + ", which none of " + updates_text(e, n) + " stored";
  }
  if (vk_is_float(e.kind)) {  // an add (final_memory_checkable_without_order)
    const PhiFn phi = e.phi_in(shared);
    SumShape shape;
    shape.adds = phi_flushes_subnormals(phi) ? FloatAdds::AsTheGpu : FloatAdds::StrictIeee;
    FloatSum sum(e.kind, init, shape);
    for (size_t i = 0; i < n; ++i) sum.add(w.a[ops[i]]);
    return sum.complaint(got, holds(e, x, got), "init " + format_value(e.kind, init) + " + " + updates_text(e, n));
  }
  // The integer ops: every order folds to this one value.
  uint64_t want = init;
  for (size_t i = 0; i < n; ++i) want = e.phi_in(shared)(want, w.a[ops[i]], w.b[ops[i]]);
  if (e.canon(want) == e.canon(got)) return {};
  expected = want;
  return holds(e, x, got) + ", but " + updates_text(e, n) + " from " + format_value(e.kind, init) +
         (n == 1 ? " leaves " : " leave ") + format_value(e.kind, want) + " in any order: an update was lost or wrong";
}

}  // namespace

Finding judge_void_updates(const Workload& w, const History& h, bool shared) {
  const uint64_t words = std::min({uint64_t(w.init.size()), uint64_t(h.final_mem.size()), w.mem_elems()});
  const OpsByAddress by = ops_by_address(w, w.mem_elems());
  for (uint64_t x = 0; x < words; ++x) {
    const uint64_t begin = by.first[x], n = by.first[x + 1] - begin;
    std::optional<uint64_t> expected;
    std::string why = complaint_at(w, h, shared, x, by.ops.data() + begin, size_t(n), expected);
    if (why.empty()) continue;
    Finding f = make_finding(FindingKind::Unexplained, std::move(why), -1, int64_t(x));
    for (uint64_t i = 0; i < n && i < kOpsNamed; ++i) f.ops.push_back(int64_t(by.ops[begin + i]));  // their operands are printed
    if (n == 0) f.cls = FailureClass::Neighbour;
    f.value_kind = w.impl->kind;
    f.observed = h.final_mem[x];
    f.expected = expected;
    return f;
  }
  return {};
}

}  // namespace atomstress
