// What the CUDA backends share: checked calls, grow-only device buffers, the
// device's limits, and a bounded wait for a kernel that classifies how a
// failed kernel ended (RunFault).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "harness/backend/backend.hpp"
#include "harness/support/cuda_try.cuh"

namespace atomstress::cuda {

// A grow-only buffer: reallocated only to grow, reused across trials.
template <cudaError_t (*Alloc)(void**, size_t), cudaError_t (*Free)(void*)>
struct GrowBuf {
  void* p = nullptr;
  size_t cap = 0;
  cudaError_t ensure(size_t bytes) {
    if (bytes <= cap) return cudaSuccess;
    if (p) Free(p);
    p = nullptr;
    cap = 0;
    const cudaError_t e = Alloc(&p, bytes);
    if (e == cudaSuccess) cap = bytes;
    return e;
  }
  template <class T>
  T* as() const { return static_cast<T*>(p); }
};
inline cudaError_t device_alloc(void** p, size_t bytes) { return cudaMalloc(p, bytes); }
inline cudaError_t device_free(void* p) { return cudaFree(p); }
inline cudaError_t pinned_alloc(void** p, size_t bytes) { return cudaHostAlloc(p, bytes, cudaHostAllocDefault); }
inline cudaError_t pinned_free(void* p) { return cudaFreeHost(p); }
using DevBuf = GrowBuf<device_alloc, device_free>;
// Page-locked host memory: copies at full speed, asynchronous ones truly so.
using PinnedBuf = GrowBuf<pinned_alloc, pinned_free>;

// Copies between pageable host memory and the device through this host
// thread's pinned staging buffer, on its own stream.  A pageable cudaMemcpy
// holds the CUDA context's lock for its whole copy, so a worker's trial
// threads copied one at a time: half their samples waited on that lock
// (cuda-gdb stacks of a host-bound fuzz slice, 12 threads, H200).  A pinned
// copy holds it only to queue.  Chunked: the staging buffer stays small
// however large the trial.
inline constexpr size_t kStagingChunk = size_t(4) << 20;
struct Staging {
  PinnedBuf buffer;
  cudaEvent_t drained = nullptr;  // recorded after the last copy out of the buffer
  bool in_use = false;            // a copy out of it may still run
  // Waits until the buffer may be written again.
  cudaError_t wait_drained() {
    if (!in_use) return cudaSuccess;
    in_use = false;
    return cudaEventSynchronize(drained);
  }
};
inline Staging& staging() {
  thread_local Staging s;  // no destructor: threads live as long as the worker, and it is never freed
  return s;
}
// One array's copy, host to device or device to host (copy_all_to_*).
struct Transfer {
  const void* src;
  void* dst;
  size_t bytes;
};

namespace staged {
// A piece of a Transfer at `staged` bytes into the staging buffer.
struct Part {
  const unsigned char* src;
  unsigned char* dst;
  size_t bytes, staged;
};
inline constexpr size_t kMostParts = 16;
// Cuts the transfers into batches that each fit the staging chunk (each
// part 16-byte aligned in it) and hands each batch, in order, to
// batch(parts, count, staged_bytes).
template <class Batch>
cudaError_t for_each_batch(std::span<const Transfer> transfers, Batch&& batch) {
  Part parts[kMostParts];
  size_t count = 0, used = 0;
  for (const Transfer& t : transfers)
    for (size_t done = 0; done < t.bytes;) {
      if (used == kStagingChunk || count == kMostParts) {
        if (const cudaError_t e = batch(parts, count, used); e != cudaSuccess) return e;
        count = used = 0;
      }
      const size_t n = std::min(t.bytes - done, kStagingChunk - used);
      parts[count++] = {static_cast<const unsigned char*>(t.src) + done, static_cast<unsigned char*>(t.dst) + done, n,
                        used};
      used = std::min(kStagingChunk, (used + n + 15) / 16 * 16);
      done += n;
    }
  return count == 0 ? cudaSuccess : batch(parts, count, used);
}
// Set once the driver refused a batch of copies (queue_copies).
inline std::atomic<bool>& batching_refused() {
  static std::atomic<bool> refused{false};
  return refused;
}
// One driver call for a batch's copies between the staging buffer and the
// device: each copy call takes the context's lock for writing, and a
// worker's trial threads queued on it (cuda-gdb samples, H200: half of a
// host-bound slice's trial threads waited in cuMemcpy*Async's
// pthread_rwlock_wrlock), so a trial's arrays go in one call, not one each.
inline cudaError_t queue_copies(const Part* parts, size_t count, unsigned char* staging, bool to_device) {
  void* dsts[kMostParts];
  const void* srcs[kMostParts];
  size_t sizes[kMostParts];
  for (size_t i = 0; i < count; ++i) {
    dsts[i] = to_device ? static_cast<void*>(parts[i].dst) : staging + parts[i].staged;
    srcs[i] = to_device ? static_cast<const void*>(staging + parts[i].staged) : parts[i].src;
    sizes[i] = parts[i].bytes;
  }
  const cudaMemcpyKind kind = to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  if (count > 1 && !batching_refused()) {
    cudaMemcpyAttributes in_order{};
    in_order.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    size_t from_first = 0;
    const cudaError_t e = cudaMemcpyBatchAsync(dsts, srcs, sizes, count, &in_order, &from_first, 1, cudaStreamPerThread);
    if (e != cudaErrorNotSupported && e != cudaErrorInvalidValue && e != cudaErrorCallRequiresNewerDriver) return e;
    // A driver without batches: copy by copy from now on, said once.
    (void)cudaGetLastError();
    if (!batching_refused().exchange(true))
      std::fprintf(stderr, "atomstress: note: cudaMemcpyBatchAsync refused (%s); a trial's arrays are copied one by one\n",
                   cudaGetErrorString(e));
  }
  for (size_t i = 0; i < count; ++i)
    if (const cudaError_t e = cudaMemcpyAsync(dsts[i], srcs[i], sizes[i], kind, cudaStreamPerThread); e != cudaSuccess)
      return e;
  return cudaSuccess;
}
}  // namespace staged

// Queued on the thread's stream, after the work already queued there: work
// queued after it sees the bytes.  Returns once the sources may be reused
// (it waits only for the staging buffer's previous copy, and between
// chunks).  Each transfer: host `src`, device `dst`.
inline cudaError_t copy_all_to_device(std::span<const Transfer> transfers) {
  Staging& s = staging();
  return staged::for_each_batch(transfers, [&s](const staged::Part* parts, size_t count, size_t used) {
    cudaError_t e = s.wait_drained();
    if (e == cudaSuccess) e = s.buffer.ensure(used);
    if (e == cudaSuccess && s.drained == nullptr) e = cudaEventCreateWithFlags(&s.drained, cudaEventDisableTiming);
    if (e != cudaSuccess) return e;
    for (size_t i = 0; i < count; ++i) std::memcpy(s.buffer.as<unsigned char>() + parts[i].staged, parts[i].src, parts[i].bytes);
    e = staged::queue_copies(parts, count, s.buffer.as<unsigned char>(), true);
    if (e == cudaSuccess) e = cudaEventRecord(s.drained, cudaStreamPerThread);
    if (e == cudaSuccess) s.in_use = true;
    return e;
  });
}
// Waits for the thread's stream up to the copies: every host `dst` holds
// its bytes.  Each transfer: device `src`, host `dst`.
inline cudaError_t copy_all_to_host(std::span<const Transfer> transfers) {
  Staging& s = staging();
  return staged::for_each_batch(transfers, [&s](const staged::Part* parts, size_t count, size_t used) {
    cudaError_t e = s.wait_drained();
    if (e == cudaSuccess) e = s.buffer.ensure(used);
    if (e == cudaSuccess) e = staged::queue_copies(parts, count, s.buffer.as<unsigned char>(), false);
    if (e == cudaSuccess) e = cudaStreamSynchronize(cudaStreamPerThread);
    if (e != cudaSuccess) return e;
    for (size_t i = 0; i < count; ++i) std::memcpy(parts[i].dst, s.buffer.as<unsigned char>() + parts[i].staged, parts[i].bytes);
    return cudaSuccess;
  });
}
inline cudaError_t copy_to_device(void* dst, const void* src, size_t bytes) {
  const Transfer t{src, dst, bytes};
  return copy_all_to_device({&t, 1});
}
// A copy to the device that has landed when it returns: for a word another
// stream may write next (a cancel's abort flag, trial_cancel.hpp), which a
// copy still queued would overwrite.
inline cudaError_t copy_to_device_landed(void* dst, const void* src, size_t bytes) {
  const cudaError_t e = copy_to_device(dst, src, bytes);
  return e == cudaSuccess ? staging().wait_drained() : e;
}
inline cudaError_t copy_to_host(void* dst, const void* src, size_t bytes) {
  const Transfer t{src, dst, bytes};
  return copy_all_to_host({&t, 1});
}
// A host vector's bytes, to or from a device array of its length.
template <class T>
Transfer from_host(const std::vector<T>& src, void* device) {
  return {src.data(), device, src.size() * sizeof(T)};
}
template <class T>
Transfer to_host(const void* device, std::vector<T>& dst) {
  return {device, dst.data(), dst.size() * sizeof(T)};
}
// One device array into a host vector of its length.
template <class T>
cudaError_t copy_to_host(std::vector<T>& dst, const void* src) {
  return copy_to_host(dst.data(), src, dst.size() * sizeof(T));
}

// Small host-made arrays, end to end in one pinned buffer and sent in one
// copy: each copy is one more step in a launch's chain on the GPU.  Lay the
// sections out, fill them through host(), send(); kernels queued after the
// send on the same stream read them through device().  Grow-only.
class Upload {
 public:
  // Each section starts 16-byte aligned.
  template <size_t N>
  cudaError_t lay_out(const size_t (&bytes)[N]) {
    at_.clear();
    total_ = 0;
    for (size_t b : bytes) {
      at_.push_back(total_);
      total_ += (b + 15) / 16 * 16;
    }
    const cudaError_t e = d_.ensure(total_ + 16);
    return e != cudaSuccess ? e : h_.ensure(total_ + 16);
  }
  template <class T>
  T* host(size_t section) const { return reinterpret_cast<T*>(h_.as<unsigned char>() + at_[section]); }
  template <class T>
  T* device(size_t section) const { return reinterpret_cast<T*>(d_.as<unsigned char>() + at_[section]); }
  cudaError_t send() const { return cudaMemcpyAsync(d_.p, h_.p, total_, cudaMemcpyHostToDevice); }

 private:
  DevBuf d_;
  PinnedBuf h_;
  std::vector<size_t> at_;
  size_t total_ = 0;
};

// This host thread's idle events, destroyed when it ends.  An Event that
// outlives the pool (a member of another thread_local, destroyed after it)
// destroys its own: dead() stays readable, having no destructor.
class EventPool {
 public:
  ~EventPool() {
    dead() = true;
    for (cudaEvent_t e : idle_) cudaEventDestroy(e);
  }
  static bool& dead() {
    thread_local bool gone = false;
    return gone;
  }
  cudaError_t take(cudaEvent_t& e) {
    if (idle_.empty()) return cudaEventCreate(&e);
    e = idle_.back();
    idle_.pop_back();
    return cudaSuccess;
  }
  void give_back(cudaEvent_t e) { idle_.push_back(e); }
  static EventPool& mine() {
    thread_local EventPool pool;
    return pool;
  }

 private:
  std::vector<cudaEvent_t> idle_;
};

// An event of this thread's pool, given back with its scope (error paths
// included): creating and destroying one takes the CUDA context's lock,
// which a worker's trial threads queued on twice a trial.
struct Event {
  cudaEvent_t e = nullptr;
  cudaError_t create() { return EventPool::dead() ? cudaEventCreate(&e) : EventPool::mine().take(e); }
  ~Event() {
    if (e == nullptr) return;
    if (EventPool::dead()) cudaEventDestroy(e);
    else EventPool::mine().give_back(e);
  }
};

// The GPU's time on work this thread queues on its stream between start()
// and stop(), by events (the host's clock would add the launches' and the
// copies' overheads); stop() waits for it and stamps when the host saw it
// end (steady_seconds()).
struct StreamTimer {
  Event started, stopped;
  double ms = 0, end_s = 0;
  cudaError_t start() {
    cudaError_t err = started.create();
    if (err == cudaSuccess) err = stopped.create();
    return err == cudaSuccess ? cudaEventRecord(started.e) : err;
  }
  cudaError_t stop() {
    cudaError_t err = cudaEventRecord(stopped.e);
    if (err == cudaSuccess) err = cudaEventSynchronize(stopped.e);
    end_s = steady_seconds();
    float elapsed = 0;
    if (err == cudaSuccess) err = cudaEventElapsedTime(&elapsed, started.e, stopped.e);
    ms = elapsed;
    return err;
  }
};

// The current device's properties, read once (by whichever thread asks
// first).
inline bool device_props(cudaDeviceProp& out, std::string& error) {
  static std::mutex mu;
  static cudaDeviceProp prop{};
  static bool have = false;
  std::lock_guard lock(mu);
  if (!have) {
    int dev = 0;
    AS_CUDA_TRY(cudaGetDevice(&dev));
    AS_CUDA_TRY(cudaGetDeviceProperties(&prop, dev));
    have = true;
  }
  out = prop;
  return true;
}

// What a kernel's launches need to know of its shared memory, read once
// per kernel (cudaFuncGetAttributes costs microseconds; a pack's launches
// ask for every launch).  One device per process, as device_props.
struct KernelShared {
  size_t static_bytes = 0;
  size_t without_opt_in = 0;  // the dynamic amount a launch may take before opting in
  size_t most = 0;            // the device's opt-in limit less static_bytes
  bool opted_in = false;      // the attribute raised to `most`
};

struct KnownKernelShared {
  std::mutex mu;
  std::unordered_map<const void*, KernelShared> by_kernel;
};
inline KnownKernelShared& known_kernel_shared() {
  static KnownKernelShared known;
  return known;
}

inline bool kernel_shared(const void* kernel, KernelShared& out, std::string& error) {
  KnownKernelShared& known = known_kernel_shared();
  {
    std::lock_guard lock(known.mu);
    if (const auto it = known.by_kernel.find(kernel); it != known.by_kernel.end()) {
      out = it->second;
      return true;
    }
  }
  cudaDeviceProp prop;
  if (!device_props(prop, error)) return false;
  cudaFuncAttributes attr{};
  AS_CUDA_TRY(cudaFuncGetAttributes(&attr, kernel));
  KernelShared k;
  k.static_bytes = attr.sharedSizeBytes;
  k.without_opt_in = size_t(std::max(attr.maxDynamicSharedSizeBytes, 0));
  k.most = prop.sharedMemPerBlockOptin > k.static_bytes ? prop.sharedMemPerBlockOptin - k.static_bytes : 0;
  std::lock_guard lock(known.mu);
  out = known.by_kernel.try_emplace(kernel, k).first->second;
  return true;
}

// The most dynamic shared memory a block of `kernel` may take on this
// device: the opt-in limit less the kernel's static shared memory (a
// user's atomic carries 8 KiB of it: prim/call_scope.cuh).
inline bool dynamic_shared_limit(const void* kernel, size_t& most, std::string& error) {
  KernelShared k;
  if (!kernel_shared(kernel, k, error)) return false;
  most = k.most;
  return true;
}

// Lets `kernel` take `bytes` of dynamic shared memory, or says why it
// cannot.  Without opting in a kernel may take 48 KiB less its static
// shared memory, not 48 KiB.  The attribute is always raised to the most:
// threads launching one kernel with different amounts at once must not
// lower it under one another (it is a cap; each launch's own amount decides
// its occupancy).
inline bool allow_dynamic_shared(const void* kernel, size_t bytes, std::string& error) {
  KernelShared k;
  if (!kernel_shared(kernel, k, error)) return false;
  if (bytes <= (k.opted_in ? k.most : k.without_opt_in)) return true;
  if (bytes > k.most) {
    cudaDeviceProp prop;
    if (!device_props(prop, error)) return false;
    error = "impossible geometry for " + std::string(prop.name) + ": " + std::to_string(bytes) +
            " bytes of shared memory per block and the kernel's own " + std::to_string(k.static_bytes) +
            " exceed the limit of " + std::to_string(prop.sharedMemPerBlockOptin);
    return false;
  }
  AS_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(k.most)));
  KnownKernelShared& known = known_kernel_shared();
  std::lock_guard lock(known.mu);
  known.by_kernel[kernel].opted_in = true;
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
// stream, or on `stream`: a kernel case's non-blocking stream is not ordered
// with the default one) a memset of a scratch buffer as large as the
// device's L2, so the launch queued next on that stream finds none of its
// data in the cache.  Call it before the timed region's start event: the
// flush itself is not timed.
bool flush_l2(std::string& error, cudaStream_t stream = nullptr);

// Records that this process's CUDA context is of no further use
// (cuda_context_lost() says so from then on); defined in device.cu.
void mark_context_lost(const std::string& why);

inline std::string ms_text(double ms) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f ms", ms);
  return b;
}

// A kernel that ran `ran_ms` (since just before its launch) failed with `e`.
// A sticky error (illegal or misaligned address, illegal instruction, trap,
// ...) kills the context: it is recorded, and the fault is a Hang when the
// kernel had run at least its watchdog time (the watchdog traps a loop past
// the deadline) or a Crash before that.  Any other error is no fault of the
// code under test (None).  Sets the one-line `error`.
inline RunFault classify_kernel_failure(cudaError_t e, double ran_ms, uint64_t watchdog_ms, const char* what,
                                        std::string& error) {
  const std::string cause = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
  cudaGetLastError();  // clears the error unless it is sticky
  // A sticky error comes back from every later call; the failed kernel has
  // ended, so this does not wait.
  if (cudaDeviceSynchronize() == cudaSuccess) {
    error = std::string("cuda: ") + what + " kernel failed: " + cause;
    return RunFault::None;
  }
  mark_context_lost(std::string(what) + " kernel: " + cause);
  if (ran_ms >= double(watchdog_ms)) {
    error = std::string(what) + " kernel stopped past its watchdog (" + std::to_string(watchdog_ms) +
            " ms): trapped (" + cause + ")";
    return RunFault::Hang;
  }
  error = std::string(what) + " kernel faulted after " + ms_text(ran_ms) + ": " + cause;
  return RunFault::Crash;
}

// Waits for `done` (recorded after a kernel launched at `launched`) with a
// host deadline well past the device watchdog.  False with `fault` and
// `error` set when the kernel failed (classify_kernel_failure) or is still
// running at the deadline: a Hang, and a context that cannot run another
// trial (the kernel runs on).  Trials isolated in a worker process are
// killed by their supervisor before this deadline.
inline bool wait_bounded(cudaEvent_t done, std::chrono::steady_clock::time_point launched, uint64_t watchdog_ms,
                         const char* what, RunFault& fault, std::string& error) {
  // Saturating: a watchdog of hours must not wrap the deadline into the past.
  const uint64_t wait_ms = watchdog_ms > (uint64_t(1) << 40) ? (uint64_t(1) << 41) : 2 * watchdog_ms + 10000;
  const auto host_deadline = launched + std::chrono::milliseconds(wait_ms);
  for (;;) {
    const cudaError_t q = cudaEventQuery(done);
    if (q == cudaSuccess) return true;
    const auto now = std::chrono::steady_clock::now();
    const double ran_ms = std::chrono::duration<double, std::milli>(now - launched).count();
    if (q != cudaErrorNotReady) {
      fault = classify_kernel_failure(q, ran_ms, watchdog_ms, what, error);
      return false;
    }
    // Yield, not sleep, for the first 5 ms: a timing batch waits for
    // hundreds of launches of a few microseconds each, and a pack's launches
    // (eight at once) queue behind one another's work for one to two
    // milliseconds; a 200 us sleep per wait would make the host's naps, not
    // the GPU, their cost.
    if (now < launched + std::chrono::milliseconds(5)) {
      std::this_thread::yield();
      continue;
    }
    if (now > host_deadline) {
      fault = RunFault::Hang;
      error = std::string(what) + " kernel still running " + ms_text(ran_ms) + " after its launch, past its watchdog (" +
              std::to_string(watchdog_ms) + " ms)";
      mark_context_lost(error);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace atomstress::cuda
