// Void updates: `void f(T* address, T val)`, the shape of AMReX's AddNoRet,
// XGBoost's 64-bit add made of 32-bit ones and most *NoRet helpers.  They
// return nothing, so atomstress checks the memory they leave (every order of
// the updates leaves one value, or for a float add one the float-sum rule
// allows) and, alone, every state they leave one after another.  README.md
// says what atomstress reports for each.
#include <atomstress/atomstress.cuh>

namespace mylib {
// The add whose old value nobody reads.
template <class T>
__device__ void add_noret(T* sum, T value) {
  atomicAdd(sum, value);
}

// A 64-bit add from two 32-bit adds: the low word's old value says whether
// it carried into the high word.  Torn halfway for a reader, but the memory
// it leaves is exact.
__device__ void add_u64_by_halves(unsigned long long* dst, unsigned long long value) {
  unsigned* low = reinterpret_cast<unsigned*>(dst);
  const unsigned add_low = static_cast<unsigned>(value);
  const unsigned add_high = static_cast<unsigned>(value >> 32);
  const unsigned old_low = atomicAdd(low, add_low);
  const unsigned carry = old_low > 0xffffffffu - add_low ? 1u : 0u;
  atomicAdd(low + 1, add_high + carry);
}

// A flag store.
__device__ void set_flag(unsigned* flag, unsigned value) { atomicExch(flag, value); }

// Wrong: one compare-and-swap, no retry, so a concurrent add is lost.
__device__ void add_cas_once(float* p, float value) {
  const float seen = *p;
  atomicCAS(reinterpret_cast<unsigned*>(p), __float_as_uint(seen), __float_as_uint(seen + value));
}

// Wrong: a subtraction that forgot to negate.
__device__ void sub_noret(int* p, int value) { atomicAdd(p, value); }
}  // namespace mylib

ATOMSTRESS_ATOMIC("mylib.add_noret.f64", mylib::add_noret<double>, "native.add.f64");
ATOMSTRESS_ATOMIC("mylib.add_noret.f32", mylib::add_noret<float>, "native.add.f32");
ATOMSTRESS_ATOMIC("mylib.add_noret.u32", mylib::add_noret<unsigned>, "native.add.u32");
ATOMSTRESS_ATOMIC("mylib.add_by_halves.u64", mylib::add_u64_by_halves, "native.add.u64");
ATOMSTRESS_ATOMIC("mylib.set_flag.u32", mylib::set_flag, "native.exch.u32");
ATOMSTRESS_ATOMIC("mylib.add_cas_once.f32", mylib::add_cas_once, "cas.add.f32");
ATOMSTRESS_ATOMIC("mylib.sub_noret.i32", mylib::sub_noret, "native.sub.i32");
