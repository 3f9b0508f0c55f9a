// Native atomics of another scope than the device's, and the CUDA 12.8+
// builtins that take a memory order and a scope (__nv_atomic_*).  On the
// host: the same operation as prim's device-scope one (a host process has
// one scope, and these atomics' value on their one word does not depend on
// the order, which only orders other memory).
#pragma once

#include "harness/prim/atomics.cuh"

namespace prim {

template <class T>
AS_HD AS_FI T add_system(T* p, T v) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return atomicAdd_system(p, v);), (return add(p, v);))
}
template <class T>
AS_HD AS_FI T cas_system(T* p, T cmp, T val) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return atomicCAS_system(p, cmp, val);), (return cas(p, cmp, val);))
}

// Order and Scope: the builtins' own constants (__NV_ATOMIC_RELAXED ...,
// __NV_THREAD_SCOPE_DEVICE ...), which they require at compile time.
template <int Order, int Scope, class T>
AS_HD AS_FI T builtin_fetch_add(T* p, T v) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return __nv_atomic_fetch_add(p, v, Order, Scope);), (return add(p, v);))
}
template <int Order, int Scope, class T>
AS_HD AS_FI T builtin_fetch_max(T* p, T v) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return __nv_atomic_fetch_max(p, v, Order, Scope);), (return max(p, v);))
}
template <int Order, int Scope, class T>
AS_HD AS_FI T builtin_exchange(T* p, T v) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return __nv_atomic_exchange_n(p, v, Order, Scope);), (return exch(p, v);))
}
// A strong compare-exchange; returns the value it found (the builtin
// writes it to `cmp` when they differ).
template <int Success, int Failure, int Scope, class T>
AS_HD AS_FI T builtin_compare_exchange(T* p, T cmp, T val) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE,
                    (__nv_atomic_compare_exchange_n(p, &cmp, val, false, Success, Failure, Scope); return cmp;),
                    (return cas(p, cmp, val);))
}

}  // namespace prim
