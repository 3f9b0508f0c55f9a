// The CUDA half of guarded buffers (guarded.hpp).
#include <cuda_runtime.h>

#include <vector>

#include "harness/backend/cuda/util.cuh"
#include "harness/kernel/case_stream.cuh"
#include "harness/kernel/guarded.hpp"

namespace atomstress::kernel {

namespace {
std::vector<uint8_t> canaries(uint64_t salt) {
  std::vector<uint8_t> c(kGuardBytes);
  for (size_t i = 0; i < kGuardBytes; ++i) c[i] = canary_byte(salt, i);
  return c;
}
// The front guard ends where the offset begins: the offset bytes are inside
// the aligned allocation, but before the data, so they are guarded too: the
// front guard is the kGuardBytes just before the data.
unsigned char* front_guard(const GuardedBuffer& b) { return static_cast<unsigned char*>(b.data) - kGuardBytes; }
unsigned char* back_guard(const GuardedBuffer& b) { return static_cast<unsigned char*>(b.data) + b.bytes; }
}  // namespace

bool guarded_alloc(GuardedBuffer& b, std::string& error) {
  void* p = nullptr;
  if (!b.guards) {  // exact: the data ends where the allocation does
    if (b.alloc_bytes()) AS_CUDA_TRY(cudaMalloc(&p, b.alloc_bytes()));
    b.base = static_cast<unsigned char*>(p);
    b.data = b.base ? b.base + b.offset_bytes : nullptr;
    if (b.offset_bytes) AS_CUDA_TRY(cudaMemset(b.base, 0, b.offset_bytes));
    return true;
  }
  // One aligned guard before, the offset, the data, one guard after.
  AS_CUDA_TRY(cudaMalloc(&p, kGuardBytes + b.offset_bytes + b.bytes + kGuardBytes));
  b.base = static_cast<unsigned char*>(p);
  b.data = b.base + kGuardBytes + b.offset_bytes;
  const std::vector<uint8_t> c = canaries(b.salt);
  cudaStream_t s = nullptr;
  if (!case_stream(s, error)) return false;
  // (From pageable memory, an async copy returns once the bytes are staged:
  // `c` may go.)
  AS_CUDA_TRY(cudaMemsetAsync(b.base, 0, kGuardBytes + b.offset_bytes, s));
  AS_CUDA_TRY(cudaMemcpyAsync(front_guard(b), c.data(), kGuardBytes, cudaMemcpyHostToDevice, s));
  AS_CUDA_TRY(cudaMemcpyAsync(back_guard(b), c.data(), kGuardBytes, cudaMemcpyHostToDevice, s));
  return true;
}

bool guarded_upload(const GuardedBuffer& b, const void* host, std::string& error) {
  cudaStream_t s = nullptr;
  if (!case_stream(s, error)) return false;
  if (b.bytes) AS_CUDA_TRY(cudaMemcpyAsync(b.data, host, b.bytes, cudaMemcpyHostToDevice, s));
  return true;
}

bool guarded_download(const GuardedBuffer& b, void* host, std::string& error) {
  cudaStream_t s = nullptr;
  if (!case_stream(s, error)) return false;
  if (b.bytes) AS_CUDA_TRY(cudaMemcpyAsync(host, b.data, b.bytes, cudaMemcpyDeviceToHost, s));
  AS_CUDA_TRY(cudaStreamSynchronize(s));
  return true;
}

bool guarded_check(const GuardedBuffer& b, std::string& violation, std::string& error) {
  violation.clear();
  if (!b.guards) return true;
  std::vector<uint8_t> front(kGuardBytes), back(kGuardBytes);
  cudaStream_t s = nullptr;
  if (!case_stream(s, error)) return false;
  AS_CUDA_TRY(cudaMemcpyAsync(front.data(), front_guard(b), kGuardBytes, cudaMemcpyDeviceToHost, s));
  AS_CUDA_TRY(cudaMemcpyAsync(back.data(), back_guard(b), kGuardBytes, cudaMemcpyDeviceToHost, s));
  AS_CUDA_TRY(cudaStreamSynchronize(s));
  violation = describe_guard_damage(b.name, true, front.data(), kGuardBytes, b.salt);
  if (violation.empty()) violation = describe_guard_damage(b.name, false, back.data(), kGuardBytes, b.salt);
  return true;
}

void guarded_free(GuardedBuffer& b) {
  if (b.base) cudaFree(b.base);  // best effort: a lost context refuses, and the process ends soon
  b.base = nullptr;
  b.data = nullptr;
}

}  // namespace atomstress::kernel
