// Native atomics beyond the device-scope intrinsics: system scope
// (atomicAdd_system, atomicCAS_system, used on device memory), the CUDA
// 12.8+ builtins with an explicit memory order and scope (__nv_atomic_*),
// and libcu++'s cuda::atomic_ref where it adds an operation the intrinsics
// lack (float min and max, signed 64-bit add).  The order of a builtin does
// not change the value its one word takes, so each has its device-scope
// twin's phi; what a wrong order breaks is other memory (weak_memory.cu).
#pragma once

#include <cuda/atomic>

#include "atomics_under_test/native.cuh"

namespace atomstress::native {

inline constexpr Semantics with_scope(Semantics s, Scope scope) {
  s.scope = scope;
  return s;
}

struct AddSystemU32 {
  AS_ATOMIC_HEAD("native.add_system.u32", Add, uint32_t, Domain::Int, with_scope(int_sem("old + a"), Scope::System),
                 old + a)
  AS_HD T operator()(T* p, T a, T, prim::Retry&) const { return prim::add_system(p, a); }
};
// The float add at system scope: the device-scope add's rounding and flush.
struct AddSystemF32 : AddF32 {
  static constexpr const char* name = "native.add_system.f32";
  static constexpr Semantics sem = with_scope(AddF32::sem, Scope::System);
  AS_HD T operator()(T* p, T a, T, prim::Retry&) const { return prim::add_system(p, a); }
};
struct CasSystemU32 {
  AS_ATOMIC_HEAD("native.cas_system.u32", Cas, uint32_t, Domain::Cas,
                 with_scope(int_sem("old == b ? a : old (b = compare)", kNA), Scope::System), (old == b ? a : old))
  AS_HD T operator()(T* p, T a, T b, prim::Retry&) const { return prim::cas_system(p, b, a); }
};

struct BuiltinAddU32 {
  AS_ATOMIC_HEAD("builtin.add.u32", Add, uint32_t, Domain::Int, int_sem("old + a (relaxed, device scope)"), old + a)
  AS_HD T operator()(T* p, T a, T, prim::Retry&) const {
    return prim::builtin_fetch_add<__NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE>(p, a);
  }
};
struct BuiltinAddF32 : AddF32 {
  static constexpr const char* name = "builtin.add.f32";
  AS_HD T operator()(T* p, T a, T, prim::Retry&) const {
    return prim::builtin_fetch_add<__NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE>(p, a);
  }
};
struct BuiltinMaxI32 {
  AS_ATOMIC_HEAD("builtin.max.i32", Max, int32_t, Domain::Int,
                 with_scope(int_sem("max(old, a) signed (acq_rel, system scope)", kNA), Scope::System),
                 a > old ? a : old)
  AS_HD T operator()(T* p, T a, T, prim::Retry&) const {
    return prim::builtin_fetch_max<__NV_ATOMIC_ACQ_REL, __NV_THREAD_SCOPE_SYSTEM>(p, a);
  }
};
struct BuiltinExchU64 {
  AS_ATOMIC_HEAD("builtin.exch.u64", Exch, unsigned long long, Domain::Exch, int_sem("a (seq_cst, device scope)", kNA),
                 a)
  AS_HD T operator()(T* p, T a, T, prim::Retry&) const {
    return prim::builtin_exchange<__NV_ATOMIC_SEQ_CST, __NV_THREAD_SCOPE_DEVICE>(p, a);
  }
};
struct BuiltinCasU32 {
  AS_ATOMIC_HEAD("builtin.cas.u32", Cas, uint32_t, Domain::Cas,
                 int_sem("old == b ? a : old (b = compare; strong, acq_rel or acquire, device scope)", kNA),
                 (old == b ? a : old))
  AS_HD T operator()(T* p, T a, T b, prim::Retry&) const {
    return prim::builtin_compare_exchange<__NV_ATOMIC_ACQ_REL, __NV_ATOMIC_ACQUIRE, __NV_THREAD_SCOPE_DEVICE>(p, b, a);
  }
};

// cuda::atomic_ref<float>::fetch_max and fetch_min (libcu++ 3.0, CUDA 13):
// on the device a CAS loop on the word's bits around a compare
// (cuda_ptx_derived.h: `old < val ? val : old`): the value in memory stays
// unless the operand compares greater (less).  So a NaN operand changes
// nothing, a NaN in memory stays for good with its payload, and of two
// zeros the one in memory stays.  Their host code is other code (host.h:
// `expected > val ? expected : val`, which takes the operand over a NaN or
// an equal zero in memory), so the cpu backend cannot stand in for the
// device here.
template <class T>
using device_ref = cuda::atomic_ref<T, cuda::thread_scope_device>;
inline constexpr const char* kLibcuHostMinMax =
    "libcu++'s host fetch_max/fetch_min is other code: it takes the operand over a NaN or an equal zero in memory, "
    "where the device keeps the memory's";
inline constexpr Semantics ordered_minmax_sem(const char* phi) {
  return float_sem(phi, "a NaN operand is ignored; a NaN in memory stays (payload kept)",
                   "of two zeros the one in memory stays (max(-0, +0) = -0 when -0 is in memory)",
                   "kept (a compare does not flush)");
}
struct LibcuMaxF32 {
  AS_ATOMIC_HEAD("libcu.max.f32", Max, float, Domain::Float, ordered_minmax_sem("old < a ? a : old"),
                 old < a ? a : old)
  static constexpr bool cpu_capable = false;
  static constexpr const char* cpu_unavailable = kLibcuHostMinMax;
  AS_HD T operator()(T* p, T a, T, prim::Retry&) const {
    return device_ref<T>(*p).fetch_max(a, cuda::memory_order_relaxed);
  }
};
struct LibcuMinF32 {
  AS_ATOMIC_HEAD("libcu.min.f32", Min, float, Domain::Float, ordered_minmax_sem("a < old ? a : old"),
                 a < old ? a : old)
  static constexpr bool cpu_capable = false;
  static constexpr const char* cpu_unavailable = kLibcuHostMinMax;
  AS_HD T operator()(T* p, T a, T, prim::Retry&) const {
    return device_ref<T>(*p).fetch_min(a, cuda::memory_order_relaxed);
  }
};
struct LibcuAddI64 {
  AS_ATOMIC_HEAD("libcu.add.i64", Add, long long, Domain::Int, int_sem("old + a"),
                 AS_WRAP(long long, static_cast<unsigned long long>(old) + static_cast<unsigned long long>(a)))
  AS_HD T operator()(T* p, T a, T, prim::Retry&) const {
    return device_ref<T>(*p).fetch_add(a, cuda::memory_order_relaxed);
  }
};

}  // namespace atomstress::native
