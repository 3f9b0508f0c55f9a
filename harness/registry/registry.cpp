#include "harness/registry/registry.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

namespace atomstress {

// ------------------------------------------------------------------ families
namespace {
std::map<std::string, const Family*>& families() {
  static std::map<std::string, const Family*> m;
  return m;
}
}  // namespace

void register_family(const Family& f) { families()[f.name()] = &f; }
const Family* find_family(const char* name) {
  const auto it = families().find(name);
  return it == families().end() ? nullptr : it->second;
}
VK Family::value_kind(const Entry& entry) const { return entry.algo ? entry.algo->atomic().kind : entry.kind; }
Domain Family::value_domain(const Entry& entry) const { return entry.algo ? Domain::Int : entry.domain; }

uint64_t Entry::canon_nan(uint64_t bits) const { return canonical_nan_bits(kind, bits); }

// ------------------------------------------------------------ the catalogue
namespace {
struct Store {
  std::deque<EntryDraft> drafts;  // stable: entries point into them
  std::deque<AlgoInfo> algos;
  std::deque<Entry> implicit_atomics;
  std::vector<Entry> table;
  // The table by name: find_impl is asked once per trial, thousands of
  // times a second for packed instances.
  std::unordered_map<std::string_view, const Entry*> by_name;
  // Built once, on first read: from whichever threads read it first at once
  // (run_packed_trials expands its specs on many), every one waits for the
  // whole table.  `built` alone is read by register_entry, at static
  // initialisation.
  std::once_flag build_once;
  std::atomic<bool> built{false};
};
Store& store() {
  static Store s;
  return s;
}

[[noreturn]] void internal_error(const std::string& what) {
  std::fputs(("atomstress: internal error: " + what + "\n").c_str(), stderr);
  std::abort();
}
// A user's registration that cannot stand (a spec that is no entry, a type
// that does not match it): the program cannot run any entry honestly.
[[noreturn]] void registration_error(const std::string& what) {
  std::fputs(("atomstress: error: " + what + "\n").c_str(), stderr);
  std::exit(2);
}


// A user's entry that names a built-in spec takes it whole; forms paired with
// it at compile time (from the spec's name) stay only if the spec's scope and
// memory spaces allow them.
void resolve_named_specs(Store& st) {
  std::map<std::string, EntryDraft*> by_name;
  for (auto& d : st.drafts) by_name[d.name] = &d;
  for (auto& d : st.drafts) {
    if (d.spec_from.empty()) continue;
    const auto it = by_name.find(d.spec_from);
    if (it == by_name.end() || it->second->is_algorithm || !it->second->spec_from.empty())
      registration_error("entry '" + d.name + "' names spec '" + d.spec_from +
                         "', which is not a built-in single atomic (see `atomstress list --impl atomics`)");
    const Entry& spec = it->second->entry;
    if (spec.buggy())
      registration_error("entry '" + d.name + "' names spec '" + d.spec_from + "', a deliberately wrong entry");
    Entry& e = d.entry;
    if (e.kind != spec.kind)
      registration_error("entry '" + d.name + "' works on " + vk_name(e.kind) + " but its spec '" + d.spec_from +
                         "' on " + vk_name(spec.kind));
    if (e.op != spec.op)
      registration_error("entry '" + d.name + "': spec '" + d.spec_from + "' is a '" + op_word(spec.op) +
                         "', not a '" + op_word(e.op) + "'");
    e.domain = spec.domain;
    e.sem = spec.sem;
    e.phi = spec.phi;
    e.phi_shared = spec.phi_shared;
    // (The device oracle reads returned values; a void update has none.)
    if (!e.returns_nothing) e.device_edges = spec.device_edges;
  }
  std::set<std::string> unfit;
  for (const auto& d : st.drafts) {
    if (!d.is_algorithm || d.atomic_name.empty()) continue;
    const auto it = by_name.find(d.atomic_name);
    if (it == by_name.end() || it->second->spec_from.empty()) continue;
    const Semantics& s = it->second->entry.sem;
    if (s.scope == Scope::Block || !s.global_ok || (d.needs_shared_atomic && !s.shared_ok)) unfit.insert(d.name);
  }
  std::erase_if(st.drafts, [&](const EntryDraft& d) { return unfit.count(d.name) != 0; });
}

void build(Store& st) {
  resolve_named_specs(st);
  std::vector<EntryDraft*> order;
  for (auto& d : st.drafts) order.push_back(&d);
  std::stable_sort(order.begin(), order.end(), [](const EntryDraft* x, const EntryDraft* y) {
    return x->order != y->order ? x->order < y->order : x->name < y->name;
  });
  std::map<std::string, const EntryDraft*> by_name;
  for (const EntryDraft* d : order)
    if (!by_name.emplace(d->name, d).second) internal_error("two entries are named '" + d->name + "'");
  st.table.reserve(order.size());
  // Single atomics first (algorithms point at them), then the algorithms.
  std::map<std::string, size_t> index;
  for (EntryDraft* d : order) {
    Entry e = d->entry;
    e.name = d->name.c_str();
    e.family = find_family(d->family.c_str());
    if (!e.family) internal_error("entry '" + d->name + "' names an unknown family '" + d->family + "'");
    e.index = st.table.size();
    index[d->name] = e.index;
    st.table.push_back(e);
  }
  for (EntryDraft* d : order) {
    Entry& e = st.table[index[d->name]];
    if (d->is_algorithm) {
      st.algos.push_back(d->algo);
      AlgoInfo& a = st.algos.back();
      if (d->implicit_atomic) {
        st.implicit_atomics.push_back(*d->implicit_atomic);
        a.atomic_entry = &st.implicit_atomics.back();
      } else {
        const auto it = index.find(d->atomic_name);
        if (it == index.end()) internal_error("algorithm '" + d->name + "' is built on an unknown atomic");
        a.atomic_entry = &st.table[it->second];
      }
      e.algo = &a;
      e.phi = a.atomic().phi;
      e.phi_shared = a.atomic().phi_shared;
      e.kind = e.family->value_kind(e);
      e.domain = e.family->value_domain(e);
      e.sem = e.family->semantics(e, a.atomic());
      // The user's code runs inside the form: what it hides, the form hides.
      if (e.not_intercepted == nullptr) e.not_intercepted = a.atomic().not_intercepted;
    }
    Constraints& c = e.limits;
    c.name = e.name;
    c.value_bytes = vk_bytes(e.kind);
    c.block_scope = e.sem.scope == Scope::Block;
    c.algorithm = e.algo != nullptr;
    c.global_ok = e.sem.global_ok;
    c.shared_ok = e.sem.shared_ok && (e.algo == nullptr || e.family->shared_space_ok());
    c.pattern_mask = e.family->pattern_mask();
    c.pattern_rule = e.family->pattern_rule();
    c.max_region_bytes = e.family->max_region_bytes(e);
    c.max_ops = e.family->max_ops();
  }
  for (const Entry& e : st.table) st.by_name.emplace(e.name, &e);
}
}  // namespace

void register_entry(EntryDraft draft) {
  Store& st = store();
  if (st.built) internal_error("entry '" + draft.name + "' registered after the catalogue was read");
  st.drafts.push_back(std::move(draft));
}

const std::vector<Entry>& catalogue() {
  Store& st = store();
  std::call_once(st.build_once, [&st] {
    st.built = true;  // a registration from now on is an internal error
    build(st);
  });
  return st.table;
}

void mark_cpu_unable(size_t index, const char* reason) {
  std::vector<Entry>& table = store().table;
  const Entry* atomic = &table.at(index);
  for (Entry& e : table) {
    if (&e != atomic && !(e.algo != nullptr && e.algo->atomic_entry == atomic)) continue;
    e.gpu_only = true;
    e.gpu_only_reason = reason;
    e.run_cpu = nullptr;
  }
}

const Entry* find_impl(std::string_view name) {
  catalogue();
  const auto& by_name = store().by_name;
  const auto it = by_name.find(name);
  return it == by_name.end() ? nullptr : it->second;
}

std::vector<const Entry*> match_impls(std::string_view pattern) {
  std::vector<const Entry*> out;
  const std::string pat(pattern);
  for (const auto& i : catalogue()) {
    bool take;
    if (pat == "all") take = !i.buggy();
    else if (pat == "atomics") take = !i.buggy() && !i.algo;
    else if (pat == "algorithms") take = !i.buggy() && i.algo;
    else if (pat == "buggy") take = i.buggy();
    else if (pat == "weak_memory") take = i.weak_memory;
    else if (pat == "kernels") take = !i.buggy() && is_kernel_entry(i);
    else if (pat == "everything") take = true;
    else take = fnmatch(pat.c_str(), i.name, 0) == 0;
    if (take) out.push_back(&i);
  }
  return out;
}

const char* op_word(Op op) {
  static const char* const words[] = {"add", "sub", "mul", "exch", "min", "max",
                                      "inc", "dec", "cas", "and", "or",  "xor"};
  return words[static_cast<int>(op)];
}

const char* scope_word(Scope scope) {
  return scope == Scope::Block ? "block" : scope == Scope::System ? "system" : "device";
}

const char* intern_text(std::string text) {
  static std::mutex m;
  static std::deque<std::string> texts;
  std::lock_guard<std::mutex> lock(m);
  return texts.emplace_back(std::move(text)).c_str();
}

std::string describe_spec(const Entry& i) {
  std::string s;
  if (i.call_shape) s += std::string("  called as:   ") + i.call_shape + "\n";
  if (i.returns_nothing)
    s += "  returns:     nothing (a void update): its final memory is checked, and alone every state it leaves\n";
  if (i.registered_spec) s += std::string("  spec:        ") + i.registered_spec + "\n";
  s += std::string("  phi:         ") + i.sem.phi + "\n";
  if (std::strcmp(i.sem.nan, kNA) != 0) s += std::string("  NaN:         ") + i.sem.nan + "\n";
  if (std::strcmp(i.sem.signed_zero, kNA) != 0) s += std::string("  signed zero: ") + i.sem.signed_zero + "\n";
  if (std::strcmp(i.sem.subnormals, kNA) != 0) s += std::string("  subnormals:  ") + i.sem.subnormals + "\n";
  if (std::strcmp(i.sem.wrap, kNA) != 0) s += std::string("  wrap:        ") + i.sem.wrap + "\n";
  s += std::string("  spaces:      ") + (i.sem.global_ok ? "global " : "") + (i.sem.shared_ok ? "shared" : "") + "\n";
  s += std::string("  scope:       ") + scope_word(i.sem.scope) + "\n";
  s += std::string("  states:      ") + (i.sem.nan_states_equal ? "all NaNs equal" : "bitwise") + "\n";
  if (i.algo) {
    s += std::string("  atomic:      ") + i.algo->atomic().name + " (" + i.algo->atomic().sem.phi + ")\n";
  }
  if (i.gpu_only)
    s += std::string("  backends:    gpu only (") + (i.gpu_only_reason ? i.gpu_only_reason : "warp intrinsics") + ")\n";
  if (i.bug) s += std::string("  BUG:         ") + i.bug + "\n";
  if (i.needs_sanitizer)
    s += std::string("  seen by:     --sanitize ") + i.needs_sanitizer + " only (the oracles and guard zones cannot see it)\n";
  if (i.not_intercepted) s += std::string("  not seen:    ") + i.not_intercepted + "\n";
  if (i.rate_only) s += "  reported:    its observed failure rate (the hardware may never show it)\n";
  return s;
}

bool is_kernel_entry(const Entry& i) { return i.family && std::strcmp(i.family->name(), "kernel") == 0; }

std::string cpu_skip_reason(const Entry& i) {
  if (i.gpu_only_reason == nullptr) return "uses warp intrinsics: needs the cuda backend";
  return std::string("gpu only: ") + i.gpu_only_reason;
}

}  // namespace atomstress
