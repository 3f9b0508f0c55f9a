// The CUDA backend's resident path, for single atomics under the GPU
// checker: the inputs are expanded on the device by the host's own functions
// (workload/draw.hpp), the history stays in the runner's buffers, and the
// verdict comes from the entry's device oracle (registry/device_edges.hpp) and
// the DeviceJudge the caller hands in (the GPU checker).  Only a trial the device cannot
// pass alone (the checker found no explanation, a loop gave up, a rule only
// the host words) is copied back, to be explained by the host's checker.
//
// Host-only header.
#pragma once

#include <cstdint>
#include <string>

#include "harness/backend/backend.hpp"
#include "harness/backend/gpu_checked.hpp"

namespace atomstress::cuda {

// Fills the trial buffers (run_program.cuh) for workload w, which carries
// its shape only (expand_shape): per op key, x, y; per element init (64-bit
// patterns) and pristine (elem_bytes wide).
bool expand_inputs(const Workload& w, unsigned elem_bytes, std::string& error);

// The verdict, by `judge`, for the history the last resident run left in the
// buffers (run_cuda_program with History::home Device) of workload w.
bool check_resident(const Workload& w, DeviceJudge& judge, DeviceVerdict& out, std::string& error);

// Copies the inputs expand_inputs left in the buffers into w's arrays.
bool copy_inputs_back(Workload& w, std::string& error);

// Copies the last resident run's inputs into w and its history into h, as a
// run that was not resident would have left them.
bool copy_back_resident(Workload& w, History& h, std::string& error);

// Whether entry e's device oracle gives the bits its host phi gives, over
// the kind's special values and random values, in global and shared memory
// (states compared as the checker compares them).  Decided once per entry
// and process; false with `why` (the first disagreement) or with no device
// oracle at all.
bool device_oracle_agrees(const Entry& e, std::string& why);

}  // namespace atomstress::cuda
