// Non-atomic memory access, fences and back-off, mapped to the device and to
// the host.  On the host every access is a relaxed std::atomic_ref access
// (no C++ undefined behaviour) with an interleaving point, so a deliberately
// non-atomic read-modify-write still races.
#pragma once

#include <atomic>
#include <cstdint>

#include "harness/prim/retry.cuh"

namespace prim {

#if !defined(__CUDA_ARCH__)
template <class T>
inline std::atomic_ref<T> host_ref(T* p) {
  return std::atomic_ref<T>(*p);
}
#endif

// A volatile access on the device: for deliberately broken code (a plain
// read-modify-write) and the first read of a CAS loop.
template <class T>
AS_HD AS_FI T plain_load(T* p) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return *reinterpret_cast<volatile T*>(p);),
                    (interleave_point(); return host_ref(p).load(std::memory_order_relaxed);))
}
template <class T>
AS_HD AS_FI void plain_store(T* p, T v) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (*reinterpret_cast<volatile T*>(p) = v;),
                    (interleave_point(); host_ref(p).store(v, std::memory_order_relaxed);))
}

// Ordinary memory, as code protected by a lock reads and writes it: a plain
// (non-volatile) access on the device, which the hardware may cache in L1.
template <class T>
AS_HD AS_FI T ordinary_load(T* p) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return *p;),
                    (interleave_point(); return host_ref(p).load(std::memory_order_relaxed);))
}
template <class T>
AS_HD AS_FI void ordinary_store(T* p, T v) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (*p = v;),
                    (host_ref(p).store(v, std::memory_order_relaxed); interleave_point();))
}

// A read through the L1 cache on purpose (__ldca, ld.global.ca): what code
// that reads shared data through a plain pointer may get from a line the SM
// cached before another SM wrote it.  Global memory only.
template <class T>
AS_HD AS_FI T l1_cached_load(T* p) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return __ldca(p);),
                    (interleave_point(); return host_ref(p).load(std::memory_order_relaxed);))
}

// An atomic (relaxed) read: the first read of a CAS loop.
template <class T>
AS_HD AS_FI T load(T* p) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return *reinterpret_cast<volatile T*>(p);),
                    (T v = host_ref(p).load(std::memory_order_relaxed); interleave_point(); return v;))
}

// __threadfence() / __threadfence_block(); on the host a sequentially
// consistent fence.
AS_HD AS_FI void fence_device() {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (__threadfence();), (std::atomic_thread_fence(std::memory_order_seq_cst);))
}
AS_HD AS_FI void fence_block() {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (__threadfence_block();), (std::atomic_thread_fence(std::memory_order_seq_cst);))
}

// Back-off between attempts of a spin loop: __nanosleep on the device, a
// yield on the host.
AS_HD AS_FI void backoff(uint32_t ns) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (__nanosleep(ns);), ((void)ns; std::this_thread::yield();))
}

}  // namespace prim
