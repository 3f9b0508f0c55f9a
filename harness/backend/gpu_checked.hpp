// The GPU-checked run as the backend offers it to the backend-neutral
// pipeline (harness/pipeline/run_trial.cpp): whether an entry's trial may be
// expanded, run and checked on the device, the device's verdict on the
// history such a run (History::home Device) left there, and that history
// copied back for the host's checker.  The cuda backend implements it
// (cuda/resident.hpp); the pipeline knows no backend's internals.
//
// The backend prepares each element's edges on the device and hands them to
// a DeviceJudge it does not know: the pipeline passes the GPU checker
// (check/gpu_checker.hpp), so the backend depends on no checker.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "harness/backend/backend.hpp"

namespace atomstress {

// A history as edges between canonical states, in DEVICE memory.  Op i is an
// edge from[i] -> to[i] at element addr[i] (addr[i] < elems; an op outside
// is a failure, as on the CPU).
struct DeviceHistory {
  const uint32_t* addr = nullptr;
  const uint64_t* from = nullptr;
  const uint64_t* to = nullptr;
  uint64_t ops = 0;
  const uint64_t* init = nullptr;         // per element, canonical states
  const uint64_t* final_state = nullptr;  // per element, canonical states
  uint32_t elems = 0;
  // Optional (null: not asked): one byte per element, set to 1 at every
  // element whose history is not explainable and 0 elsewhere.  Each element
  // is judged alone, so this is exact per element: a packed launch's
  // instances, each its own elements, are judged by it.  Not written when
  // an op lies outside the memory.
  uint8_t* bad_elems = nullptr;
};

// What decides a DeviceHistory on the device.
class DeviceJudge {
 public:
  virtual ~DeviceJudge() = default;
  // Whether a sequential order explains every element's edges
  // (`explained`; `outside`: an op lay outside the memory); false with a
  // one-line `error` on a CUDA error.
  virtual bool explains(const DeviceHistory& h, bool& explained, bool& outside, std::string& error) = 0;
  // The largest history it takes on this device (0 without one).
  virtual uint64_t max_ops() const = 0;
};

struct DeviceVerdict {
  bool ok = false;          // the judge explained every element
  bool needs_host = false;  // a loop gave up, a block-scope op in global memory, or a wrap counter out of range
  uint64_t total_retries = 0;
  uint32_t max_retries = 0;
  double check_ms = 0;  // the device's checking, host-timed
  double device_ms = 0;  // the same checking by its events: the GPU's time on it
  double end_s = 0;      // steady_seconds() when the host saw it end
};

// Whether entry e's trials of `ops` ops can be checked on the device: its
// device oracle agrees with its host phi (decided once per entry) and the
// judge takes that many ops.
bool gpu_checkable(const Entry& e, uint64_t ops, const DeviceJudge& judge);

// The device's verdict, by `judge`, on the history the last GPU-checked run
// of workload w left on the device.
bool judge_on_device(const Workload& w, DeviceJudge& judge, DeviceVerdict& out, std::string& error);

// That run's inputs into w and its history into h, as a run that was not
// GPU-checked would have left them (h.home becomes Host).
bool copy_history_back(Workload& w, History& h, std::string& error);

// An algorithm's atomics as a history in HOST memory (the chain its oracle
// tests: check/families/chain.hpp): op i at element addr[i] with operand
// arg[i] (b 0) returned old[i]; init and fin per element.
struct HostChain {
  const Entry* atomic = nullptr;
  std::span<const uint32_t> addr;
  std::span<const uint64_t> arg, old;
  std::span<const uint64_t> init, fin;
};

// The device's verdict, by `judge`, on a chain: copied to the device in one
// upload, its edges from the atomic's device oracle (global memory's phi).
// Only `ok`, the times and check_ms are set.  The caller asks
// gpu_checkable(*chain.atomic, ...) first.
bool judge_chain_on_device(const HostChain& chain, DeviceJudge& judge, DeviceVerdict& out, std::string& error);

}  // namespace atomstress
