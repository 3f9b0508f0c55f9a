// atomstress: test your own atomics, as you wrote them.
//
//   #include <atomstress/atomstress.cuh>
//
//   __device__ float my_max(float* p, float v) { /* your code, unchanged */ }
//   ATOMSTRESS_ATOMIC("mylib.max.f32", my_max, "cas.max.f32");
//
//   __device__ void my_lock(int* l) { while (atomicCAS(l, 0, 1) != 0) {} __threadfence(); }
//   __device__ void my_unlock(int* l) { __threadfence(); atomicExch(l, 0); }
//   ATOMSTRESS_LOCK("mylib.spin", my_lock, my_unlock);
//
// and in CMake: find_package(atomstress) + atomstress_add_suite(my_suite
// SOURCES my_atomics.cu): an executable with the whole command line (list,
// check, repro, fuzz, selftest, profile) over the built-in catalogue and
// your entries, each also paired with every algorithm form it fits
// (sum.block@mylib.add.f32, ...).
//
// ATOMSTRESS_ATOMIC(name, fn, spec): fn is `T fn(T*, T)` or, CAS-shaped,
// `T fn(T* address, T compare, T val)`, returning the old value, or a void
// update `void fn(T*, T)` of an op whose final memory is checked without the
// updates' order (add, sub, mul, and, or, xor, min, max on integers; add on
// floats; exch): its final memory is checked, and alone each state; T is the
// spec's type (i32 int, u32 unsigned, i64 long long or int64_t, u64 unsigned
// long long or uint64_t, f32, f64, u16 unsigned short, f16 __half, bf16
// __nv_bfloat16).  fn may be a function template that deduces T.  `spec` names
// the built-in entry whose semantics fn must meet (`atomstress list -v`): its
// operation, NaN policy, signed zeros, subnormals, wrap and NaN-state rule.
// ATOMSTRESS_ATOMIC_SPEC(name, fn, spec_object) takes your own spec instead:
// a constexpr atomstress::UserSpec<T>{op, domain, semantics, phi}.
//
// Include this header after the CUDA headers your code uses and before any
// header of yours with atomics (the suite's build refuses an atomic intrinsic
// called before it, naming file:line and the function): from here on
// the unit's atomic intrinsics (atomicCAS, atomicAdd, ..., their _block and
// _system forms) are intercepted: each call after an op's first counts as a
// retry, block-scope calls are checked by the scope rule, and a loop that
// never ends is stopped at the trial's deadline (the trial reports HANG; on
// the GPU the kernel traps and the supervised worker process restarts).
// Where the unit compiles as host code too (atomstress_add_suite probes each
// source), the same functions also run on the CPU backend.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "harness/byo/intercept.cuh"
#include "harness/byo/intercept_libcudacxx.cuh"
#include "harness/byo/user_entry.cuh"

#ifndef ATOMSTRESS_HOST_CALLABLE
#define ATOMSTRESS_HOST_CALLABLE 0
#endif
#ifndef ATOMSTRESS_NOT_INTERCEPTED
#define ATOMSTRESS_NOT_INTERCEPTED nullptr
#endif
#ifndef ATOMSTRESS_GPU_ONLY_REASON
#define ATOMSTRESS_GPU_ONLY_REASON "its unit was built without atomstress_add_suite's host probe"
#endif

// atomstress_add_suite's probe found a CUDA atomic intrinsic called before
// this header (a library header with atomics included first): it would run
// unintercepted, and a host build of it would call the device intrinsic.
#ifdef ATOMSTRESS_CALLED_BEFORE_INCLUDE
static_assert(false, ATOMSTRESS_CALLED_BEFORE_INCLUDE);
#endif

#if ATOMSTRESS_HOST_CALLABLE
#include "harness/byo/host_callable.cuh"
#endif
#include "harness/byo/intercept_macros.cuh"

namespace atomstress {
using byo::UserSpec;
}

// The probe of atomstress_add_suite only compiles each entry's call for the
// host; a build registers the entry (instantiating its kernels).
#if defined(ATOMSTRESS_PROBE_ONLY)
#define ATOMSTRESS_REGISTER_ATOMIC_(ID) ::atomstress::byo::probe_user_atomic<ID>()
#define ATOMSTRESS_REGISTER_LOCK_(ID) ::atomstress::byo::probe_user_lock<ID>()
#else
#define ATOMSTRESS_REGISTER_ATOMIC_(ID) ::atomstress::byo::register_user_atomic<ID>()
#define ATOMSTRESS_REGISTER_LOCK_(ID) ::atomstress::byo::register_user_lock<ID>()
#endif

#define ATOMSTRESS_CAT_(a, b) a##b
#define ATOMSTRESS_CAT(a, b) ATOMSTRESS_CAT_(a, b)

// Whether this unit's entries also run on the CPU backend, and the atomics
// in it that atomstress cannot intercept (found by the suite's build).
// (The static_assert uses gpu_only_reason: nvcc warned "declared but never
// referenced" (#177) once per entry in a user's build, [[maybe_unused]] or not.)
#define ATOMSTRESS_HOST_FLAGS_                                                                     \
  static constexpr bool host_callable = ATOMSTRESS_HOST_CALLABLE != 0;                            \
  static constexpr const char* gpu_only_reason = ATOMSTRESS_GPU_ONLY_REASON;                      \
  static_assert(sizeof(gpu_only_reason) != 0, "");                                                \
  static constexpr const char* not_intercepted = ATOMSTRESS_NOT_INTERCEPTED;

// Calls the user's function exactly as written, in the shape its spec gives:
// `fn(p, a)`, or for a compare-and-swap spec `fn(p, compare, val)` (the
// trial's b is the compare value, a the new one).  `call` is a dependent call,
// so a qualified name (mylib::fn), a template id (fn<double>; parenthesise one
// with a comma) and an overload set resolve as in the user's code.
// (`call` is __device__ as the user's function is: in a unit compiled for the
// host too, host_callable.cuh makes both __host__ __device__.)
#define ATOMSTRESS_INVOKE_(ID, FN)                                                                    \
  template <class... A>                                                                                \
  __device__ static auto call(A... a) -> decltype(FN(a...)) {                                          \
    return FN(a...);                                                                                   \
  }                                                                                                    \
  template <class... A> /* declared only: call_shape's unevaluated calls */                            \
  __device__ static auto shape_probe(A... a) -> decltype(FN(a...));                                    \
  _Pragma("nv_exec_check_disable") template <class V = T>                                              \
  __host__ __device__ static V invoke(V* p, V a, V b) {                                                \
    constexpr bool cas = op == ::atomstress::Op::Cas;                                                  \
    using U = ::atomstress::byo::call_type_t<ID, V, cas>; /* V, or int64_t's spelling of it */         \
    constexpr auto shape = ::atomstress::byo::call_shape<ID, U, cas>();                                \
    constexpr bool ok = ::atomstress::byo::shape_ok<shape, op, V, has_own_spec>();                     \
    U* q = reinterpret_cast<U*>(p); /* the same type, or one of its width and signedness */           \
    if constexpr (!ok) {                                                                               \
      return V{};                                                                                      \
    } else if constexpr (shape == ::atomstress::byo::Shape::ReturnsNothing) {                          \
      const V before = ::prim::ordinary_load(p); /* the "returned" value: exact alone */   \
      call(q, U(a));                                                                                   \
      return before;                                                                                   \
    } else if constexpr (cas) {                                                                        \
      return call(q, U(b), U(a));                                                                      \
    } else {                                                                                           \
      return call(q, U(a));                                                                            \
    }                                                                                                  \
  }

#define ATOMSTRESS_ATOMIC(NAME, FN, SPEC) \
  ATOMSTRESS_ATOMIC_(ATOMSTRESS_CAT(atomstress_entry_, __COUNTER__), ATOMSTRESS_CAT(atomstress_registered_, __COUNTER__), NAME, FN, SPEC)
#define ATOMSTRESS_ATOMIC_(ID, REG, NAME, FN, SPEC)                                                          \
  namespace {                                                                                                \
  struct ID {                                                                                                \
    static_assert(::atomstress::byo::spec_name_ok(SPEC),                                                     \
                  "atomstress: the spec must name a built-in single atomic, family.op.type "                 \
                  "(atomstress list --impl atomics)");                                                       \
    static_assert(::atomstress::byo::spec_type_index(SPEC) >= 0,                                             \
                  "atomstress: the spec's type must be one of i32 u32 i64 u64 f32 f64 u16 f16 bf16");        \
    using T = ::atomstress::byo::spec_type_t<::atomstress::byo::spec_type_index(SPEC)>;                     \
    static constexpr const char* entry_name = NAME;                                                          \
    static constexpr const char* spec_name = SPEC;                                                           \
    static constexpr bool has_own_spec = false;                                                              \
    static constexpr ::atomstress::Op op = ::atomstress::byo::spec_op(SPEC);                                 \
    static constexpr ::atomstress::Domain domain = ::atomstress::Domain::Int; /* the spec's, at start-up */ \
    static constexpr ::atomstress::Semantics sem = ::atomstress::byo::assumed_semantics(SPEC);               \
    ATOMSTRESS_HOST_FLAGS_                                                                                   \
    ATOMSTRESS_INVOKE_(ID, FN)                                                                               \
  };                                                                                                         \
  const bool REG = ATOMSTRESS_REGISTER_ATOMIC_(ID);                                            \
  }                                                                                                          \
  static_assert(true, "")

#define ATOMSTRESS_ATOMIC_SPEC(NAME, FN, SPEC_OBJECT)                                                     \
  ATOMSTRESS_ATOMIC_SPEC_(ATOMSTRESS_CAT(atomstress_entry_, __COUNTER__),                                 \
                          ATOMSTRESS_CAT(atomstress_registered_, __COUNTER__), NAME, FN, SPEC_OBJECT)
#define ATOMSTRESS_ATOMIC_SPEC_(ID, REG, NAME, FN, SPEC_OBJECT)                         \
  namespace {                                                                           \
  struct ID {                                                                           \
    using T = typename std::remove_cvref_t<decltype(SPEC_OBJECT)>::value_type;          \
    static constexpr const auto& spec = SPEC_OBJECT;                                    \
    static constexpr const char* entry_name = NAME;                                     \
    static constexpr bool has_own_spec = true;                                          \
    static constexpr ::atomstress::Op op = spec.op;                                     \
    static constexpr ::atomstress::Domain domain = spec.domain;                         \
    static constexpr ::atomstress::Semantics sem = spec.sem;                            \
    ATOMSTRESS_HOST_FLAGS_                                                              \
    ATOMSTRESS_INVOKE_(ID, FN)                                                          \
  };                                                                                    \
  const bool REG = ATOMSTRESS_REGISTER_ATOMIC_(ID);                       \
  }                                                                                     \
  static_assert(true, "")

// A lock given as acquire/release of an int (or unsigned) lock word that is 0
// when free; checked by the lock family's oracle (no lost update to the data
// it protects, every lock released).
#define ATOMSTRESS_LOCK_CALL_(F, l)                                     \
  if constexpr (requires { F(::atomstress::byo::lock_word<int>(l)); })  \
    F(::atomstress::byo::lock_word<int>(l));                            \
  else                                                                  \
    F(::atomstress::byo::lock_word<unsigned>(l))
#define ATOMSTRESS_LOCK(NAME, ACQUIRE, RELEASE)                                                          \
  ATOMSTRESS_LOCK_(ATOMSTRESS_CAT(atomstress_entry_, __COUNTER__),                                       \
                   ATOMSTRESS_CAT(atomstress_registered_, __COUNTER__), NAME, ACQUIRE, RELEASE)
#define ATOMSTRESS_LOCK_(ID, REG, NAME, ACQUIRE, RELEASE)                                     \
  namespace {                                                                                 \
  struct ID {                                                                                 \
    static constexpr const char* entry_name = NAME;                                           \
    ATOMSTRESS_HOST_FLAGS_                                                                    \
    _Pragma("nv_exec_check_disable") template <class L>                                       \
    __host__ __device__ static void acquire(L* l) { ATOMSTRESS_LOCK_CALL_(ACQUIRE, l); }       \
    _Pragma("nv_exec_check_disable") template <class L>                                       \
    __host__ __device__ static void release(L* l) { ATOMSTRESS_LOCK_CALL_(RELEASE, l); }       \
  };                                                                                          \
  const bool REG = ATOMSTRESS_REGISTER_LOCK_(ID);                               \
  }                                                                                           \
  static_assert(true, "")
