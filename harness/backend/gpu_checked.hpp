// The GPU-checked run as the backend offers it to the backend-neutral
// pipeline (harness/pipeline/run_trial.cpp): whether an entry's trial may be
// expanded, run and checked on the device, the device's verdict on the
// history such a run (RunOptions::device_resident) left there, and that
// history copied back for the host's checker.  The cuda backend implements
// it (cuda/resident.hpp); the pipeline knows no backend's internals.
#pragma once

#include <cstdint>
#include <string>

#include "harness/backend/backend.hpp"

namespace atomstress {

struct DeviceVerdict {
  bool ok = false;          // the GPU checker explained every element
  bool needs_host = false;  // a loop gave up, a block-scope op in global memory, or a wrap counter out of range
  uint64_t total_retries = 0;
  uint32_t max_retries = 0;
  double check_ms = 0;  // the device's checking, host-timed
};

// Whether entry e's trials of `ops` ops can be checked on the device: its
// device oracle agrees with its host phi (decided once per entry) and the
// GPU checker takes that many ops.
bool gpu_checkable(const Entry& e, uint64_t ops);

// The device's verdict on the history the last GPU-checked run of workload
// w left on the device.
bool judge_on_device(const Workload& w, DeviceVerdict& out, std::string& error);

// That run's inputs into w and its history into h, as a run that was not
// GPU-checked would have left them.
bool copy_history_back(Workload& w, History& h, std::string& error);

}  // namespace atomstress
