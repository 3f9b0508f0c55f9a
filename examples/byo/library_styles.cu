// Atomics written the ways libraries write them: in namespaces, as templates
// and overload sets, through libcu++'s cuda::atomic_ref, with a spec of
// their own, beside the unit's own vector atomics.  README.md says what
// atomstress reports for each.
#include <cstdint>

#include <cuda/atomic>
#include <cuda_fp16.h>
#include <mylib/config.h>
#include <atomstress/atomstress.cuh>

namespace mylib {
// A qualified name...
__device__ int fetch_add(int* p, int v) { return atomicAdd(p, v); }
// ...a template...
template <class T>
__device__ T cas_add(T* p, T v) {
  unsigned long long* w = reinterpret_cast<unsigned long long*>(p);
  unsigned long long old = *w, assumed;
  do {
    assumed = old;
    old = atomicCAS(w, assumed, __double_as_longlong(__longlong_as_double(assumed) + v));
  } while (old != assumed);
  return __longlong_as_double(old);
}
// ...and an overload set.
__device__ unsigned fetch_max(unsigned* p, unsigned v) { return atomicMax(p, v); }
__device__ unsigned long long fetch_max(unsigned long long* p, unsigned long long v) { return atomicMax(p, v); }
}  // namespace mylib
namespace mylib {
// ...a bare function template, its T deduced at each registration...
template <class T>
__device__ T fetch_add_any(T* p, T v) {
  return atomicAdd(p, v);
}
// ...and the fixed-width spellings of <cstdint>: on LP64 int64_t and uint64_t
// are long and unsigned long, not CUDA's long long (AMReX's amrex::Long too).
__device__ int64_t fetch_max_i64(int64_t* p, int64_t v) {
  return atomicMax(reinterpret_cast<long long*>(p), static_cast<long long>(v));
}
__device__ uint64_t fetch_add_u64(uint64_t* p, uint64_t v) {
  return atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}
__device__ uint64_t cas_u64(uint64_t* p, uint64_t compare, uint64_t val) {
  return atomicCAS(reinterpret_cast<unsigned long long*>(p), compare, val);
}
}  // namespace mylib
ATOMSTRESS_ATOMIC("mylib.ns_add.i32", mylib::fetch_add, "native.add.i32");
ATOMSTRESS_ATOMIC("mylib.bare_template_add.f64", mylib::fetch_add_any, "native.add.f64");
ATOMSTRESS_ATOMIC("mylib.bare_template_add.u32", mylib::fetch_add_any, "native.add.u32");
ATOMSTRESS_ATOMIC("mylib.int64_max.i64", mylib::fetch_max_i64, "native.max.i64");
ATOMSTRESS_ATOMIC("mylib.uint64_add.u64", mylib::fetch_add_u64, "native.add.u64");
ATOMSTRESS_ATOMIC("mylib.uint64_cas.u64", mylib::cas_u64, "native.cas.u64");
ATOMSTRESS_ATOMIC("mylib.template_add.f64", mylib::cas_add<double>, "cas.add.f64");
ATOMSTRESS_ATOMIC("mylib.overload_max.u32", mylib::fetch_max, "native.max.u32");
ATOMSTRESS_ATOMIC("mylib.overload_max.u64", mylib::fetch_max, "native.max.u64");

// libcu++: a correct CAS loop on cuda::std::atomic_ref...
__device__ unsigned refAdd(unsigned* p, unsigned v) {
  cuda::std::atomic_ref<unsigned> r(*p);
  unsigned old = r.load(cuda::std::memory_order_relaxed);
  while (!r.compare_exchange_weak(old, old + v, cuda::std::memory_order_relaxed)) {
  }
  return old;
}
ATOMSTRESS_ATOMIC("mylib.ref_add.u32", refAdd, "native.add.u32");

// ...libcu++'s float add (atom.add.f32 on the GPU, as atomicAdd(float*):
// subnormals flushed in global memory, so it meets native.add.f32)...
__device__ float refAddFloat(float* p, float v) {
  cuda::atomic_ref<float, cuda::thread_scope_device> r(*p);
  return r.fetch_add(v, cuda::std::memory_order_relaxed);
}
ATOMSTRESS_ATOMIC("mylib.ref_add.f32", refAddFloat, "native.add.f32");

// ...a block-scope reference "optimisation" used on words several blocks
// share (the scope rule fails it, as it fails atomicAdd_block)...
__device__ int refAddBlock(int* p, int v) {
  cuda::atomic_ref<int, cuda::thread_scope_block> r(*p);
  return r.fetch_add(v, cuda::std::memory_order_relaxed);
}
ATOMSTRESS_ATOMIC("mylib.ref_add_block.i32", refAddBlock, "native.add.i32");

// ...and a CAS loop that never refreshes its expected value: once the word
// is not 0 it never ends (HANG from the retry budget, retries counted).
__device__ unsigned refAddStuck(unsigned* p, unsigned v) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> r(*p);
  unsigned expected = 0;
  while (!r.compare_exchange_strong(expected, expected + v)) expected = 0;
  return expected;
}
ATOMSTRESS_ATOMIC("mylib.ref_add_stuck.u32", refAddStuck, "native.add.u32");

// A saturating add with its own spec: only the forms whose oracle follows
// its phi are paired with it (the sums, held to the atomic's returned values).
__device__ unsigned satAdd(unsigned* p, unsigned v) {
  unsigned old = *p, assumed;
  do {
    assumed = old;
    const unsigned next = assumed + v < assumed ? MYLIB_SATURATED : assumed + v;
    old = atomicCAS(p, assumed, next);
  } while (old != assumed);
  return old;
}
constexpr atomstress::UserSpec<unsigned> kSaturatingAdd{
    atomstress::Op::Add, atomstress::Domain::Int, atomstress::int_sem("min(old + a, 2^32 - 1)", "saturates at 2^32 - 1"),
    [](unsigned o, unsigned a, unsigned) -> unsigned { return o + a < o ? MYLIB_SATURATED : o + a; }};
ATOMSTRESS_ATOMIC_SPEC("mylib.sat_add.u32", satAdd, kSaturatingAdd);

// The unit's own vector atomics still reach CUDA's (atomstress models none).
__global__ void mylib_accumulate(float2* a, float4* b, __half2* c, float2 x) {
  atomicAdd(a, x);
  atomicAdd(b, make_float4(x.x, x.y, x.x, x.y));
  atomicAdd(c, __floats2half2_rn(x.x, x.y));
}
