// A user's function as a catalogue entry.  The registration macros of
// <atomstress/atomstress.cuh> generate, per entry, a small "definition" struct
// (its name, the spec it meets, and an `invoke` that calls the user's function
// exactly as written); the adapters below turn it into what the runners take:
//   UserAtomic<Def>  an atomic, T f(T*, T) or T f(T*, T compare, T val)
//   UserLock<Def>    a spin lock, void acquire(int*) + void release(int*),
//                    as a form of the lock family
// and register it, with every algorithm form it fits, like a built-in entry.
#pragma once

#include <cstdint>
#include <string_view>
#include <tuple>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "harness/catalogue/register.cuh"

namespace atomstress::byo {

// ---------------------------------------------------------- named specs
// A spec named by a built-in entry, "family.op[_variant].type": the type and
// the operation are read from the name at compile time (the forms an entry
// fits are chosen at compile time); the registry then copies the entry's
// whole spec and checks that it agrees (harness/registry/registry.cpp).
constexpr std::string_view spec_type_word(std::string_view name) { return name.substr(name.rfind('.') + 1); }
constexpr std::string_view spec_op_word(std::string_view name) {
  const auto first = name.find('.'), last = name.rfind('.');
  if (first == std::string_view::npos || first == last) return {};
  std::string_view w = name.substr(first + 1, last - first - 1);
  return w.substr(0, w.find('_'));
}
constexpr bool spec_is_block_scope(std::string_view name) {
  const auto first = name.find('.'), last = name.rfind('.');
  return first != last && name.substr(first + 1, last - first - 1).ends_with("_block");
}

constexpr bool op_from_word(std::string_view w, Op& op) {
  constexpr std::pair<std::string_view, Op> words[] = {
      {"add", Op::Add}, {"sub", Op::Sub}, {"mul", Op::Mul}, {"exch", Op::Exch}, {"min", Op::Min}, {"max", Op::Max},
      {"inc", Op::Inc}, {"dec", Op::Dec}, {"cas", Op::Cas},   {"and", Op::And},   {"or", Op::Or},   {"xor", Op::Xor}};
  for (const auto& [word, o] : words)
    if (w == word) {
      op = o;
      return true;
    }
  return false;
}
constexpr Op spec_op(std::string_view name) {
  Op op = Op::Add;
  op_from_word(spec_op_word(name), op);
  return op;
}
constexpr bool spec_name_ok(std::string_view name) {
  Op op = Op::Add;
  return op_from_word(spec_op_word(name), op);
}

// The C++ type of a spec's value kind: CUDA's own spellings, so a user's
// `unsigned long long f(unsigned long long*, ...)` is called without a cast.
// Index of the type word, to select the type in a template (string_views
// cannot select types directly).
constexpr int spec_type_index(std::string_view name) {
  constexpr std::string_view words[] = {"i32", "u32", "i64", "u64", "f32", "f64", "u16", "f16", "bf16"};
  const std::string_view w = spec_type_word(name);
  for (int i = 0; i < 9; ++i)
    if (w == words[i]) return i;
  return -1;
}
template <int I>
using spec_type_t = std::tuple_element_t<(I < 0 ? 0 : I), std::tuple<int, unsigned, long long, unsigned long long, float,
                                                                      double, unsigned short, __half, __nv_bfloat16>>;

// The spec fields a named spec stands for until the registry copies them:
// device or block scope (from the name), both memory spaces.
constexpr Semantics assumed_semantics(std::string_view name) {
  Semantics s{"(the named entry's)", kNA, kNA, kNA, kNA};
  s.scope = spec_is_block_scope(name) ? Scope::Block : Scope::Device;
  return s;
}

// A user's own spec (ATOMSTRESS_ATOMIC_SPEC): what a built-in entry states.
template <class T>
struct UserSpec {
  using value_type = T;
  Op op;
  Domain domain;
  Semantics sem;
  T (*phi)(T old, T a, T b);  // the sequential semantics, on the host
};

// ------------------------------------------------------------- adapters
// The lock word as the user's acquire/release take it (int* or unsigned*).
template <class W, class L>
AS_HD AS_FI W* lock_word(L* l) {
  return reinterpret_cast<W*>(l);
}

// Sequence number of user entries across all of a program's units.
inline uint64_t next_user_seq() {
  static uint64_t seq = 0;
  return seq++;
}

template <class Def>
struct UserAtomic {
  using T = typename Def::T;
  static constexpr const char* name = Def::entry_name;
  static constexpr Op op = Def::op;
  static constexpr Domain domain = Def::domain;
  static constexpr Semantics sem = Def::sem;
  static constexpr bool cpu_capable = Def::host_callable;
  static constexpr const char* cpu_unavailable = Def::gpu_only_reason;

  AS_HD T operator()(T* p, T a, T b, prim::Retry& r) const {
    T out{};
    prim::run_in_call_scope(r, [&] { out = Def::invoke(p, a, b); });
    return out;
  }
};
// With its own spec, the phi the oracle uses.
template <class Def>
struct UserAtomicWithSpec : UserAtomic<Def> {
  using T = typename Def::T;
  static T phi(T o, T a, T b) { return Def::spec.phi(o, a, b); }
};

// A lock from the user's acquire/release around a plain read-modify-write of
// the data word it protects (the lock family's trial: harness/check/families/lock.cpp).
template <class Def>
struct UserLock {
  using M = uint32_t;
  static constexpr const char* family = "lock";
  static constexpr const char* form = Def::entry_name;
  static constexpr bool gpu_only = false;
  static constexpr bool cpu_capable = Def::host_callable;
  static constexpr const char* cpu_unavailable = Def::gpu_only_reason;

  template <class Ctx>
  AS_HD static void run(Ctx& c, const Args& g) {
    M* lock = static_cast<M*>(g.mem);
    M* data = lock + g.param;
    algo::each_element(c, g, [&](uint64_t e) {
      M* l = lock + g.key[e];
      prim::Retry r = make_retry(g);
      if (!prim::run_in_call_scope(r, [&] { Def::acquire(l); })) {
        record_retries(g, e, r);  // stopped: the runner reports a hang
        return;
      }
      const M v = prim::ordinary_load(data + g.key[e]);
      prim::ordinary_store(data + g.key[e], M(v + static_cast<M>(g.x[e])));
      prim::run_in_call_scope(r, [&] { Def::release(l); });
      record(g, e, v, r);
    });
  }
};

// ---------------------------------------------------------- registration
// The host probe (atomstress_add_suite): instantiate each call for the host
// without registering anything.
template <class Def>
bool probe_user_atomic() {
  return &Def::template invoke<typename Def::T> != nullptr;
}
template <class Def>
bool probe_user_lock() {
  return &Def::template acquire<uint32_t> != nullptr && &Def::template release<uint32_t> != nullptr;
}

template <class Def>
bool register_user_atomic() {
  using A = std::conditional_t<Def::has_own_spec, UserAtomicWithSpec<Def>, UserAtomic<Def>>;
  const uint64_t order = atomic_order(kGroupUser, next_user_seq());
  EntryDraft d = registration::atomic_draft<A>(order);
  d.entry.user_code = true;
  if constexpr (!Def::has_own_spec) d.spec_from = Def::spec_name;
  register_entry(std::move(d));
  registration::register_forms_of<A>(order, registration::CorrectForms{});
  return true;
}

// The lock's "atomic": what the lock family's spec text and value kind read.
inline Entry user_lock_words() {
  Entry e;
  e.name = "the user's acquire()/release()";
  e.kind = VK::U32;
  e.domain = Domain::Int;
  e.op = Op::Cas;
  e.sem = int_sem("acquire(lock); data += x; release(lock)");
  e.phi = [](uint64_t o, uint64_t a, uint64_t) -> uint64_t { return uint32_t(o + a); };
  e.phi_shared = e.phi;
  return e;
}

template <class Def>
bool register_user_lock() {
  using Alg = UserLock<Def>;
  EntryDraft d;
  d.name = Def::entry_name;
  d.family = "lock";
  d.order = algorithm_order(registration::kUserLockRank, atomic_order(kGroupUser, next_user_seq()));
  d.is_algorithm = true;
  d.implicit_atomic = user_lock_words();
  d.algo.form = Def::entry_name;
  d.algo.mem_kind = VK::U32;
  d.max_ops = registration::kMaxLockOps;
  Entry& e = d.entry;
  e.user_code = true;
  e.run_cuda = &run_cuda_program<FormProgram<Alg>>;
  if constexpr (Alg::cpu_capable) e.run_cpu = &run_cpu_program<FormProgram<Alg>>;
  else {
    e.gpu_only = true;
    e.gpu_only_reason = Alg::cpu_unavailable;
  }
  register_entry(std::move(d));
  return true;
}

}  // namespace atomstress::byo
