// The signature of an atomic's oracle half that runs on the device: each
// op's edge, old -> phi(old, a, b) in the checker's states, computed where the
// history already is (the resident path, harness/backend/cuda/resident.hpp),
// for the GPU checker.  The registry holds it beside the host phi; the kernel
// behind it is check/device_oracle.cuh, instantiated by the registering unit
// when an entry's phi compiles for the device.  Whether it gives the host
// phi's bits is checked once per entry and process before it is trusted
// (device_oracle_agrees).
//
// Host-only header.
#pragma once

#include <cstdint>
#include <string>

namespace atomstress {

// All pointers are device pointers, n entries each.
struct DeviceEdgeArgs {
  const uint64_t* old = nullptr;
  const uint64_t* a = nullptr;
  const uint64_t* b = nullptr;
  uint64_t n = 0;
  bool shared = false;            // the shared-memory phi
  bool nan_states_equal = false;  // canonical states: every NaN one state
  uint64_t* from = nullptr;       // out: canon(old)
  uint64_t* to = nullptr;         // out: canon(phi(old, a, b))
};
// Launches the edge kernel on the default stream; false with a one-line
// `error` on a CUDA error.
using DeviceEdgesFn = bool (*)(const DeviceEdgeArgs& args, std::string& error);

}  // namespace atomstress
