// What the CUDA backends share: checked calls, grow-only device buffers, the
// device's limits, and a bounded wait for a kernel.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "harness/backend/backend.hpp"

namespace atomstress::cuda {

// Returns false from the enclosing function with a one-line `error`.
#define AS_CUDA_TRY(call)                                                                    \
  do {                                                                                       \
    const cudaError_t e_ = (call);                                                           \
    if (e_ != cudaSuccess) {                                                                 \
      error = std::string("cuda: ") + #call + " failed: " + cudaGetErrorString(e_);          \
      return false;                                                                          \
    }                                                                                        \
  } while (0)

struct DevBuf {
  void* p = nullptr;
  size_t cap = 0;
  cudaError_t ensure(size_t bytes) {
    if (bytes <= cap) return cudaSuccess;
    if (p) cudaFree(p);
    p = nullptr;
    cap = 0;
    const cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaSuccess) cap = bytes;
    return e;
  }
  template <class T>
  T* as() const { return static_cast<T*>(p); }
};

// An event destroyed with its scope (error paths included).
struct Event {
  cudaEvent_t e = nullptr;
  cudaError_t create() { return cudaEventCreate(&e); }
  ~Event() {
    if (e) cudaEventDestroy(e);
  }
};

// The current device's properties, read once.
inline bool device_props(cudaDeviceProp& out, std::string& error) {
  static cudaDeviceProp prop{};
  static bool have = false;
  if (!have) {
    int dev = 0;
    AS_CUDA_TRY(cudaGetDevice(&dev));
    AS_CUDA_TRY(cudaGetDeviceProperties(&prop, dev));
    have = true;
  }
  out = prop;
  return true;
}

// One-line reason when the device cannot launch this geometry.
inline bool check_geometry(const cudaDeviceProp& prop, uint32_t grid, uint32_t block, size_t smem,
                           std::string& error) {
  if (block > unsigned(prop.maxThreadsPerBlock) || grid > unsigned(prop.maxGridSize[0])) {
    error = "impossible geometry for " + std::string(prop.name) + ": grid " + std::to_string(grid) + " x block " +
            std::to_string(block);
    return false;
  }
  if (smem > prop.sharedMemPerBlockOptin) {
    error = "impossible geometry for " + std::string(prop.name) + ": " + std::to_string(smem) +
            " bytes of shared memory per block (limit " + std::to_string(prop.sharedMemPerBlockOptin) + ")";
    return false;
  }
  return true;
}

// Cold measurements in the manner of nvbench: queues (on the default
// stream) a memset of a scratch buffer as large as the device's L2, so the
// launch queued next finds none of its data in the cache.  Call it before
// the timed region's start event: the flush itself is not timed.
bool flush_l2(std::string& error);

// Waits for `done` with a deadline well past the device watchdog: a kernel
// still running then is a harness bug, and the process must not wait for
// ever (the device cannot be recovered from inside it: exit 3).
inline bool wait_bounded(cudaEvent_t done, uint64_t watchdog_ms, const char* what, std::string& error) {
  // Saturating: a watchdog of hours must not wrap the deadline into the past.
  const uint64_t wait_ms = watchdog_ms > (uint64_t(1) << 40) ? (uint64_t(1) << 41) : 2 * watchdog_ms + 10000;
  const auto start = std::chrono::steady_clock::now();
  const auto host_deadline = start + std::chrono::milliseconds(wait_ms);
  // Yield, not sleep, for the first millisecond: a timing batch waits for
  // hundreds of launches of a few microseconds each, and a 200 us sleep per
  // launch would make the host's naps, not the GPU, the cost of a profile.
  const auto spin_until = start + std::chrono::milliseconds(1);
  for (;;) {
    const cudaError_t q = cudaEventQuery(done);
    if (q == cudaSuccess) return true;
    if (q != cudaErrorNotReady) AS_CUDA_TRY(q);
    const auto now = std::chrono::steady_clock::now();
    if (now < spin_until) {
      std::this_thread::yield();
      continue;
    }
    if (now > host_deadline) {
      std::fprintf(stderr, "atomstress: fatal: %s kernel still running %llu ms past its watchdog; exiting\n", what,
                   static_cast<unsigned long long>(watchdog_ms + 10000));
      std::_Exit(3);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace atomstress::cuda
