// How an entry joins the registry: from the translation unit that
// instantiates its kernels.  register_atomics<A...>(group) registers each
// atomic with its CPU and CUDA runners and, automatically, every algorithm
// form it fits (forms.cuh `fits()`: by the atomic's operation and type), so
// a new atomic of the right kind gets `sum.block@its.name` and the rest for
// free.  The built-in catalogue (this folder) and user suites use the same
// calls, so nothing keeps a list of entries (but the order of a group that
// registers from several units: native_listing.cuh).
//
// Include only from registering units (.cu): it instantiates device code.
#pragma once

#include <type_traits>

#include "atomics_under_test/algorithms/forms.cuh"
#include "harness/backend/atomic_program.cuh"
#include "harness/backend/cpu/run_program.hpp"
#include "harness/backend/cuda/packed_program.cuh"
#include "harness/backend/cuda/run_program.cuh"
#include "harness/backend/form_program.cuh"
#include "harness/check/device_oracle.cuh"
#include "harness/registry/registry.hpp"

namespace atomstress::registration {

// ------------------------------------------------------------ the forms
// Every correct form, in listing order; each is tried with every registered
// atomic.
template <class A> using AppendPlain = algo::Append<A>;
template <class A> using AppendAgg = algo::AppendWarpAgg<A>;
template <class A> using SumElement = algo::Sum<A, algo::SumForm::Element>;
template <class A> using SumThread = algo::Sum<A, algo::SumForm::Thread>;
template <class A> using SumBlock = algo::Sum<A, algo::SumForm::Block>;
template <class A> using SumWarpDown = algo::Sum<A, algo::SumForm::WarpDown>;
template <class A> using SumWarpXor = algo::Sum<A, algo::SumForm::WarpXor>;
template <class A> using HistGlobal = algo::Histogram<A, false>;
template <class A> using HistShared = algo::Histogram<A, true>;
template <class A> using ArgMaxCas = algo::ArgBest<A, true, true>;
template <class A> using ArgMinCas = algo::ArgBest<A, false, true>;
template <class A> using ArgMaxMax = algo::ArgBest<A, true, false>;
template <class A> using ArgMinMin = algo::ArgBest<A, false, false>;
template <class A> using LockDevice = algo::Lock<A, false>;
template <class A> using LockBlock = algo::Lock<A, true>;

template <template <class> class... Fs>
struct FormList {};
using CorrectForms = FormList<AppendPlain, AppendAgg, SumElement, SumThread, SumBlock, SumWarpDown, SumWarpXor,
                              HistGlobal, HistShared, ArgMaxCas, ArgMinCas, ArgMaxMax, ArgMinMin, LockDevice,
                              LockBlock>;
// Forms registered explicitly (the deliberately broken ones) rank after these,
// and users' locks after those.
inline constexpr uint64_t kExplicitFormRank = 100;
inline constexpr uint64_t kUserLockRank = 200;

// ------------------------------------------------------------- the drafts
template <class I>
uint64_t phi_bits(uint64_t o, uint64_t a, uint64_t b) {
  using T = typename I::T;
  return prim::to_bits<T>(I::phi(prim::from_bits<T>(o), prim::from_bits<T>(a), prim::from_bits<T>(b)));
}
template <class I>
uint64_t phi_shared_bits(uint64_t o, uint64_t a, uint64_t b) {
  using T = typename I::T;
  if constexpr (requires { I::phi_shared(T{}, T{}, T{}); })
    return prim::to_bits<T>(I::phi_shared(prim::from_bits<T>(o), prim::from_bits<T>(a), prim::from_bits<T>(b)));
  else
    return phi_bits<I>(o, a, b);
}

template <class I>
EntryDraft atomic_draft(uint64_t order) {
  EntryDraft d;
  d.name = I::name;
  d.family = "atomic";
  d.order = order;
  Entry& e = d.entry;
  e.kind = vk_of<typename I::T>();
  e.domain = I::domain;
  e.op = I::op;
  e.sem = I::sem;
  if constexpr (is_buggy_v<I>) e.bug = I::bug;
  if constexpr (requires { I::needs_gpu; }) e.needs_gpu = I::needs_gpu;
  if constexpr (requires { I::phi; }) {  // (a user's entry may take its spec's)
    e.phi = &phi_bits<I>;
    e.phi_shared = &phi_shared_bits<I>;
    if constexpr (requires { I::phi_on_device; }) e.device_edges = &device_edges<I>;
  }
  if constexpr (cpu_capable<I>()) {
    e.run_cpu = &run_cpu_program<AtomicProgram<I>>;
  } else {
    e.gpu_only = true;
    e.gpu_only_reason = cpu_unavailable_reason<I>();
  }
  e.run_cuda = &run_cuda_program<AtomicProgram<I>>;
  e.run_cuda_packed = &run_cuda_packed<AtomicProgram<I>>;
  return d;
}

template <class Alg>
EntryDraft form_draft(uint64_t order) {
  using A = typename Alg::Atomic;
  EntryDraft d;
  d.name = std::string(Alg::form) + "@" + A::name;
  d.family = Alg::family;
  d.order = order;
  d.is_algorithm = true;
  d.atomic_name = A::name;
  AlgoInfo& a = d.algo;
  a.form = Alg::form;
  if constexpr (requires { Alg::traits; }) a.traits = &Alg::traits;  // read by its family alone
  if constexpr (requires { Alg::atomic_in_shared; }) d.needs_shared_atomic = Alg::atomic_in_shared;
  a.mem_kind = vk_of<typename Alg::M>();
  Entry& e = d.entry;
  if constexpr (requires { Alg::bug; }) e.bug = Alg::bug;
  if constexpr (requires { Alg::needs_gpu; }) e.needs_gpu = Alg::needs_gpu;
  else e.needs_gpu = Alg::gpu_only;
  if constexpr (requires { Alg::rate_only; }) e.rate_only = Alg::rate_only;
  if constexpr (requires { Alg::weak_memory; }) e.weak_memory = Alg::weak_memory;
  e.gpu_only = Alg::gpu_only || !cpu_capable<A>();
  if constexpr (Alg::gpu_only) e.gpu_only_reason = "warp intrinsics";
  else if constexpr (!cpu_capable<A>()) e.gpu_only_reason = cpu_unavailable_reason<A>();
  else e.run_cpu = &run_cpu_program<FormProgram<Alg>>;
  e.run_cuda = &run_cuda_program<FormProgram<Alg>>;
  return d;
}

// -------------------------------------------------------- registration
// An atomic with its own phi (a user's ATOMSTRESS_ATOMIC_SPEC) pairs only with
// forms whose oracle follows the atomic's phi: the others assume the
// operation's usual arithmetic (a wrapping add, say) and would fail a correct
// saturating add.
template <class A>
constexpr bool has_own_phi() {
  if constexpr (requires { A::own_phi; }) return A::own_phi;
  else return false;
}
template <class Alg>
constexpr bool oracle_follows_phi() {
  if constexpr (requires { Alg::oracle_follows_phi; }) return Alg::oracle_follows_phi;
  else return false;
}
template <class Alg>
constexpr bool pairs() {
  return Alg::fits() && (!has_own_phi<typename Alg::Atomic>() || oracle_follows_phi<Alg>());
}

template <class A, template <class> class... Fs>
void register_forms_of(uint64_t atomic_order, FormList<Fs...>) {
  uint64_t rank = 0;
  (
      [&] {
        if constexpr (pairs<Fs<A>>()) register_entry(form_draft<Fs<A>>(algorithm_order(rank, atomic_order)));
        ++rank;
      }(),
      ...);
}

template <class A>
void register_atomic_and_forms(uint64_t order) {
  register_entry(atomic_draft<A>(order));
  register_forms_of<A>(order, CorrectForms{});
}

// Registers atomics (in this order, in listing group `group`) and every
// correct form each one fits.
template <class... As>
bool register_atomics(uint64_t group) {
  uint64_t seq = 0;
  (register_atomic_and_forms<As>(atomic_order(group, seq++)), ...);
  return true;
}

// One group's atomics in their listing order, for a group whose kernels
// several units instantiate (each registers its share, in any order, and
// `list` shows the listing's).
template <class... Ts>
struct Listing {};
// A's position in the listing; the listing's length when it is not there.
template <class A, class... Ts>
constexpr uint64_t listing_position(Listing<Ts...>) {
  uint64_t position = 0, found = sizeof...(Ts);
  ((std::is_same_v<A, Ts> ? found = position++ : position++), ...);
  return found;
}
template <class... Ts>
constexpr uint64_t listing_length(Listing<Ts...>) {
  return sizeof...(Ts);
}
template <class L, class... As>
bool register_listed_atomics(uint64_t group) {
  (
      [&] {
        constexpr uint64_t position = listing_position<As>(L{});
        static_assert(position < listing_length(L{}), "an atomic missing from its group's listing");
        register_atomic_and_forms<As>(atomic_order(group, position));
      }(),
      ...);
  return true;
}

// Registers algorithms bound to one atomic each (no pairing), listed after
// the paired forms in this order.
template <class... Algs>
bool register_algorithms(uint64_t first_rank = kExplicitFormRank) {
  uint64_t rank = first_rank;
  (register_entry(form_draft<Algs>(algorithm_order(rank++, 0))), ...);
  return true;
}

}  // namespace atomstress::registration
