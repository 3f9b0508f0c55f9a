// The CUDA half of a kernel case's buffer snapshots (snapshot.hpp).
#include <cuda_runtime.h>

#include "harness/backend/cuda/util.cuh"
#include "harness/kernel/case_stream.cuh"
#include "harness/kernel/snapshot.hpp"

namespace atomstress::kernel {

namespace {
// Each buffer's place in the snapshot: 256-byte aligned, one after another.
struct SnapshotMemory {
  cuda::DevBuf copy;
  std::vector<size_t> offsets;  // one per buffer, and the end
};
SnapshotMemory& memory() {
  thread_local SnapshotMemory m;  // one case at a time per host thread, as the case stream
  return m;
}
std::vector<size_t> layout(const std::vector<const GuardedBuffer*>& buffers) {
  std::vector<size_t> offsets{0};
  for (const GuardedBuffer* b : buffers) offsets.push_back(offsets.back() + (b->alloc_bytes() + 255) / 256 * 256);
  return offsets;
}
}  // namespace

bool snapshot_buffers(const std::vector<const GuardedBuffer*>& buffers, std::string& error) {
  SnapshotMemory& m = memory();
  m.offsets = layout(buffers);
  AS_CUDA_TRY(m.copy.ensure(m.offsets.back() + 1));
  cudaStream_t s = nullptr;
  if (!case_stream(s, error)) return false;
  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i]->base && buffers[i]->alloc_bytes())
      AS_CUDA_TRY(cudaMemcpyAsync(m.copy.as<unsigned char>() + m.offsets[i], buffers[i]->base,
                                  buffers[i]->alloc_bytes(), cudaMemcpyDeviceToDevice, s));
  return true;
}

bool restore_buffers(const std::vector<const GuardedBuffer*>& buffers, std::string& error) {
  SnapshotMemory& m = memory();
  if (layout(buffers) != m.offsets) {
    error = "restoring a kernel case's buffers: they are not the ones the snapshot holds";
    return false;
  }
  cudaStream_t s = nullptr;
  if (!case_stream(s, error)) return false;
  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i]->base && buffers[i]->alloc_bytes())
      AS_CUDA_TRY(cudaMemcpyAsync(buffers[i]->base, m.copy.as<unsigned char>() + m.offsets[i],
                                  buffers[i]->alloc_bytes(), cudaMemcpyDeviceToDevice, s));
  return true;
}

}  // namespace atomstress::kernel
