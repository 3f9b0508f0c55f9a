// The runtime registry: every implementation under test (single atomics and
// the algorithms built on them) with its name, spec, oracle and runners,
// values carried as zero-extended bit patterns in uint64_t.  Entries
// register themselves from the translation unit that instantiates their
// kernels (harness/catalogue/ for the built-in catalogue; any user unit
// through the same macros), so nothing keeps a list of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "atomics_under_test/spec.cuh"
#include "harness/registry/device_edges.hpp"
#include "harness/registry/family.hpp"
#include "harness/registry/value_kind.hpp"
#include "harness/trial/validate.hpp"

namespace atomstress {

struct Workload;
struct Setup;
struct History;
struct RunOptions;

using PhiFn = uint64_t (*)(uint64_t old, uint64_t a, uint64_t b);
// A backend's entry point for one entry.  Returns false with a one-line
// `error` for a trial the backend cannot run (a device error, a geometry the
// device cannot launch).
using RunFn = bool (*)(const Workload& w, const Setup& s, const RunOptions& o, History& h, std::string& error);

// A backend's packed runner (cuda, single atomics; backend/packed.hpp): runs
// `n` small trials of the entry in one launch and fills each item's History
// (old, retries, gave_up, final_mem; kernel_ms is its share of the launch's),
// the layout shuffled by `seed`; where the items ask (PackItem::device), it
// judges them on the device and fills the History only of those the host
// judges.  False when the launch as a whole failed: the first
// item's History::fault says whether the code under test caused it (then the
// caller runs the instances one by one to find whose).
struct PackItem;
using RunPackedFn = bool (*)(const PackItem* items, size_t n, const RunOptions& o, uint64_t seed, std::string& error);

struct Entry;

// What an algorithm's form says of itself (atomics_under_test/algorithms/),
// read by its family's oracle.
struct AlgoInfo {
  const char* form = "";                // "sum.block", "buggy.lock.unfenced", ...
  // The form's traits, of a type its family defines (algo::LockTraits, ...);
  // null: the family's defaults.  Only the family reads them (traits_as).
  const void* traits = nullptr;
  VK mem_kind = VK::U32;                // the words of its memory
  const Entry* atomic_entry = nullptr;  // the atomic it uses
  const Entry& atomic() const { return *atomic_entry; }
  // The traits as the family's type: a form names its family, so the two agree.
  template <class Traits>
  const Traits& traits_as() const {
    static constexpr Traits kDefaults{};
    return traits != nullptr ? *static_cast<const Traits*>(traits) : kDefaults;
  }
};

struct Entry {
  const char* name = "";
  VK kind = VK::U32;
  Domain domain = Domain::Int;
  Op op = Op::Add;
  Semantics sem{};
  const char* bug = nullptr;    // nullptr for a correct implementation
  PhiFn phi = nullptr;          // sequential semantics on bit patterns
  PhiFn phi_shared = nullptr;   // the same in shared memory (differs for native float add)
  DeviceEdgesFn device_edges = nullptr;  // phi on the device, for the GPU checker (null: checked on the host)
  size_t index = 0;             // position in catalogue() (never used for seeds)
  bool needs_gpu = false;       // a bug only a GPU can show (the cpu backend cannot catch it)
  bool gpu_only = false;        // the cpu backend cannot run it (gpu_only_reason says why)
  const char* gpu_only_reason = nullptr;  // "warp intrinsics", a user unit that is not host-callable
  bool rate_only = false;       // a bug the hardware may never show: its failure rate is reported
  bool weak_memory = false;     // a weak-memory bug: selftest measures its rate with and without stress
  // A bug only compute-sanitizer's tool of this name sees ("memcheck"), or
  // null: selftest does not count it as missed, a PASS without the tool says so.
  const char* needs_sanitizer = nullptr;
  bool user_code = false;       // a user's function (ATOMSTRESS_ATOMIC / ATOMSTRESS_LOCK)
  bool own_phi = false;         // a user's own spec (ATOMSTRESS_ATOMIC_SPEC): its phi is theirs
  const char* call_shape = nullptr;       // a user's atomic: how it is called, "T f(T* address, T val)"
  // A user's void update, `void f(T*, T)`: it returns nothing, so a history's
  // "returned" values are the harness's own reads of the word just before
  // each call, exact only alone (the sequential replay checks every state it
  // leaves); a concurrent trial is judged by its final memory (families/atomic.cpp).
  bool returns_nothing = false;
  const char* registered_spec = nullptr;  // a user's atomic: the spec it was registered against
  // A user's unit: the atomics in it that atomstress cannot intercept (what,
  // file:line), or null; `list -v` and every verdict of its entries say so.
  const char* not_intercepted = nullptr;
  // A user's host-callable code: runs it a few times on the host, on a local
  // word; true when it made an intercepted call.  False: its host build runs
  // other code than the GPU does (a host branch), so the cpu backend cannot
  // test it (harness/pipeline/host_branches.hpp).  Null for everything else.
  bool (*host_makes_intercepted_call)() = nullptr;
  const AlgoInfo* algo = nullptr;    // an algorithm, not a single atomic
  const Family* family = nullptr;    // its oracle and trial rules
  RunFn run_cpu = nullptr;           // null: the cpu backend cannot run it
  RunFn run_cuda = nullptr;
  RunPackedFn run_cuda_packed = nullptr;  // single atomics: many small trials in one launch
  Constraints limits{};              // what a trial of it may be

  bool buggy() const { return bug != nullptr; }
  PhiFn phi_in(bool shared) const { return shared ? phi_shared : phi; }
  // The state the checker compares: bitwise, or all NaNs as one state.
  uint64_t canon(uint64_t bits) const { return sem.nan_states_equal ? canon_nan(bits) : bits; }
  uint64_t canon_nan(uint64_t bits) const;
};

// ------------------------------------------------------------ registration
// What a registering unit hands over; the registry fills in index, limits
// and the algorithm's atomic, and orders entries by `order` (then name).
struct EntryDraft {
  Entry entry;
  std::string name;          // storage for entry.name
  std::string family;        // "atomic", "sum", ...
  AlgoInfo algo;             // for an algorithm
  std::string atomic_name;   // for an algorithm: the atomic it is built on
  std::optional<Entry> implicit_atomic;  // ... or, for a user's lock, what stands for it
  bool is_algorithm = false;
  bool needs_shared_atomic = false;  // a form that runs its atomic in shared memory
  // A user's entry that meets a built-in entry's spec: its kind must match,
  // and it takes that entry's domain, operation, semantics and oracle.
  std::string spec_from;
  uint64_t order = 0;        // listing order: groups of the catalogue, then registration order
};
void register_entry(EntryDraft draft);
// Text that lives as long as the program (an entry's generated strings).
const char* intern_text(std::string text);

// Ordering keys: single atomics first, by group then position in their
// unit; then algorithms by form, then by their atomic's order.
inline constexpr uint64_t kGroupNative = 1, kGroupEmulated = 2, kGroupBuggy = 3, kGroupUser = 8;
constexpr uint64_t atomic_order(uint64_t group, uint64_t seq) { return (group << 20) | seq; }
constexpr uint64_t algorithm_order(uint64_t form_rank, uint64_t atomic_order) {
  return (uint64_t(1) << 62) | (form_rank << 40) | atomic_order;
}

// ------------------------------------------------------------------ lookup
const std::vector<Entry>& catalogue();
// The one writer after start-up: marks entry `index` (and every algorithm
// built on it) as one the cpu backend cannot run, with `reason`
// (host_branches.hpp, before any trial runs).
void mark_cpu_unable(size_t index, const char* reason);
const Entry* find_impl(std::string_view name);
// Name, glob (fnmatch), or "all" (correct ones) / "atomics" (correct single
// atomics) / "algorithms" (correct algorithms) / "buggy" / "weak_memory"
// (the weak-memory bugs) / "kernels" (correct kernel entries) / "everything".
std::vector<const Entry*> match_impls(std::string_view pattern);

std::string describe_spec(const Entry& i);
// "add", "max", "cas", ...
const char* op_word(Op op);
// "device", "block", "system"
const char* scope_word(Scope scope);
// Why the cpu backend skips a gpu-only entry, in words.
std::string cpu_skip_reason(const Entry& i);
// A user's whole kernel and its property (the "kernel" family, harness/kernel/).
bool is_kernel_entry(const Entry& i);

}  // namespace atomstress
