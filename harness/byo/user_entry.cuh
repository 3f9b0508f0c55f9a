// A user's function as a catalogue entry.  The registration macros of
// <atomstress/atomstress.cuh> generate, per entry, a small "definition" struct
// (its name, the spec it meets, and an `invoke` that calls the user's function
// exactly as written); the adapters below turn it into what the runners take:
//   UserAtomic<Def>  an atomic, T f(T*, T) or T f(T*, T compare, T val), or
//                    a void update, void f(T*, T)
//   UserLock<Def>    a spin lock, void acquire(int*) + void release(int*),
//                    as a form of the lock family
// and register it, with every algorithm form it fits, like a built-in entry.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

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

// ------------------------------------------------------------ call shape
// How a user's function is called is explicit, never guessed: a
// compare-and-swap spec calls `T f(T* address, T compare, T val)`, every
// other spec `T f(T* address, T val)`.  A function of another shape is a
// compile error that says which parameter is wrong (an `int order` third
// parameter is never taken for a compare value).
//
// An argument that converts to T and to nothing else: a parameter of
// another type does not take it (declared only: used in unevaluated calls).
template <class T>
struct exactly {
  template <class U>
    requires std::is_same_v<U, T>
  AS_HD operator U() const;
};
// An argument that converts to anything: tells how many parameters there are.
struct any_argument {
  template <class U>
  AS_HD operator U() const;
};
// An address that converts to any pointer: tells a wrong address type apart.
struct any_pointer {
  template <class U>
  AS_HD operator U*() const;
};

enum class Shape { Ok, NotCasShaped, CasShapedForNonCas, ExtraThird, ExtraFourth, WrongOperandType, WrongAddressType,
                   ReturnsNothing, ReturnsOtherType, Unusable };

// Whether the user's function takes (U* address, U val), or (U* address,
// U compare, U val) for a compare-and-swap, with operands of exactly U.
// Def::shape_probe(args...) forwards to the user's function (a dependent
// call, so qualified names, template ids and overload sets all resolve as
// written).
template <class Def, class U, bool Cas, class Arg>
constexpr bool takes() {
  if constexpr (Cas) return requires(U* p, Arg v) { Def::shape_probe(p, v, v); };
  else return requires(U* p, Arg v) { Def::shape_probe(p, v); };
}
// A function template that deduces its T (`template <class T> T f(T*, T)`)
// takes no exactly<U> (its T would be deduced twice), but takes plain U
// operands; a plain function whose operand is another type takes them too,
// by conversion, and takes any_argument as well, which a deducing template
// cannot (so it is told apart: WrongOperandType).
// (if constexpr: a probe is instantiated only where the earlier ones
// failed, as in call_shape below.)
template <class Def, class U, bool Cas>
constexpr bool deduces() {
  if constexpr (takes<Def, U, Cas, exactly<U>>() || !takes<Def, U, Cas, U>()) return false;
  else return !takes<Def, U, Cas, any_argument>();
}
// The operand the shape is probed with: exactly U, or U for a deducing template.
template <class Def, class U, bool Cas>
using probe_operand_t = std::conditional_t<deduces<Def, U, Cas>(), U, exactly<U>>;
template <class Def, class U, bool Cas>
constexpr bool fits() {
  return takes<Def, U, Cas, probe_operand_t<Def, U, Cas>>();
}

// i64 and u64 are long long and unsigned long long, CUDA's spellings; on LP64
// int64_t and uint64_t (and amrex::Long) are long and unsigned long, of the
// same width and representation.  A function of that spelling is called
// through it (the address reinterpreted: same size, same signedness).
template <class T>
struct other_64_bit_spelling {
  using type = T;
};
template <>
struct other_64_bit_spelling<long long> {
  using type = std::conditional_t<sizeof(long) == sizeof(long long), long, long long>;
};
template <>
struct other_64_bit_spelling<unsigned long long> {
  using type = std::conditional_t<sizeof(unsigned long) == sizeof(unsigned long long), unsigned long, unsigned long long>;
};
// The type the user's function is called with for a spec of type T: T, or
// its other 64-bit spelling where only that one fits (T otherwise, so that
// the shape's errors speak of T).
template <class Def, class T, bool Cas>
constexpr auto call_type() {
  using Other = typename other_64_bit_spelling<T>::type;
  if constexpr (std::is_same_v<Other, T> || fits<Def, T, Cas>()) return std::type_identity<T>{};
  else if constexpr (fits<Def, Other, Cas>()) return std::type_identity<Other>{};
  else return std::type_identity<T>{};
}
template <class Def, class T, bool Cas>
using call_type_t = typename decltype(call_type<Def, T, Cas>())::type;

// The type the user's function returns, called in the spec's shape.
template <class Def, class U, bool Cas>
constexpr auto call_result() {
  using X = probe_operand_t<Def, U, Cas>;
  if constexpr (Cas) return std::type_identity<decltype(Def::shape_probe(std::declval<U*>(), std::declval<X>(), std::declval<X>()))>{};
  else return std::type_identity<decltype(Def::shape_probe(std::declval<U*>(), std::declval<X>()))>{};
}

template <class Def, class U, bool Cas>
constexpr Shape call_shape() {
  using X = exactly<U>;
  using Any = any_argument;
  // (The probes with Any run only once the right shape failed: each one
  // instantiates a declaration that nvcc would otherwise warn is unused.)
  if constexpr (fits<Def, U, Cas>()) {
    using R = typename decltype(call_result<Def, U, Cas>())::type;
    if constexpr (std::is_void_v<R>) return Shape::ReturnsNothing;
    else if constexpr (!std::is_convertible_v<R, U>) return Shape::ReturnsOtherType;
    else return Shape::Ok;
  } else if constexpr (Cas && requires(U* p, X v) { Def::shape_probe(p, v); }) {
    return Shape::NotCasShaped;
  } else if constexpr (!Cas && requires(U* p, X v) { Def::shape_probe(p, v, v); }) {
    return Shape::CasShapedForNonCas;
  } else if constexpr (!Cas && requires(U* p, Any v) { Def::shape_probe(p, v, v); }) {
    return Shape::ExtraThird;
  } else if constexpr (requires(U* p, Any v) { Def::shape_probe(p, v, v, v); }) {
    return Shape::ExtraFourth;
  } else if constexpr (takes<Def, U, Cas, Any>()) {
    return Shape::WrongOperandType;
  } else if constexpr (Cas ? requires(any_pointer p, Any v) { Def::shape_probe(p, v, v); }
                           : requires(any_pointer p, Any v) { Def::shape_probe(p, v); }) {
    return Shape::WrongAddressType;
  } else {
    return Shape::Unusable;
  }
}

template <class T>
constexpr bool is_float_value() {
  return std::is_floating_point_v<T> || std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;
}

// A void update (`void f(T* address, T val)`, AMReX's AddNoRet, most *NoRet
// helpers) against a spec whose final memory its check can judge without
// the order of the updates (spec.cuh).
template <Op O, class T, bool OwnSpec>
constexpr bool void_update_ok() {
  static_assert(O != Op::Cas,
                "atomstress: the function returns nothing, but the spec is a compare-and-swap: it must return the "
                "value it found (T f(T* address, T compare, T val))");
  static_assert(O == Op::Cas || !OwnSpec,
                "atomstress: the function returns nothing (a void update): it is checked by the final memory its "
                "spec's operation leaves, so name a built-in spec (ATOMSTRESS_ATOMIC), not a spec of your own");
  static_assert(O == Op::Cas || OwnSpec || final_memory_checkable_without_order(O, is_float_value<T>()),
                "atomstress: the function returns nothing (a void update), and the memory this spec's operation "
                "leaves depends on the order of the updates (inc/dec wrap; float sub, mul, min, max), which a void "
                "update does not show: return the old value (T f(T*, T)), or name a spec of add, sub, mul, and, or, "
                "xor, min or max on integers, add on floats, or exch");
  return O != Op::Cas && !OwnSpec && final_memory_checkable_without_order(O, is_float_value<T>());
}

// The compile errors, one per shape; true when the shape is right (a void
// update: when void_update_ok).
template <Shape S, Op O, class T, bool OwnSpec>
constexpr bool shape_ok() {
  static_assert(S != Shape::NotCasShaped,
                "atomstress: the spec is a compare-and-swap: the function must be T f(T* address, T compare, T val)");
  static_assert(S != Shape::CasShapedForNonCas,
                "atomstress: the function takes a 3rd parameter (of type T, or one T converts to), but the spec is "
                "not a compare-and-swap: it is called as T f(T* address, T val), and a compare value or an order "
                "is never passed; register a wrapper of that shape, or a CAS-shaped function against a CAS spec "
                "(family.cas.type)");
  static_assert(S != Shape::ExtraThird,
                "atomstress: the function's 3rd parameter is not part of the call shape T f(T* address, T val) "
                "(it is never passed a compare value or an order): register a wrapper of that shape that sets it");
  static_assert(S != Shape::ExtraFourth,
                "atomstress: the function's 4th parameter is not part of the call shape (T f(T* address, T val), or "
                "T f(T* address, T compare, T val) for a CAS spec): register a wrapper of that shape that sets it");
  static_assert(S != Shape::WrongOperandType,
                "atomstress: the function's address is of the spec's type T*, but an operand parameter is not "
                "of type T (i32 int, u32 unsigned, i64 long long or a 64-bit long, u64 unsigned long long or a "
                "64-bit unsigned long, f32 float, f64 double, u16 unsigned short, f16 __half, bf16 "
                "__nv_bfloat16)");
  static_assert(S != Shape::WrongAddressType,
                "atomstress: the function's address parameter is not a pointer to the spec's type T (i32 int*, "
                "u32 unsigned*, i64 long long* or a 64-bit long* such as int64_t*, u64 unsigned long long* or "
                "a 64-bit unsigned long* such as uint64_t*, f32 float*, f64 double*, u16 unsigned short*, "
                "f16 __half*, bf16 __nv_bfloat16*): name the spec of the type it takes");
  static_assert(S != Shape::ReturnsOtherType, "atomstress: the function's return type does not convert to T");
  static_assert(S != Shape::Unusable,
                "atomstress: the function cannot be called as T f(T* address, T val) (or T f(T* address, T compare, "
                "T val) for a CAS spec), with T the spec's type");
  if constexpr (S == Shape::ReturnsNothing) return void_update_ok<O, T, OwnSpec>();
  else return S == Shape::Ok;
}

// The C spelling of a spec type, for `list -v`.
template <class T>
constexpr const char* c_type_name() {
  if constexpr (std::is_same_v<T, int>) return "int";
  else if constexpr (std::is_same_v<T, unsigned>) return "unsigned";
  else if constexpr (std::is_same_v<T, long long>) return "long long";
  else if constexpr (std::is_same_v<T, unsigned long long>) return "unsigned long long";
  else if constexpr (std::is_same_v<T, long>) return "long";
  else if constexpr (std::is_same_v<T, unsigned long>) return "unsigned long";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, unsigned short>) return "unsigned short";
  else if constexpr (std::is_same_v<T, __half>) return "__half";
  else return "__nv_bfloat16";
}

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
  static constexpr bool own_phi = true;  // pairs only with forms whose oracle follows it
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
      r.lock_slot = 1 + prim::done_slot_of(g.key[e]);  // live while its lock passes among others
      if (!prim::run_in_call_scope(r, [&] { Def::acquire(l); })) {
        record_retries(g, e, r);  // stopped: the runner reports a hang
        return;
      }
      const M v = prim::ordinary_load(data + g.key[e]);
      prim::ordinary_store(data + g.key[e], M(v + static_cast<M>(g.x[e])));
      prim::run_in_call_scope(r, [&] { Def::release(l); });
      if (g.rs != nullptr) prim::stamp_slot(g.rs, prim::done_slot_of(g.key[e]));  // its lock passed on
      record(g, e, v, r);
    });
  }
};

// -------------------------------------------------- host-branch probe
// Whether a user's host-callable code reaches an atomic atomstress
// intercepts when it runs on the host: a function with a host branch of its
// own (AMReX's AMREX_IF_ON_HOST, NV_IF_ELSE_TARGET, #ifdef __CUDA_ARCH__)
// makes a plain update there, and the cpu backend would test that instead of
// what the GPU runs.  A few calls on a local word, each in a call scope of a
// bounded Retry (a loop of intercepted calls stops); the caller runs this in
// a child process (harness/pipeline/host_branches.cpp).
template <class T>
T probe_value(unsigned char byte) {
  T v;
  std::memset(static_cast<void*>(&v), byte, sizeof v);
  return v;
}
template <class F>
bool probe_calls(F&& call_on) {
  prim::RetryShared rs{};
  for (int i = 0; i < 3; ++i) {
    prim::Retry r;
    r.budget = 1u << 12;
    r.shared = &rs;
    prim::run_in_call_scope(r, [&] { call_on(i); });
    if (rs.intercepted_calls != 0) return true;
  }
  return false;
}
template <class Def>
bool host_makes_intercepted_call() {
  using T = typename Def::T;
  const T zero = probe_value<T>(0), small = probe_value<T>(1);
  // (memory, a, b): an update from zero, one to zero, and a compare-and-swap
  // that matches (b is its compare).
  const T mem[3] = {zero, small, zero}, a[3] = {small, zero, small}, b[3] = {zero, zero, zero};
  return probe_calls([&](int i) {
    T word = mem[i];
    Def::invoke(&word, a[i], b[i]);
  });
}
template <class Def>
bool host_lock_makes_intercepted_call() {
  return probe_calls([](int) {
    uint32_t word = 0;
    Def::acquire(&word);
    Def::release(&word);
  });
}

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

// Whether the user's function, called in its spec's shape, returns nothing.
template <class Def>
constexpr bool is_void_update() {
  constexpr bool cas = Def::op == Op::Cas;
  return call_shape<Def, call_type_t<Def, typename Def::T, cas>, cas>() == Shape::ReturnsNothing;
}

template <class Def>
bool register_user_atomic() {
  using A = std::conditional_t<Def::has_own_spec, UserAtomicWithSpec<Def>, UserAtomic<Def>>;
  using T = typename Def::T;
  constexpr bool void_update = is_void_update<Def>();
  const uint64_t order = atomic_order(kGroupUser, next_user_seq());
  EntryDraft d = registration::atomic_draft<A>(order);
  Entry& e = d.entry;
  e.user_code = true;
  e.own_phi = Def::has_own_spec;
  e.returns_nothing = void_update;
  const std::string t = c_type_name<call_type_t<Def, T, Def::op == Op::Cas>>();  // as the function is called
  const std::string r = void_update ? "void" : t;
  e.call_shape = intern_text(Def::op == Op::Cas ? r + " f(" + t + "* address, " + t + " compare, " + t + " val)"
                                                : r + " f(" + t + "* address, " + t + " val)");
  if constexpr (Def::has_own_spec) e.registered_spec = "its own (ATOMSTRESS_ATOMIC_SPEC)";
  else e.registered_spec = Def::spec_name;
  e.not_intercepted = Def::not_intercepted;
  if constexpr (Def::host_callable) e.host_makes_intercepted_call = &host_makes_intercepted_call<Def>;
  if constexpr (!Def::has_own_spec) d.spec_from = Def::spec_name;
  register_entry(std::move(d));
  // (Every algorithm form reads the values its atomic returns.)
  if constexpr (!void_update) registration::register_forms_of<A>(order, registration::CorrectForms{});
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
  Entry& e = d.entry;
  e.user_code = true;
  e.not_intercepted = Def::not_intercepted;
  e.run_cuda = &run_cuda_program<FormProgram<Alg>>;
  if constexpr (Alg::cpu_capable) {
    e.run_cpu = &run_cpu_program<FormProgram<Alg>>;
    e.host_makes_intercepted_call = &host_lock_makes_intercepted_call<Def>;
  } else {
    e.gpu_only = true;
    e.gpu_only_reason = Alg::cpu_unavailable;
  }
  register_entry(std::move(d));
  return true;
}

}  // namespace atomstress::byo
