#include "harness/check/sequential.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "harness/backend/backend.hpp"
#include "harness/check/inference.hpp"
#include "harness/registry/registry.hpp"
#include "harness/workload/workload.hpp"

namespace atomstress {

std::string operands_text(const Entry& e, uint64_t a, uint64_t b) {
  const VK k = e.kind;
  if (e.op == Op::Cas) return "compare=" + format_value(k, b) + ", val=" + format_value(k, a);
  if (e.op == Op::Inc || e.op == Op::Dec) return "limit=" + format_value(k, a);
  return "a=" + format_value(k, a);
}

std::string op_call_text(const Entry& e, uint64_t old, uint64_t a, uint64_t b) {
  return std::string(op_word(e.op)) + "(old=" + format_value(e.kind, old) + ", " + operands_text(e, a, b) + ")";
}

namespace {
// What judge_sequential's steps read: the program, its run, and for each op
// the next op on its address.
struct ReplayInput {
  const Workload& w;
  const Entry& e;
  const History& h;
  const std::vector<uint32_t>& addr;
  const std::vector<uint64_t>& init;  // the memory before the run
  std::vector<uint64_t> next;  // the next op on the same address, or UINT64_MAX
  uint64_t n = 0;              // the ops replayed
};

// What each op stored: the next op on its address returned it (alone,
// nothing else ran in between), or the final memory holds it.
std::vector<uint64_t> next_op_on_address(const std::vector<uint32_t>& addr, uint64_t n, size_t words) {
  std::vector<uint64_t> next(n, UINT64_MAX);
  std::vector<uint64_t> last(words, UINT64_MAX);
  for (uint64_t o = n; o-- > 0;) {
    next[o] = last[addr[o]];
    last[addr[o]] = o;
  }
  return next;
}

// Bytes outside every target: a 16-bit op that wrote its neighbour, say.
// Sets the finding for the first such address.
void find_neighbour_write(const ReplayInput& in, Finding& finding) {
  std::vector<bool> targeted(in.init.size(), false);
  for (uint64_t o = 0; o < in.n; ++o) targeted[in.addr[o]] = true;
  for (uint64_t x = 0; x < in.init.size() && x < in.h.final_mem.size(); ++x) {
    if (targeted[x] || in.e.canon(in.h.final_mem[x]) == in.e.canon(in.init[x])) continue;
    finding = make_finding(FindingKind::Unexplained,
                           "address " + std::to_string(x) + ", which no op targets, changed from " +
                               format_value(in.e.kind, in.init[x]) + " to " + format_value(in.e.kind, in.h.final_mem[x]) +
                               ": an op wrote outside its target",
                           -1, int64_t(x));
    finding.cls = FailureClass::Neighbour;
    finding.trace.push_back(finding.explanation);
    break;
  }
}

// One reading of the replay: the ops as replayed, its first wrong op and
// how many wrong values (stores and returns) it counts.
struct Walk {
  std::vector<ReplayedOp> ops;
  Finding finding;
  uint64_t wrong = 0;
};

// The finding for the first op that stored or returned a wrong value.
Finding wrong_op_finding(const ReplayInput& in, const ReplayedOp& r, uint64_t spec_stores, bool stored_ok,
                         bool returned_ok) {
  const Entry& e = in.e;
  const uint64_t o = r.op, x = r.address;
  const std::string call = op_call_text(e, r.old, r.a, r.b);
  std::string line = "op #" + std::to_string(o) + " (block " + std::to_string(in.w.block_of(o)) + ", thread " +
                     std::to_string(in.w.thread_of(o)) + ", address " + std::to_string(x) + "): " + call +
                     ": the spec stores " + format_value(e.kind, spec_stores) +
                     (e.returns_nothing ? std::string(";") : " and returns " + format_value(e.kind, r.old) + ";");
  if (!stored_ok) line += " stored " + format_value(e.kind, r.stored);
  if (!stored_ok && !returned_ok) line += ",";
  if (!returned_ok) line += " returned " + format_value(e.kind, r.returned);
  Finding finding = make_finding(FindingKind::Unexplained, line, int64_t(o), int64_t(x));
  finding.value_kind = e.kind;
  finding.expected = stored_ok ? r.old : spec_stores;
  finding.observed = stored_ok ? r.returned : r.stored;
  finding.cls = stored_ok ? FailureClass::ReturnValue : FailureClass::Semantics;
  finding.trace.push_back(line);
  return finding;
}

// Whether the memory the spec leaves is the memory left.
bool spec_memory_matches(const ReplayInput& in) {
  std::vector<uint64_t> spec_mem = in.init;
  for (uint64_t o = 0; o < in.n; ++o)
    spec_mem[in.addr[o]] = in.e.phi(spec_mem[in.addr[o]], in.w.a[o], in.w.b[o]);
  for (uint64_t x = 0; x < spec_mem.size() && x < in.h.final_mem.size(); ++x)
    if (in.e.canon(spec_mem[x]) != in.e.canon(in.h.final_mem[x])) return false;
  return true;
}

// Two readings of the replay.  Returns right: each op stored what the next
// op on its address found (or the final memory).  Stores right: each op
// stored what the spec stores, and only returned values can be wrong (a
// code that returns the new value reads wrong at every op the first way).
Walk walk_replay(const ReplayInput& in, bool stores_right) {
  const Entry& e = in.e;
  Walk out;
  std::vector<uint64_t> model = in.init;
  for (uint64_t o = 0; o < in.n; ++o) {
    const uint64_t x = in.addr[o];
    ReplayedOp r;
    r.op = o;
    r.address = x;
    r.old = model[x];
    r.a = in.w.a[o];
    r.b = in.w.b[o];
    r.returned = in.h.old[o];
    const uint64_t spec_stores = e.phi(r.old, r.a, r.b);
    r.stored = stores_right ? spec_stores : in.next[o] != UINT64_MAX ? in.h.old[in.next[o]] : in.h.final_mem[x];
    out.ops.push_back(r);
    const bool stored_ok = e.canon(r.stored) == e.canon(spec_stores);
    // (A void update returns nothing: its "returned" value is the harness's
    // read before the call, the state the previous op left, checked as stored.)
    const bool returned_ok = e.returns_nothing || e.canon(r.returned) == e.canon(r.old);
    model[x] = r.stored;  // from here on, the memory the code left
    if (stored_ok && returned_ok) continue;
    const uint64_t before = out.wrong;
    out.wrong += (stored_ok ? 0 : 1) + (returned_ok ? 0 : 1);  // wrong facts, not wrong ops
    if (before > 0) continue;
    out.finding = wrong_op_finding(in, r, spec_stores, stored_ok, returned_ok);
  }
  // Stores right holds only if the memory the spec leaves is the memory left.
  if (stores_right && !spec_memory_matches(in)) out.wrong = UINT64_MAX;
  return out;
}
}  // namespace

SequentialReplay judge_sequential(const Workload& w, const Setup& s, const History& h) {
  SequentialReplay out;
  const uint64_t n = std::min<uint64_t>(w.ops(), h.old.size());
  const std::vector<uint32_t>& addr = s.key.empty() ? w.addr : s.key;
  const ReplayInput in{w, *w.impl, h, addr, s.mem_init, next_op_on_address(addr, n, s.mem_init.size()), n};
  find_neighbour_write(in, out.finding);
  // The reading with fewer wrong values (stores and returns) is the story;
  // on a tie, the first (a store is observed there).
  Walk by_returns = walk_replay(in, false), by_stores = walk_replay(in, true);
  Walk& story = by_stores.wrong < by_returns.wrong && !in.e.returns_nothing ? by_stores : by_returns;
  out.ops = std::move(story.ops);
  if (out.finding.ok()) out.finding = std::move(story.finding);
  if (out.finding.cls == FailureClass::Semantics || out.finding.cls == FailureClass::ReturnValue)
  {
    out.finding.inference = infer_semantics(in.e, out.ops);
    out.finding.explaining_specs = specs_explaining_ops(in.e, out.ops);
  }
  return out;
}

std::vector<std::string> sequential_table(const Workload& w, const SequentialReplay& r, size_t rows) {
  const Entry& e = *w.impl;
  std::vector<std::string> out;
  out.push_back(fmt::format("{:>6} {:>5} {:>6} {:>7}  {:<14} {:<14} {:<14} {:<14} | {:<14} {:<14}", "op", "block",
                            "thread", "address", e.op == Op::Cas ? "val" : "a", e.op == Op::Cas ? "compare" : "b",
                            "returned", "stored", "spec returns", "spec stores"));
  for (size_t i = 0; i < r.ops.size() && i < rows; ++i) {
    const ReplayedOp& o = r.ops[i];
    const uint64_t st = e.phi(o.old, o.a, o.b);
    const bool void_update = e.returns_nothing;  // its returned column says "none"
    const bool bad =
        e.canon(st) != e.canon(o.stored) || (!void_update && e.canon(o.old) != e.canon(o.returned));
    out.push_back(fmt::format("{:6} {:5} {:6} {:7}  {:<14} {:<14} {:<14} {:<14} | {:<14} {:<14}{}", o.op,
                              w.block_of(o.op), w.thread_of(o.op), o.address, format_value(e.kind, o.a),
                              format_value(e.kind, o.b), void_update ? "none" : format_value(e.kind, o.returned),
                              format_value(e.kind, o.stored), void_update ? "none" : format_value(e.kind, o.old),
                              format_value(e.kind, st), bad ? "  <- differs" : ""));
  }
  if (r.ops.size() > rows) out.push_back("(" + std::to_string(r.ops.size() - rows) + " more ops)");
  return out;
}

}  // namespace atomstress
