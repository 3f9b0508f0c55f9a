// Native atomics: the CUDA intrinsic on the device; on the host
// std::atomic_ref, or a CAS loop that computes exactly what the device
// computes (flush-to-zero float add, correctly rounded 16-bit float add,
// inc/dec wrap).  And the one CAS loop every emulated atomic uses, with its
// form for a 16-bit value spliced into its 32-bit word.
#pragma once

#include <atomic>
#include <cstdint>
#include <type_traits>

#include "harness/prim/float_ops.cuh"
#include "harness/prim/half_ops.cuh"
#include "harness/prim/memory.cuh"

namespace prim {

#if !defined(__CUDA_ARCH__)
template <class T, class F>
inline T host_rmw(T* p, F f) {
  auto r = host_ref(p);
  T old = r.load(std::memory_order_relaxed);
  while (!r.compare_exchange_weak(old, f(old), std::memory_order_relaxed)) {
  }
  return old;
}
#endif

template <class T>
AS_HD AS_FI T cas(T* p, T cmp, T val) {
  NV_IF_ELSE_TARGET(
      NV_IS_DEVICE,
      (if constexpr (sizeof(T) == 2) {
        return bit_cast<T>(atomicCAS(reinterpret_cast<unsigned short*>(p), bit_cast<unsigned short>(cmp),
                                     bit_cast<unsigned short>(val)));
      } else if constexpr (sizeof(T) == 4) {
        return bit_cast<T>(atomicCAS(reinterpret_cast<unsigned int*>(p), bit_cast<unsigned int>(cmp),
                                     bit_cast<unsigned int>(val)));
      } else {
        return bit_cast<T>(atomicCAS(reinterpret_cast<unsigned long long*>(p), bit_cast<unsigned long long>(cmp),
                                     bit_cast<unsigned long long>(val)));
      }),
      (host_ref(p).compare_exchange_strong(cmp, val, std::memory_order_relaxed);
       return cmp;))  // on failure cmp holds the value found
}

template <class T>
AS_HD AS_FI T exch(T* p, T v) {
  NV_IF_ELSE_TARGET(
      NV_IS_DEVICE,
      (if constexpr (std::is_same_v<T, long long> || std::is_same_v<T, double>) {
        return bit_cast<T>(atomicExch(reinterpret_cast<unsigned long long*>(p), bit_cast<unsigned long long>(v)));
      } else {
        return atomicExch(p, v);
      }),
      (return host_ref(p).exchange(v, std::memory_order_relaxed);))
}

template <class T>
AS_HD AS_FI T add(T* p, T v) {
  NV_IF_ELSE_TARGET(
      NV_IS_DEVICE,
      (if constexpr (std::is_same_v<T, long long>) {
        // CUDA has no signed 64-bit atomicAdd: libraries add on the unsigned
        // word (two's complement makes it the same sum).
        return static_cast<long long>(
            atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v)));
      } else {
        return atomicAdd(p, v);
      }),
      (if constexpr (std::is_same_v<T, float>) {
        // Global memory flushes subnormals, shared memory does not (measured).
        return host_rmw(p, [v](float o) { return host_interleave.shared_space ? canon_nan(o + v) : fadd_ftz(o, v); });
      } else if constexpr (std::is_same_v<T, double>) {
        return host_rmw(p, [v](double o) { return canon_nan(o + v); });
      } else if constexpr (is_half_float_v<T>) {
        // atom.add.noftz.{f16,bf16} (sm_90): round to nearest even, subnormals
        // kept.  On the host, a CAS loop on the 16-bit word alone.
        return from_bits<T>(host_rmw(reinterpret_cast<uint16_t*>(p), [v](uint16_t o) {
          return static_cast<uint16_t>(to_bits(hadd(from_bits<T>(o), v)));
        }));
      } else {
        return host_ref(p).fetch_add(v, std::memory_order_relaxed);
      }))
}
// Records that it ran, so the runner can check that no other block touches
// the address (a block-scope atomic is not atomic across blocks).
template <class T>
AS_HD AS_FI T add_block(T* p, T v, Retry& r) {
  r.block_scope = 1;
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return atomicAdd_block(p, v);),
                    (return host_ref(p).fetch_add(v, std::memory_order_relaxed);))
}
template <class T>
AS_HD AS_FI T sub(T* p, T v) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return atomicSub(p, v);),
                    (return host_ref(p).fetch_sub(v, std::memory_order_relaxed);))
}
template <class T>
AS_HD AS_FI T and_(T* p, T v) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return atomicAnd(p, v);),
                    (return host_ref(p).fetch_and(v, std::memory_order_relaxed);))
}
template <class T>
AS_HD AS_FI T or_(T* p, T v) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return atomicOr(p, v);),
                    (return host_ref(p).fetch_or(v, std::memory_order_relaxed);))
}
template <class T>
AS_HD AS_FI T xor_(T* p, T v) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return atomicXor(p, v);),
                    (return host_ref(p).fetch_xor(v, std::memory_order_relaxed);))
}
template <class T>
AS_HD AS_FI T min(T* p, T v) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return atomicMin(p, v);),
                    (return host_rmw(p, [v](T o) { return v < o ? v : o; });))
}
template <class T>
AS_HD AS_FI T max(T* p, T v) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return atomicMax(p, v);),
                    (return host_rmw(p, [v](T o) { return v > o ? v : o; });))
}

// atomicInc / atomicDec wraparound, as measured on the H100; the same
// formulas at 64 bits for the CAS-emulated u64 forms (CUDA has no 64-bit
// atomicInc/atomicDec).
template <class U>
AS_HD AS_FI U inc_formula(U old, U lim) {
  static_assert(std::is_unsigned_v<U>);
  return old >= lim ? U(0) : U(old + 1u);
}
template <class U>
AS_HD AS_FI U dec_formula(U old, U lim) {
  static_assert(std::is_unsigned_v<U>);
  return (old == 0u || old > lim) ? lim : U(old - 1u);
}
AS_HD AS_FI uint32_t inc(uint32_t* p, uint32_t lim) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return atomicInc(p, lim);),
                    (return host_rmw(p, [lim](uint32_t o) { return inc_formula(o, lim); });))
}
AS_HD AS_FI uint32_t dec(uint32_t* p, uint32_t lim) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return atomicDec(p, lim);),
                    (return host_rmw(p, [lim](uint32_t o) { return dec_formula(o, lim); });))
}

// The integer-compare CAS loop that every emulated atomic uses: it compares
// bit patterns, never floats, so a NaN in memory cannot make it spin.
// `f(old)` computes the new value.  Returns the value the successful CAS
// replaced (or the last value seen, if the loop gave up).
template <class T, class F>
AS_HD AS_FI T cas_loop(T* p, Retry& r, F f) {
  using U = std::conditional_t<sizeof(T) == 2, unsigned short,
                               std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>>;
  U* w = reinterpret_cast<U*>(p);
  U old = load(w);
  for (;;) {
    const U assumed = old;
    old = cas(w, assumed, bit_cast<U>(f(bit_cast<T>(assumed))));
    if (old == assumed) break;
    r.saw(old);
    if (!r.again()) break;
  }
  return bit_cast<T>(old);
}

// The same loop for a 16-bit value (u16, __half, __nv_bfloat16) done by CAS
// on its enclosing aligned 32-bit word, as code written for hardware
// without a 16-bit CAS does it: `f(old)` computes the new 16-bit value, and
// the other half of the word is written back exactly as it was read.
// Returns the old 16-bit value.
template <class T, class F>
AS_HD AS_FI T cas_loop_in_word(T* p, Retry& r, F f) {
  static_assert(sizeof(T) == 2, "a 16-bit value");
  auto* w = reinterpret_cast<uint32_t*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t(3));
  const unsigned shift = (reinterpret_cast<uintptr_t>(p) & 2u) * 8u;
  const uint32_t old = cas_loop(w, r, [&f, shift](uint32_t word) {
    const uint32_t half = static_cast<uint16_t>(to_bits(f(from_bits<T>(word >> shift))));
    return (word & ~(0xffffu << shift)) | (half << shift);
  });
  return from_bits<T>(old >> shift);
}

}  // namespace prim
