// A float max as PyTorch writes gpuAtomicMax (ATen/cuda/Atomic.cuh): a CAS
// loop around a max whose NaN on either side wins and whose ties keep the
// operand, as std::max(val, old) does.  Registered twice: against
// cas.max.f32 (fmaxf's rules: a NaN is ignored, +0 > -0), where it fails on
// signed zero and NaN and atomstress says which semantics it implements
// instead; and against a spec of its own, under which it passes.
#include <atomstress/atomstress.cuh>

#include <cmath>  // (after atomstress: its host mapping of fmax must survive a later include)

__device__ float maxPropagateNan(float val, float old) {
  return (val != val) ? val : (old != old) ? old : (val < old ? old : val);
}

__device__ float gpuAtomicMaxStyle(float* address, float val) {
  unsigned int* address_as_ui = (unsigned int*)address;
  unsigned int old = *address_as_ui, assumed;
  do {
    assumed = old;
    old = atomicCAS(address_as_ui, assumed, __float_as_uint(maxPropagateNan(val, __uint_as_float(assumed))));
  } while (assumed != old);
  return __uint_as_float(old);
}
ATOMSTRESS_ATOMIC("mylib.torch_max.f32", gpuAtomicMaxStyle, "cas.max.f32");

// Its exact rules, as a spec of its own.
constexpr atomstress::UserSpec<float> kTorchMax{
    atomstress::Op::Max, atomstress::Domain::Float,
    atomstress::float_sem("max(a, old): a NaN on either side wins, ties keep the operand",
                          "a NaN operand or a stored NaN wins", "ties keep the operand: max(+0, -0) stores the operand",
                          "kept"),
    [](float old, float a, float) -> float { return (a != a) ? a : (old != old) ? old : (a < old ? old : a); }};
ATOMSTRESS_ATOMIC_SPEC("mylib.torch_max_exact.f32", gpuAtomicMaxStyle, kTorchMax);

// The double twin, as gpuAtomicMax(double*) reads: a CAS loop on the 64-bit
// view around std::max(val, old), which keeps the operand on a tie (so
// max(+0, -0) stores -0) and whose comparisons are false with a NaN (a NaN
// operand wins, a stored NaN is replaced).  Against cas.max.f64 (fmax's
// rules) it fails: under contention the sign of a zero result depends on
// the arrival order, and no order explains the history under fmax's rules;
// another known rule (ties keep the operand) explains all of it, so the
// failure is semantics, never a lost update.
template <class T>
__device__ T std_max(T a, T b) {
  return (a < b) ? b : a;
}

__device__ double gpuAtomicMaxDoubleStyle(double* address, double val) {
  unsigned long long* address_as_ull = (unsigned long long*)address;
  unsigned long long old = *address_as_ull, assumed;
  do {
    assumed = old;
    old = atomicCAS(address_as_ull, assumed,
                    __double_as_longlong(std_max(val, __longlong_as_double((long long)assumed))));
  } while (assumed != old);
  return __longlong_as_double((long long)old);
}
ATOMSTRESS_ATOMIC("mylib.torch_max.f64", gpuAtomicMaxDoubleStyle, "cas.max.f64");

// CuPy's style (float16.cuh): a library's own fmax overload for its half
// type, beside a float max whose CAS loop calls std::fmax.  Neither is
// atomstress's to rename: the unit compiles for the host as written, and
// std::fmax keeps the device's rules there (+0 > -0, a NaN operand ignored).
struct half_bits {
  float value;
};
__device__ half_bits fmax(half_bits a, half_bits b) { return half_bits{::fmaxf(a.value, b.value)}; }

__device__ float stdFmaxStyle(float* address, float val) {
  unsigned int* address_as_ui = reinterpret_cast<unsigned int*>(address);
  unsigned int old = *address_as_ui, assumed;
  do {
    assumed = old;
    old = atomicCAS(address_as_ui, assumed, __float_as_uint(std::fmax(val, __uint_as_float(assumed))));
  } while (assumed != old);
  return __uint_as_float(old);
}
ATOMSTRESS_ATOMIC("mylib.std_fmax.f32", stdFmaxStyle, "cas.max.f32");
