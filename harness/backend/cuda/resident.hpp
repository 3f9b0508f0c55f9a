// The CUDA backend's resident path, for single atomics under the GPU
// checker: the inputs are expanded on the device by the host's own functions
// (workload/draw.hpp), the history stays in the runner's buffers, and the
// verdict comes from the entry's device oracle (registry/device_edges.hpp) and
// the GPU checker (check/gpu_checker.hpp).  Only a trial the device cannot
// pass alone (the checker found no explanation, a loop gave up, a rule only
// the host words) is copied back, to be explained by the host's checker.
//
// Host-only header.
#pragma once

#include <cstdint>
#include <string>

#include "harness/backend/backend.hpp"

namespace atomstress::cuda {

// Fills the trial buffers (run_program.cuh) for workload w, which carries
// its shape only (expand_shape): per op key, x, y; per element init (64-bit
// patterns) and pristine (elem_bytes wide).
bool expand_inputs(const Workload& w, unsigned elem_bytes, std::string& error);

struct ResidentVerdict {
  bool ok = false;          // the GPU checker explained every element
  bool needs_host = false;  // a loop gave up, a block-scope op in global memory, or a wrap counter out of range
  uint64_t total_retries = 0;
  uint32_t max_retries = 0;
  double check_ms = 0;      // the device's checking, host-timed
};

// The verdict for the history the last resident run left in the buffers
// (run_cuda_program under RunOptions::device_resident) of workload w.
bool check_resident(const Workload& w, ResidentVerdict& out, std::string& error);

// Copies the last resident run's inputs into w and its history into h, as a
// run that was not resident would have left them.
bool copy_back_resident(Workload& w, History& h, std::string& error);

// Whether entry e's device oracle gives the bits its host phi gives, over
// the kind's special values and random values, in global and shared memory
// (states compared as the checker compares them).  Decided once per entry
// and process; false with `why` (the first disagreement) or with no device
// oracle at all.
bool device_oracle_agrees(const Entry& e, std::string& why);

// The largest history the GPU checker takes on this device (0 without one).
uint64_t gpu_checker_max_ops();

// Edges already in device memory, for the GPU checker this thread's
// resident path holds (check/gpu_checker.hpp's DeviceHistory, restated so
// that the backend's headers need not include the check layer).  All device
// pointers; bad_elems: one byte per element, set to 1 at every element the
// checker cannot explain (exact per element) and 0 elsewhere.
struct DeviceEdgeHistory {
  const uint32_t* addr = nullptr;
  const uint64_t *from = nullptr, *to = nullptr;
  uint64_t ops = 0;
  const uint64_t *init = nullptr, *final_state = nullptr;  // canonical states
  uint32_t elems = 0;
  uint8_t* bad_elems = nullptr;
};
// ok: every element explained.  outside: an op lay outside the memory
// (bad_elems then not written).  False with `error` on a CUDA error.
bool check_edges(const DeviceEdgeHistory& h, bool& ok, bool& outside, std::string& error);

}  // namespace atomstress::cuda
