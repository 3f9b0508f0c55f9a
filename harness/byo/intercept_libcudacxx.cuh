// libcu++'s atomic references in a user's unit, seen like the intrinsics.
//
// intercept_macros.cuh renames `atomic_ref` to `atomstress_atomic_ref`, so a
// user's `cuda::atomic_ref<int, cuda::thread_scope_block> r(*p)` or
// `cuda::std::atomic_ref r(*p)` lands in the classes below: each derives from
// libcu++'s own class and shadows only its public operations, so every memory
// order, scope and host/device mapping stays libcu++'s (nothing here depends
// on CCCL's internals: an upgrade changes nothing as long as the public
// members keep their names).
//   - a read-modify-write (fetch_*, exchange, compare_exchange_*, ++, +=, ...)
//     is an intercepted call: each after an op's first is a retry, and a loop
//     past its budget or the trial's deadline is stopped (HANG; a
//     compare_exchange loop is released, reading success, any other trapped);
//   - a block or thread scope marks the op for the scope rule;
//   - a load, store or wait is a poll: not a retry, but a loop of polls is
//     stopped at the deadline too (wait() is a loop of loads here, so that it
//     can be stopped).
// `cuda::atomic` and `cuda::std::atomic` objects and their free functions
// cannot be renamed this way without renaming every `atomic` in the unit; the
// suite's build detects them (and inline PTX atomics) and says so
// (cmake/atomstressProbe.cmake).
#pragma once

#include <cuda/atomic>
#include <cuda/std/atomic>

#include <atomic>
#include <type_traits>
#include <utility>

#include "harness/prim/atomics.cuh"
#include "harness/prim/call_scope.cuh"

namespace atomstress::byo {

// wait()'s comparison: the standard compares value representations.
template <class T>
AS_HD AS_FI bool same_bits(const T& a, const T& b) {
  const unsigned char* x = reinterpret_cast<const unsigned char*>(&a);
  const unsigned char* y = reinterpret_cast<const unsigned char*>(&b);
  for (unsigned i = 0; i < sizeof(T); ++i)
    if (x[i] != y[i]) return false;
  return true;
}

// Base: libcu++'s reference class; Narrow: block or thread scope.
template <class Base, bool Narrow>
struct InterceptedRef : Base {
  using T = typename Base::value_type;
  using Base::Base;
  AS_HD InterceptedRef(const Base& b) : Base(b) {}
  AS_HD InterceptedRef(const Base& b, T* target) : Base(b), target_(target) {}

  AS_HD static void rmw() { prim::intercepted_call(Narrow); }
  AS_HD static void poll() { prim::intercepted_poll(); }

// Orders are taken by value: a forwarding reference would bind to libcu++'s
// host constexpr memory_order_* variables, which device code cannot address.
// (B: a dependent name for Base, so that an operation libcu++'s class lacks,
// cuda::std::atomic_ref's fetch_min say, is simply absent here too.)
#define ATOMSTRESS_REF_RMW_(NAME)                                                                   \
  template <class B = Base, class... O>                                                            \
  AS_HD auto NAME(T v, O... order) const -> decltype(std::declval<const B&>().NAME(v, order...)) { \
    rmw();                                                                                         \
    return static_cast<const B&>(*this).NAME(v, order...);                                         \
  }
#define ATOMSTRESS_REF_CAS_(NAME)                                                                              \
  template <class B = Base, class... O>                                                                       \
  AS_HD auto NAME(T& expected, T desired, O... order) const                                                   \
      -> decltype(std::declval<const B&>().NAME(expected, desired, order...)) {                               \
    if (prim::intercepted_cas_call(Narrow) != prim::CasCall::Run) return true; /* gave up: released, a success */ \
    const bool swapped = static_cast<const B&>(*this).NAME(expected, desired, order...);                      \
    prim::intercepted_saw(expected); /* the value it found, either way */                                     \
    return swapped;                                                                                           \
  }
  // A float add on the host as the GPU does it.  libcu++ maps a float
  // fetch_add to atom.add.f32 on the device, which flushes subnormals in
  // global memory as atomicAdd(float*) does (PTX ISA; measured for
  // atomicAdd), but to a plain add on the host: a correct GPU add then failed
  // its native.add.f32 spec on the CPU backend.  So the host takes the model
  // the intercepted atomicAdd takes (prim::add), fenced on both sides, since
  // an order given here may order other accesses; the device keeps libcu++'s.
#define ATOMSTRESS_REF_ADD_(NAME, SIGN)                                                            \
  template <class B = Base, class... O>                                                            \
  AS_HD auto NAME(T v, O... order) const -> decltype(std::declval<const B&>().NAME(v, order...)) { \
    rmw();                                                                                         \
    if constexpr (std::is_floating_point_v<T>) {                                                   \
      NV_IF_TARGET(NV_IS_HOST, (if (target_ != nullptr) return host_add(SIGN v);))                 \
    }                                                                                              \
    return static_cast<const B&>(*this).NAME(v, order...);                                         \
  }
  ATOMSTRESS_REF_ADD_(fetch_add, +)
  ATOMSTRESS_REF_ADD_(fetch_sub, -)
#undef ATOMSTRESS_REF_ADD_
  ATOMSTRESS_REF_RMW_(fetch_and)
  ATOMSTRESS_REF_RMW_(fetch_or)
  ATOMSTRESS_REF_RMW_(fetch_xor)
  ATOMSTRESS_REF_RMW_(fetch_min)
  ATOMSTRESS_REF_RMW_(fetch_max)
  ATOMSTRESS_REF_RMW_(exchange)
  ATOMSTRESS_REF_CAS_(compare_exchange_weak)
  ATOMSTRESS_REF_CAS_(compare_exchange_strong)
#undef ATOMSTRESS_REF_RMW_
#undef ATOMSTRESS_REF_CAS_

  template <class B = Base, class... O>
  AS_HD auto load(O... order) const -> decltype(std::declval<const B&>().load(order...)) {
    poll();
    const auto value = static_cast<const B&>(*this).load(order...);
    prim::intercepted_saw(value);  // a waiter that sees it change is live (intercepted_poll)
    return value;
  }
  template <class B = Base, class... O>
  AS_HD auto store(T v, O... order) const -> decltype(std::declval<const B&>().store(v, order...)) {
    poll();
    return static_cast<const B&>(*this).store(v, order...);
  }
  AS_HD operator T() const { return load(); }
  AS_HD T operator=(T v) const {
    store(v);
    return v;
  }
  // Returns once the value is no longer `old` (spurious returns allowed, as
  // the standard allows them), or never when a trial's deadline stops it.
  template <class... A>
  AS_HD void wait(T old, A... order) const {
    while (same_bits(Base::load(order...), old)) poll();
  }

  // The operators of libcu++'s class call its own fetch_*: shadowed too.
  AS_HD T operator++(int) const { return fetch_add(T(1)); }
  AS_HD T operator--(int) const { return fetch_sub(T(1)); }
  AS_HD T operator++() const { return fetch_add(T(1)) + T(1); }
  AS_HD T operator--() const { return fetch_sub(T(1)) - T(1); }
  AS_HD T operator+=(T v) const { return fetch_add(v) + v; }
  AS_HD T operator-=(T v) const { return fetch_sub(v) - v; }
  AS_HD T operator&=(T v) const { return fetch_and(v) & v; }
  AS_HD T operator|=(T v) const { return fetch_or(v) | v; }
  AS_HD T operator^=(T v) const { return fetch_xor(v) ^ v; }

 private:
  T* target_ = nullptr;  // the referenced object (null: a copy made from libcu++'s class alone)
  AS_HD T host_add(T v) const {
    NV_IF_ELSE_TARGET(NV_IS_HOST,
                      (std::atomic_thread_fence(std::memory_order_seq_cst); const T old = prim::add(target_, v);
                       std::atomic_thread_fence(std::memory_order_seq_cst); return old;),
                      (return v;))  // (never called on the device)
  }
};

}  // namespace atomstress::byo

namespace cuda::std {
template <class T>
struct atomstress_atomic_ref : ::atomstress::byo::InterceptedRef<::cuda::std::atomic_ref<T>, false> {
  using Impl = ::atomstress::byo::InterceptedRef<::cuda::std::atomic_ref<T>, false>;
  AS_HD explicit atomstress_atomic_ref(T& v) : Impl(::cuda::std::atomic_ref<T>(v), &v) {}
  using Impl::operator=;
};
template <class T>
atomstress_atomic_ref(T&) -> atomstress_atomic_ref<T>;
}  // namespace cuda::std

namespace cuda {
template <class T, thread_scope S = thread_scope_system>
struct atomstress_atomic_ref
    : ::atomstress::byo::InterceptedRef<::cuda::atomic_ref<T, S>, S == thread_scope_block || S == thread_scope_thread> {
  using Impl =
      ::atomstress::byo::InterceptedRef<::cuda::atomic_ref<T, S>, S == thread_scope_block || S == thread_scope_thread>;
  AS_HD explicit atomstress_atomic_ref(T& v) : Impl(::cuda::atomic_ref<T, S>(v), &v) {}
  using Impl::operator=;
};
template <class T>
atomstress_atomic_ref(T&) -> atomstress_atomic_ref<T>;
}  // namespace cuda

// The host's std::atomic_ref keeps working in the unit's host code (the macro
// renames every `atomic_ref`); it is not intercepted: it cannot run on the GPU.
#include <atomic>
#if defined(__cpp_lib_atomic_ref)
namespace std {
template <class T>
struct atomstress_atomic_ref : ::std::atomic_ref<T> {
  explicit atomstress_atomic_ref(T& v) : ::std::atomic_ref<T>(v) {}
  using ::std::atomic_ref<T>::operator=;
};
template <class T>
atomstress_atomic_ref(T&) -> atomstress_atomic_ref<T>;
}  // namespace std
#endif
