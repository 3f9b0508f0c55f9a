// The primitive layer: the one place where each atomic, each floating-point
// operation and each bounded retry is mapped to the device and to the host.
//
// Implementations in atomics_under_test/ are written once, against prim::*, and
// compile for both the CUDA backend (device code) and the CPU backend (host
// threads through std::atomic_ref).  No other file chooses between the two.
//
// Every host mapping of a floating-point operation reproduces what the H100
// does, bit for bit (canonical NaN, sign of zero, subnormal flushing where the
// device flushes), because the CPU backend and the oracle both rely on it.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__CUDACC__)
#define AS_HD __host__ __device__
#define AS_FI __forceinline__
#else
#define AS_HD
#define AS_FI inline
#endif

#if !defined(__CUDA_ARCH__)
#include <chrono>
#include <thread>
#endif

namespace prim {

// ---------------------------------------------------------------- bit casts
template <class To, class From>
AS_HD AS_FI To bit_cast(From f) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast size mismatch");
  To t;
  memcpy(&t, &f, sizeof(To));
  return t;
}

// The NaN that the GPU's arithmetic produces (measured on an H100; see
// DESIGN.md).  Host mappings produce the same bits.
inline constexpr uint32_t kCanonicalNanF32 = 0x7fffffffu;
inline constexpr uint64_t kCanonicalNanF64 = 0x7fffffffffffffffull;

// ------------------------------------------------------------ retry budgets
// Every loop that can retry (CAS loops, spin locks) asks Retry::again() before
// each further attempt.  It gives up after `budget` retries, when another
// thread of the same trial already gave up (the shared abort flag), or when
// the trial's watchdog deadline has passed.  A loop that gives up returns at
// once; the backend reports the trial as a hang.  So no bug can hang a kernel.
struct RetryShared {
  unsigned int abort_flag;  // set to 1 by the first loop that gives up
};

struct Retry {
  uint32_t budget = 1u << 20;
  uint32_t count = 0;
  uint32_t gave_up = 0;                     // 1: budget, 2: watchdog, 3: aborted by another thread
  uint32_t block_scope = 0;                 // 1: a block-scope atomic was used (scope checked by the runner)
  RetryShared* shared = nullptr;
  uint64_t deadline_ns = 0;                 // 0: no deadline

  AS_HD AS_FI bool again();
};

#if defined(__CUDA_ARCH__)
__device__ AS_FI uint64_t now_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
#else
inline uint64_t now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}
// Host threads: the CPU backend sets a per-thread probability of yielding at
// interleaving points, so that races show up even on two cores.
struct HostInterleave {
  uint32_t yield_permille = 0;
  uint64_t state = 0x9e3779b97f4a7c15ull;
  bool shared_space = false;  // the trial runs in (emulated) shared memory
};
inline thread_local HostInterleave host_interleave;
inline void interleave_point() {
  auto& h = host_interleave;
  if (h.yield_permille == 0) return;
  h.state ^= h.state << 13;
  h.state ^= h.state >> 7;
  h.state ^= h.state << 17;
  if (h.state % 1000 < h.yield_permille) std::this_thread::yield();
}
#endif

AS_HD AS_FI bool Retry::again() {
  ++count;
  if (count > budget) {
    gave_up = 1;
  } else if ((count & 63u) == 0) {
    if (shared != nullptr) {
#if defined(__CUDA_ARCH__)
      if (*reinterpret_cast<volatile unsigned int*>(&shared->abort_flag) != 0) gave_up = 3;
#else
      if (std::atomic_ref<unsigned int>(shared->abort_flag).load(std::memory_order_relaxed) != 0)
        gave_up = 3;
#endif
    }
    if (gave_up == 0 && deadline_ns != 0 && now_ns() > deadline_ns) gave_up = 2;
  }
  if (gave_up != 0) {
    if (shared != nullptr && gave_up != 3) {
#if defined(__CUDA_ARCH__)
      atomicExch(&shared->abort_flag, 1u);
#else
      std::atomic_ref<unsigned int>(shared->abort_flag).store(1u, std::memory_order_relaxed);
#endif
    }
    return false;
  }
#if !defined(__CUDA_ARCH__)
  interleave_point();
#endif
  return true;
}

// ------------------------------------------------------- host atomic helper
#if !defined(__CUDA_ARCH__)
template <class T>
inline std::atomic_ref<T> host_ref(T* p) {
  return std::atomic_ref<T>(*p);
}
// Host CAS loop used to give a native device atomic its exact device
// semantics on the host (e.g. flush-to-zero float add, inc/dec wrap).
template <class T, class F>
inline T host_rmw(T* p, F f) {
  auto r = host_ref(p);
  T old = r.load(std::memory_order_relaxed);
  while (!r.compare_exchange_weak(old, f(old), std::memory_order_relaxed)) {
  }
  return old;
}
#endif

// Map an integral-looking operation to the device intrinsic or to the host.
#if defined(__CUDA_ARCH__)
#define PRIM_DISPATCH(device_expr, host_expr) return device_expr
#else
#define PRIM_DISPATCH(device_expr, host_expr) return host_expr
#endif

// ----------------------------------------------- floating point, GPU-exact
// Host versions reproduce the device: round to nearest, canonical NaN.
AS_HD AS_FI float canon_nan(float x) {
  return x != x ? bit_cast<float>(kCanonicalNanF32) : x;
}
AS_HD AS_FI double canon_nan(double x) {
  return x != x ? bit_cast<double>(kCanonicalNanF64) : x;
}
AS_HD AS_FI float fadd(float a, float b) { PRIM_DISPATCH(__fadd_rn(a, b), canon_nan(a + b)); }
AS_HD AS_FI float fmul(float a, float b) { PRIM_DISPATCH(__fmul_rn(a, b), canon_nan(a * b)); }
AS_HD AS_FI double dadd(double a, double b) { PRIM_DISPATCH(__dadd_rn(a, b), canon_nan(a + b)); }
AS_HD AS_FI double dmul(double a, double b) { PRIM_DISPATCH(__dmul_rn(a, b), canon_nan(a * b)); }

// fmax/fmin as the device computes them: a NaN operand is ignored, two NaNs
// give the canonical NaN, and +0 is greater than -0.
template <class F>
AS_HD AS_FI F host_fmaxmin(F a, F b, bool is_max) {
  if (a != a && b != b) return canon_nan(a);
  if (a != a) return b;
  if (b != b) return a;
  if (a == b) {  // equal values, maybe zeros of different signs
    const bool sa = (bit_cast<std::conditional_t<sizeof(F) == 4, uint32_t, uint64_t>>(a) >> (sizeof(F) * 8 - 1)) != 0;
    const bool sb = (bit_cast<std::conditional_t<sizeof(F) == 4, uint32_t, uint64_t>>(b) >> (sizeof(F) * 8 - 1)) != 0;
    if (sa == sb) return a;
    return (is_max ? !sa : sa) ? a : b;
  }
  return is_max ? (a > b ? a : b) : (a < b ? a : b);
}
AS_HD AS_FI float fmaxf_(float a, float b) { PRIM_DISPATCH(fmaxf(a, b), host_fmaxmin(a, b, true)); }
AS_HD AS_FI float fminf_(float a, float b) { PRIM_DISPATCH(fminf(a, b), host_fmaxmin(a, b, false)); }
AS_HD AS_FI double fmax_(double a, double b) { PRIM_DISPATCH(fmax(a, b), host_fmaxmin(a, b, true)); }
AS_HD AS_FI double fmin_(double a, double b) { PRIM_DISPATCH(fmin(a, b), host_fmaxmin(a, b, false)); }

// What native atomicAdd(float) on global memory computes on the H100:
// subnormal inputs and results flushed to a zero of the same sign, round to
// nearest, canonical NaN.
AS_HD AS_FI float ftz(float x) {
  const uint32_t b = bit_cast<uint32_t>(x);
  return ((b & 0x7f800000u) == 0) ? bit_cast<float>(b & 0x80000000u) : x;
}
AS_HD AS_FI float fadd_ftz(float a, float b) { return ftz(canon_nan(ftz(a) + ftz(b))); }

// ------------------------------------------------------------ plain memory
// Non-atomic access for deliberately broken code.  On the host a relaxed
// atomic access keeps the program free of C++ undefined behaviour while
// keeping the read-modify-write non-atomic.
template <class T>
AS_HD AS_FI T plain_load(T* p) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<volatile T*>(p);
#else
  interleave_point();
  return host_ref(p).load(std::memory_order_relaxed);
#endif
}
template <class T>
AS_HD AS_FI void plain_store(T* p, T v) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<volatile T*>(p) = v;
#else
  interleave_point();
  host_ref(p).store(v, std::memory_order_relaxed);
#endif
}

// Ordinary memory, as code protected by a lock reads and writes it: a plain
// (non-volatile) access on the device, which the hardware may cache in L1;
// on the host a relaxed atomic access (no C++ undefined behaviour) with an
// interleaving point.
template <class T>
AS_HD AS_FI T ordinary_load(T* p) {
#if defined(__CUDA_ARCH__)
  return *p;
#else
  interleave_point();
  return host_ref(p).load(std::memory_order_relaxed);
#endif
}
template <class T>
AS_HD AS_FI void ordinary_store(T* p, T v) {
#if defined(__CUDA_ARCH__)
  *p = v;
#else
  host_ref(p).store(v, std::memory_order_relaxed);
  interleave_point();
#endif
}

// Memory fences: __threadfence() / __threadfence_block(); on the host a
// sequentially consistent fence.
AS_HD AS_FI void fence_device() {
#if defined(__CUDA_ARCH__)
  __threadfence();
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}
AS_HD AS_FI void fence_block() {
#if defined(__CUDA_ARCH__)
  __threadfence_block();
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

// Back-off between attempts of a spin loop: __nanosleep on the device, a
// yield on the host.
AS_HD AS_FI void backoff(uint32_t ns) {
#if defined(__CUDA_ARCH__)
  __nanosleep(ns);
#else
  (void)ns;
  std::this_thread::yield();
#endif
}

// An atomic (relaxed) read: the first read of a CAS loop.
template <class T>
AS_HD AS_FI T load(T* p) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<volatile T*>(p);
#else
  T v = host_ref(p).load(std::memory_order_relaxed);
  interleave_point();
  return v;
#endif
}

// ------------------------------------------------------------ native atomics
// Device: the CUDA intrinsic.  Host: std::atomic_ref, or a CAS loop that
// computes exactly what the device computes.
template <class T>
AS_HD AS_FI T cas(T* p, T cmp, T val) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 2) {
    return atomicCAS(reinterpret_cast<unsigned short*>(p), bit_cast<unsigned short>(cmp),
                     bit_cast<unsigned short>(val));
  } else if constexpr (sizeof(T) == 4) {
    return bit_cast<T>(atomicCAS(reinterpret_cast<unsigned int*>(p), bit_cast<unsigned int>(cmp),
                                 bit_cast<unsigned int>(val)));
  } else {
    return bit_cast<T>(atomicCAS(reinterpret_cast<unsigned long long*>(p),
                                 bit_cast<unsigned long long>(cmp), bit_cast<unsigned long long>(val)));
  }
#else
  host_ref(p).compare_exchange_strong(cmp, val, std::memory_order_relaxed);
  return cmp;  // on failure cmp holds the value found
#endif
}

template <class T>
AS_HD AS_FI T exch(T* p, T v) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, long long> || std::is_same_v<T, double>)
    return bit_cast<T>(atomicExch(reinterpret_cast<unsigned long long*>(p), bit_cast<unsigned long long>(v)));
  else
    return atomicExch(p, v);
#else
  return host_ref(p).exchange(v, std::memory_order_relaxed);
#endif
}

template <class T>
AS_HD AS_FI T add(T* p, T v) {
  if constexpr (std::is_same_v<T, float>) {
    // Global memory flushes subnormals, shared memory does not (measured).
    PRIM_DISPATCH(atomicAdd(p, v), host_rmw(p, [v](float o) {
                    return host_interleave.shared_space ? canon_nan(o + v) : fadd_ftz(o, v);
                  }));
  } else if constexpr (std::is_same_v<T, double>) {
    PRIM_DISPATCH(atomicAdd(p, v), host_rmw(p, [v](double o) { return canon_nan(o + v); }));
  } else {
    PRIM_DISPATCH(atomicAdd(p, v), host_ref(p).fetch_add(v, std::memory_order_relaxed));
  }
}
// Records that it ran, so the runner can check that no other block touches
// the address (a block-scope atomic is not atomic across blocks).
template <class T>
AS_HD AS_FI T add_block(T* p, T v, Retry& r) {
  r.block_scope = 1;
  PRIM_DISPATCH(atomicAdd_block(p, v), host_ref(p).fetch_add(v, std::memory_order_relaxed));
}
template <class T>
AS_HD AS_FI T sub(T* p, T v) {
  PRIM_DISPATCH(atomicSub(p, v), host_ref(p).fetch_sub(v, std::memory_order_relaxed));
}
template <class T>
AS_HD AS_FI T and_(T* p, T v) {
  PRIM_DISPATCH(atomicAnd(p, v), host_ref(p).fetch_and(v, std::memory_order_relaxed));
}
template <class T>
AS_HD AS_FI T or_(T* p, T v) {
  PRIM_DISPATCH(atomicOr(p, v), host_ref(p).fetch_or(v, std::memory_order_relaxed));
}
template <class T>
AS_HD AS_FI T xor_(T* p, T v) {
  PRIM_DISPATCH(atomicXor(p, v), host_ref(p).fetch_xor(v, std::memory_order_relaxed));
}
template <class T>
AS_HD AS_FI T min(T* p, T v) {
  PRIM_DISPATCH(atomicMin(p, v), host_rmw(p, [v](T o) { return v < o ? v : o; }));
}
template <class T>
AS_HD AS_FI T max(T* p, T v) {
  PRIM_DISPATCH(atomicMax(p, v), host_rmw(p, [v](T o) { return v > o ? v : o; }));
}

// atomicInc / atomicDec wraparound, as measured on the H100.
AS_HD AS_FI uint32_t inc_formula(uint32_t old, uint32_t lim) { return old >= lim ? 0u : old + 1u; }
AS_HD AS_FI uint32_t dec_formula(uint32_t old, uint32_t lim) {
  return (old == 0u || old > lim) ? lim : old - 1u;
}
AS_HD AS_FI uint32_t inc(uint32_t* p, uint32_t lim) {
  PRIM_DISPATCH(atomicInc(p, lim), host_rmw(p, [lim](uint32_t o) { return inc_formula(o, lim); }));
}
AS_HD AS_FI uint32_t dec(uint32_t* p, uint32_t lim) {
  PRIM_DISPATCH(atomicDec(p, lim), host_rmw(p, [lim](uint32_t o) { return dec_formula(o, lim); }));
}

#undef PRIM_DISPATCH

// ---------------------------------------------------------- the CAS loop
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
    if (old == assumed || !r.again()) break;
  }
  return bit_cast<T>(old);
}

}  // namespace prim
