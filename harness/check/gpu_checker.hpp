// The checker on the GPU: the same verdict as check_history (checker.hpp),
// without messages, for histories already in device memory.
//
// Per element, op i is an edge from[i] -> to[i] between canonical states.
// The history is explained by a sequential order iff, at every element, the
// ops' edges plus one closing edge final -> init form an Eulerian circuit:
// every state is balanced (as many edges leave it as enter it) and every edge
// lies in one weakly connected component.  An element that no op targets has
// only its closing edge, a self-loop iff final == init.  That is exactly the
// trail condition the CPU checker tests (out - in = [init] - [final], every
// edge reachable from init).
//
// The history (DeviceHistory) is declared by the backend, which prepares it
// on the device (backend/gpu_checked.hpp).
//
// Host-only header: no CUDA types (the stream is an opaque pointer).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "harness/backend/gpu_checked.hpp"

namespace atomstress::gpu_check {

struct Verdict {
  bool ok = true;
  int64_t bad_addr = -1;  // the smallest element whose history is not explainable
};

class Checker {
 public:
  Checker();
  ~Checker();
  Checker(const Checker&) = delete;
  Checker& operator=(const Checker&) = delete;

  // Returns false with a one-line `error` on a CUDA error.  Scratch is
  // grow-only and reused: no allocation once warm.  Synchronises the stream
  // twice (once for the sizes of the sorts, once for the verdict).
  bool check(const DeviceHistory& h, Verdict& out, std::string& error, void* cuda_stream = nullptr);

  // The largest history it accepts: 2^28 ops, or fewer where the device's
  // free memory would not hold the scratch of the widest case.  0 without a
  // usable device.
  uint64_t max_ops() const;

  struct Impl;

 private:
  Impl* impl_;
  friend bool check_host_arrays(Checker&, std::span<const uint32_t>, std::span<const uint64_t>,
                                std::span<const uint64_t>, std::span<const uint64_t>, std::span<const uint64_t>,
                                Verdict&, std::string&, std::vector<uint8_t>*);
};

// Convenience for tests and benchmarks: copies host arrays to the device
// (into buffers the checker keeps) and checks, on the default stream.
bool check_host_arrays(Checker& checker, std::span<const uint32_t> addr, std::span<const uint64_t> from,
                       std::span<const uint64_t> to, std::span<const uint64_t> init,
                       std::span<const uint64_t> final_state, Verdict& out, std::string& error,
                       std::vector<uint8_t>* bad_elems = nullptr);

// This thread's GPU checker as the backend's DeviceJudge (the pipeline hands
// it to judge_on_device).  One per thread, like the backend's buffers.
DeviceJudge& device_judge();

}  // namespace atomstress::gpu_check
