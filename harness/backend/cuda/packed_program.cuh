// The cuda backend's packed runner (backend/packed.hpp): many small trials of
// one single atomic in one launch.  Each physical thread runs the logical
// thread its slot names, on its instance's memory (a shared-memory
// instance's block copies its region in and out, as unpacked), through the
// same per-op code as an unpacked trial (AtomicProgram::device_op).  Every
// retry loop is bounded as unpacked, and the host waits with a deadline.  A
// user's entry is watched for stalls as unpacked, over the whole launch: a
// loop of it gives up once no op of any instance has completed for the
// stall window (a loop that never ends stops there, not at the launch's
// deadline of seconds).
//
// Include this only from the unit that registers the entries (so each
// kernel is instantiated once).
#pragma once

#include <cuda_runtime.h>

#include "harness/backend/atomic_program.cuh"
#include "harness/backend/packed.hpp"
#include "harness/prim/call_scope.cuh"

namespace atomstress {

// What a packed kernel reads: the plan's tables and the launch's arrays
// (op o of instance i is the launch's op instances[i].op_base + o).
struct PackedArgs {
  const PackSlot* slots = nullptr;
  const PackInstance* instances = nullptr;
  const uint32_t* key = nullptr;  // instance-local word indices
  const uint64_t *x = nullptr, *y = nullptr;
  void* mem = nullptr;
  uint64_t* old = nullptr;
  uint32_t* retries = nullptr;
  uint8_t* gave = nullptr;
  prim::RetryShared* rs = nullptr;
  uint32_t budget = 1u << 20;
  uint32_t stall_watch = 0;  // 1: each op that completes stamps rs (rs->stall_ns is the window)
};

template <class P>
__global__ void packed_kernel(PackedArgs g, uint64_t watchdog_ms) {
  using M = typename P::M;
  extern __shared__ __align__(16) unsigned char smem[];
  const uint64_t deadline = prim::deadline_after_ms(prim::now_ns(), watchdog_ms);
  const PackSlot slot = g.slots[uint64_t(blockIdx.x) * blockDim.x + threadIdx.x];
  const bool busy = slot.instance != kIdleSlot;
  PackInstance in{};
  if (busy) in = g.instances[slot.instance];
  M* const mem = static_cast<M*>(g.mem) + in.mem_base;
  M* const region = reinterpret_cast<M*>(smem) + slot.smem_elem;  // this logical block's copy
  const uint32_t lblock = busy ? slot.thread / in.block : 0, lthread = busy ? slot.thread % in.block : 0;
  const uint64_t region_off = uint64_t(lblock) * in.region_elems;
  if (busy && in.shared)
    for (uint32_t e = lthread; e < in.region_elems; e += in.block) region[e] = mem[region_off + e];
  __syncthreads();  // every thread of the block, busy or idle, reaches both barriers
  if (busy) {
    Args a;
    a.threads = in.threads;
    a.per_thread = in.per_thread;
    a.block = in.block;
    a.key = g.key + in.op_base;
    a.x = g.x + in.op_base;
    a.y = g.y + in.op_base;
    a.old = g.old + in.op_base;
    a.retries = g.retries + in.op_base;
    a.gave = g.gave + in.op_base;
    a.rs = g.rs;
    a.budget = g.budget;
    a.deadline_ns = deadline;
    a.stall_watch = g.stall_watch;
    for (uint32_t k = 0; k < in.per_thread; ++k) {
      const uint64_t o = uint64_t(k) * in.threads + slot.thread;
      P::device_op(a, in.shared ? region + (a.key[o] - region_off) : mem + a.key[o], o);
    }
  }
  __syncthreads();
  if (busy && in.shared)
    for (uint32_t e = lthread; e < in.region_elems; e += in.block) mem[region_off + e] = region[e];
}

namespace cuda {
// Launches one packed kernel (with its shared memory, which the runner has
// let it take) on the default stream.
using PackedLaunchFn = cudaError_t (*)(const PackedArgs& g, uint32_t blocks, uint32_t threads, size_t smem_bytes,
                                       uint64_t watchdog_ms);
// The kernel `launch` launches and its name.
struct PackedKernel {
  PackedLaunchFn launch;
  const void* kernel;  // its shared memory limit: the device's less the kernel's static
  const char* name;
};
// The runner's body, shared by every entry (cuda/packed.cu): plans, copies
// the instances' inputs in, launches, waits with a deadline, judges the pack
// on the device where its items ask (PackItem::device,
// cuda/packed_judge.hpp), and copies out the history of each instance the
// host judges.
bool run_packed(const PackItem* items, size_t n, uint32_t elem_bytes, const PackedKernel& kernel,
                const RunOptions& opt, uint64_t seed, std::string& error);
}  // namespace cuda

template <class P>
cudaError_t launch_packed(const PackedArgs& g, uint32_t blocks, uint32_t threads, size_t smem_bytes,
                          uint64_t watchdog_ms) {
  packed_kernel<P><<<blocks, threads, smem_bytes>>>(g, watchdog_ms);
  return cudaGetLastError();
}

template <class P>
bool run_cuda_packed(const PackItem* items, size_t n, const RunOptions& opt, uint64_t seed, std::string& error) {
  const cuda::PackedKernel kernel{&launch_packed<P>, reinterpret_cast<const void*>(packed_kernel<P>), P::name};
  return cuda::run_packed(items, n, sizeof(typename P::M), kernel, opt, seed, error);
}

}  // namespace atomstress
