// Atomics as library authors write them, registered unchanged with one line
// each.  Some are correct, some are not: README.md says what atomstress
// reports for each, and why.
#include <atomstress/atomstress.cuh>
#include <cuda_fp16.h>

// The classic float max: a CAS loop on the bit pattern (integer compare).
__device__ float atomicMaxFloat(float* address, float val) {
  int* address_as_i = (int*)address;
  int old = *address_as_i, assumed;
  do {
    assumed = old;
    old = atomicCAS(address_as_i, assumed, __float_as_int(fmaxf(val, __int_as_float(assumed))));
  } while (assumed != old);
  return __int_as_float(old);
}
ATOMSTRESS_ATOMIC("mylib.max.f32", atomicMaxFloat, "cas.max.f32");

// Your own atomicMax(float*), overloading CUDA's, with the well-known
// sign trick: non-negative floats order like ints, negative ones reversed
// like unsigned.  `val >= 0` sends -0.0 (and every NaN) the wrong way.
__device__ float atomicMax(float* address, float val) {
  return val >= 0 ? __int_as_float(atomicMax((int*)address, __float_as_int(val)))
                  : __uint_as_float(atomicMin((unsigned int*)address, __float_as_uint(val)));
}
ATOMSTRESS_ATOMIC("mylib.atomicmax.f32", atomicMax, "intorder.max.f32");

// The same idea for add, but the loop compares floats: once memory holds a
// NaN, `assumed != old` is true for ever.
__device__ float atomicAddFloatCmp(float* address, float val) {
  float old = *address, assumed;
  do {
    assumed = old;
    old = __int_as_float(atomicCAS((int*)address, __float_as_int(assumed), __float_as_int(assumed + val)));
  } while (assumed != old);
  return old;
}
ATOMSTRESS_ATOMIC("mylib.add_floatcmp.f32", atomicAddFloatCmp, "cas.add.f32");

// Double add for GPUs without native support (CUDA C++ Programming Guide).
__device__ double atomicAddDouble(double* address, double val) {
  unsigned long long int* address_as_ull = (unsigned long long int*)address;
  unsigned long long int old = *address_as_ull, assumed;
  do {
    assumed = old;
    old = atomicCAS(address_as_ull, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
  } while (assumed != old);
  return __longlong_as_double(old);
}
ATOMSTRESS_ATOMIC("mylib.add.f64", atomicAddDouble, "cas.add.f64");

// A half add for GPUs without atomicAdd(__half*): CAS on the enclosing
// aligned 32-bit word, the neighbouring half left as it is.
__device__ __half atomicAddHalf(__half* address, __half val) {
  unsigned int* base = (unsigned int*)((char*)address - ((size_t)address & 2));
  const bool high = ((size_t)address & 2) != 0;
  unsigned int old = *base, assumed;
  do {
    assumed = old;
    const unsigned short bits = high ? (unsigned short)(old >> 16) : (unsigned short)(old & 0xffffu);
    const unsigned short sum = __half_as_ushort(__hadd(__ushort_as_half(bits), val));
    const unsigned int next = high ? (old & 0xffffu) | ((unsigned int)sum << 16) : (old & 0xffff0000u) | sum;
    old = atomicCAS(base, assumed, next);
  } while (assumed != old);
  return __ushort_as_half(high ? (unsigned short)(old >> 16) : (unsigned short)(old & 0xffffu));
}
ATOMSTRESS_ATOMIC("mylib.add.f16", atomicAddHalf, "cas.add.f16");

// A wrapping 64-bit counter (atomicInc has no 64-bit form), correct...
__device__ unsigned long long atomicIncWrap64(unsigned long long* p, unsigned long long limit) {
  unsigned long long old = *p, assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, assumed >= limit ? 0ull : assumed + 1);
  } while (old != assumed);
  return old;
}
ATOMSTRESS_ATOMIC("mylib.inc.u64", atomicIncWrap64, "cas.inc.u64");

// ...and with the off-by-one that wraps one step late.
__device__ unsigned long long atomicIncWrap64Late(unsigned long long* p, unsigned long long limit) {
  unsigned long long old = *p, assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, assumed > limit ? 0ull : assumed + 1);
  } while (old != assumed);
  return old;
}
ATOMSTRESS_ATOMIC("mylib.inc_late.u64", atomicIncWrap64Late, "cas.inc.u64");

// A counter "optimised" with the block-scope atomic, used on addresses that
// several blocks update.
__device__ int countHit(int* counter, int n) { return atomicAdd_block(counter, n); }
ATOMSTRESS_ATOMIC("mylib.count.i32", countHit, "native.add.i32");

// An add with a debugging store left in, indexed by the operand: large
// operands write far outside the allocation.
__device__ unsigned int addWithTrace(unsigned int* p, unsigned int v) {
  if (v >= 0x80000000u) p[v] = v;
  return atomicAdd(p, v);
}
ATOMSTRESS_ATOMIC("mylib.add_trace.u32", addWithTrace, "native.add.u32");

// A spin lock with fences on both sides...
__device__ void spinAcquire(int* lock) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence();
}
__device__ void spinRelease(int* lock) {
  __threadfence();
  atomicExch(lock, 0);
}
ATOMSTRESS_LOCK("mylib.spin", spinAcquire, spinRelease);

// ...and as a well-known textbook writes it: no fence, so the protected data
// may be read stale or written back late.
__device__ void textbookLock(int* mutex) {
  while (atomicCAS(mutex, 0, 1) != 0) {
  }
}
__device__ void textbookUnlock(int* mutex) { atomicExch(mutex, 0); }
ATOMSTRESS_LOCK("mylib.textbook_lock", textbookLock, textbookUnlock);

// AMReX's style (Gpu::Atomic::Add with AMREX_IF_ON_DEVICE / AMREX_IF_ON_HOST):
// one __host__ __device__ function, one native atomic on the device and a
// plain update on the host.  Correct on the GPU; its host build makes no
// atomic call, so the CPU backend would test the plain update instead:
// atomstress calls it once on the host first, sees no intercepted atomic,
// and reports it as SKIP there, saying why (list -v too).
template <class T>
__host__ __device__ T hostDeviceAdd(T* sum, T value) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return atomicAdd(sum, value);), (const T old = *sum; *sum = old + value; return old;))
}
ATOMSTRESS_ATOMIC("mylib.hd_add.i32", hostDeviceAdd<int>, "native.add.i32");

// Two bugs in one function: it returns its first load, not what its
// successful compare-and-swap found (wrong returned values under
// contention, right alone), and it keeps a stored NaN and a stored -0 that
// fmaxf would replace (wrong alone).  atomstress reports them apart, each
// with its own case, class and token.
__device__ float twoBugsMax(float* address, float val) {
  int* address_as_i = (int*)address;
  const int first = *address_as_i;
  int old = first, assumed;
  do {
    assumed = old;
    const float current = __int_as_float(assumed);
    old = atomicCAS(address_as_i, assumed, __float_as_int(val > current ? val : current));
  } while (assumed != old);
  return __int_as_float(first);
}
ATOMSTRESS_ATOMIC("mylib.two_bugs_max.f32", twoBugsMax, "cas.max.f32");
