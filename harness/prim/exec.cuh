// Where a block's code runs.  Block code is written once, for the device and
// the host, against a context:
//   c.bid()    the block's index,
//   c.each(f)  runs f(t) for every thread t of the block (on the device the
//              calling thread's own t; on the host t = 0..block-1 in turn),
//   c.sync()   __syncthreads() (on the host nothing: each() already ran every
//              thread to the same point),
//   c.smem     the block's shared memory,
// so the CPU backend runs the same source, blocks concurrently on host
// threads.
#pragma once

#include <cstdint>

#include "harness/prim/config.cuh"

namespace prim {

struct DeviceBlock {
  unsigned char* smem;
  AS_HD AS_FI uint32_t bid() const { NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return blockIdx.x;), (return 0;)) }
  AS_HD AS_FI uint32_t tid() const { NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return threadIdx.x;), (return 0;)) }
  template <class F>
  AS_HD AS_FI void each(F&& f) {
    f(tid());
  }
  AS_HD AS_FI void sync() { NV_IF_TARGET(NV_IS_DEVICE, (__syncthreads();)) }
};

// A block on the device whose logical ids are not its physical ones: the
// stress runner's thread randomisation (harness/backend/cuda/stress.cuh)
// runs logical block `b` on some physical block and logical thread `t` on
// some physical thread; block code sees only the logical ids.
struct MappedBlock {
  unsigned char* smem;
  uint32_t b, t;
  AS_HD AS_FI uint32_t bid() const { return b; }
  AS_HD AS_FI uint32_t tid() const { return t; }
  template <class F>
  AS_HD AS_FI void each(F&& f) {
    f(t);
  }
  AS_HD AS_FI void sync() { NV_IF_TARGET(NV_IS_DEVICE, (__syncthreads();)) }
};

// Host-side only in use, but __host__ __device__ so that block code (which
// is) may call it without a cross-space call.
struct HostBlock {
  uint32_t b = 0, block = 0;
  unsigned char* smem = nullptr;
  AS_HD AS_FI uint32_t bid() const { return b; }
  template <class F>
  AS_HD AS_FI void each(F&& f) {
    for (uint32_t t = 0; t < block; ++t) f(t);
  }
  AS_HD AS_FI void sync() {}
};

}  // namespace prim
