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

// Waits for `done` with a deadline well past the device watchdog: a kernel
// still running then is a harness bug, and the process must not wait for
// ever (the device cannot be recovered from inside it: exit 3).
inline bool wait_bounded(cudaEvent_t done, uint64_t watchdog_ms, const char* what, std::string& error) {
  const auto now_ns = [] {
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now().time_since_epoch()).count());
  };
  // Twice the watchdog plus 10 s, saturating: a huge watchdog must not wrap.
  const uint64_t host_deadline_ns =
      deadline_after_ms(deadline_after_ms(deadline_after_ms(now_ns(), watchdog_ms), watchdog_ms), 10000);
  for (;;) {
    const cudaError_t q = cudaEventQuery(done);
    if (q == cudaSuccess) return true;
    if (q != cudaErrorNotReady) AS_CUDA_TRY(q);
    if (now_ns() > host_deadline_ns) {
      std::fprintf(stderr, "atomstress: fatal: %s kernel still running %llu ms past its watchdog; exiting\n", what,
                   static_cast<unsigned long long>(watchdog_ms + 10000));
      std::_Exit(3);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace atomstress::cuda
