// The CUDA backend's shared state and device queries (the runners are
// templates, instantiated by the units that register entries).
#include <cuda_runtime.h>

#include <cstdio>
#include <fstream>

#include <mutex>

#include "harness/backend/cuda/run_program.cuh"

namespace atomstress {

namespace cuda {
// Per host thread: a worker running several trials at once (--jobs) gives
// each its own buffers, on its own stream (the per-thread default stream).
TrialBuffers& trial_buffers() {
  thread_local TrialBuffers b;
  return b;
}

unsigned int* stop_note(std::string& error) {
  thread_local unsigned int* note = nullptr;  // per trial in flight, like the buffers
  if (note != nullptr) return note;
  void* p = nullptr;
  // Two words: the reason (tag | Retry::gave_up), then the stopped loop's
  // retry count (prim::stop_loop).
  const cudaError_t e = cudaHostAlloc(&p, 2 * sizeof(unsigned int), cudaHostAllocMapped);
  if (e != cudaSuccess) {
    error = std::string("cuda: cudaHostAlloc(stop note) failed: ") + cudaGetErrorString(e);
    return nullptr;
  }
  // Unified addressing (every 64-bit CUDA platform): the host pointer is the
  // device pointer.
  note = static_cast<unsigned int*>(p);
  note[0] = note[1] = 0;
  return note;
}

void request_abort_on_device(prim::RetryShared* rs) {
  // A copy from pinned memory, which the copy engine does: a memset is a
  // kernel, which may wait for SMs that the spinning loops it is to stop
  // hold.  On a stream of its own that waits for no other: the kernel is
  // still running.
  struct Side {
    cudaStream_t stream = nullptr;
    unsigned int* one = nullptr;  // pinned, holds 1
    cudaError_t error = cudaSuccess;
    Side() {
      error = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      if (error == cudaSuccess) error = cudaHostAlloc(reinterpret_cast<void**>(&one), sizeof *one, cudaHostAllocDefault);
      if (error == cudaSuccess) *one = 1;
    }
  };
  static Side side;
  cudaError_t e = side.error;
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(&rs->abort_flag, side.one, sizeof *side.one, cudaMemcpyHostToDevice, side.stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(side.stream);
  if (e != cudaSuccess)  // the trial then runs to its own end: only time is lost
    std::fprintf(stderr, "atomstress: warning: a cancelled trial's loops could not be stopped: %s\n",
                 cudaGetErrorString(e));
}

bool flush_l2(std::string& error, cudaStream_t stream) {
  thread_local DevBuf scratch;  // grow-only, like the trial buffers
  cudaDeviceProp prop;
  if (!device_props(prop, error)) return false;
  const size_t bytes = size_t(prop.l2CacheSize);
  if (bytes == 0) return true;
  AS_CUDA_TRY(scratch.ensure(bytes));
  AS_CUDA_TRY(cudaMemsetAsync(scratch.p, 0, bytes, stream));
  return true;
}

namespace {
// Why this process's context is lost; empty while it is usable.  (A worker
// may run several trials at once, on several threads.)
std::mutex lost_mutex;
std::string lost_why;
}  // namespace

void mark_context_lost(const std::string& why) {
  std::lock_guard<std::mutex> lock(lost_mutex);
  if (lost_why.empty()) lost_why = why;  // the first cause is the one that matters
}
}  // namespace cuda

bool cuda_context_lost(std::string& why) {
  std::lock_guard<std::mutex> lock(cuda::lost_mutex);
  why = cuda::lost_why;
  return !why.empty();
}

bool cuda_warm_up(std::string& why) {
  const cudaError_t e = cudaFree(nullptr);  // creates the primary context
  if (e == cudaSuccess) return true;
  why = std::string("cannot create a CUDA context: ") + cudaGetErrorString(e);
  return false;
}

bool cuda_available(std::string& why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    why = cudaGetErrorString(e);
    cudaGetLastError();
    return false;
  }
  if (n == 0) {
    why = "no CUDA device";
    return false;
  }
  return true;
}

std::string cuda_driver_version() {
  int v = 0;
  if (cudaDriverGetVersion(&v) != cudaSuccess || v == 0) return "";
  const std::string cuda = "CUDA " + std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  std::ifstream proc("/proc/driver/nvidia/version");
  std::string line;
  const std::string module = std::getline(proc, line) ? nvidia_module_version(line) : "";
  return module.empty() ? cuda : module + " (" + cuda + ")";
}

std::string cuda_device_name() {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return "unknown";
  return std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) + ", " +
         std::to_string(p.multiProcessorCount) + " SMs)";
}

bool cuda_memory(size_t& free, size_t& total) { return cudaMemGetInfo(&free, &total) == cudaSuccess; }

size_t cuda_l2_bytes() {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return 0;
  return size_t(p.l2CacheSize);
}

int cuda_sm_count() {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return 0;
  return p.multiProcessorCount;
}

}  // namespace atomstress
