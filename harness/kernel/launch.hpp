// One launch of a user's kernel: checked, timed, waited for with a bound,
// and (when the spec asks for stress) run beside a memory-stress kernel on
// a second stream.  The user's kernel is theirs, unchanged: of the spec's
// stress, only the extra hammering blocks apply (thread shuffling, the
// pre-test barrier and bank-conflict skew need code inside the kernel).
#pragma once

#include <cstdint>
#include <string>

#include "harness/backend/backend.hpp"
#include "harness/kernel/draws.hpp"
#include "harness/trial/spec.hpp"

namespace atomstress::kernel {

struct Geometry {
  uint32_t grid = 1, block = 1;
  uint32_t shared_bytes = 0;  // dynamic shared memory per block
};

struct LaunchResult {
  bool ok = false;
  RunFault fault = RunFault::None;  // Hang or Crash: the user's kernel caused it
  std::string error;                // one line when !ok
  double ms = 0;                    // the kernel's time (events)
};

// The device's shared memory limits (draws.hpp SharedLimits), read once.
bool device_shared_limits(SharedLimits& out, std::string& error);
// The static shared memory of `fn` (its __shared__ arrays), which the
// per-block opt-in limit counts beside the dynamic.
bool static_shared_bytes(const void* fn, uint32_t& bytes, std::string& error);

// Launches `fn` (a __global__ function's address) with `args` (pointers to
// each parameter, as cudaLaunchKernel takes them) and waits for it, bounded
// by `watchdog_ms` (the host deadline of cuda/util.cuh wait_bounded).
// `flush_l2` (profile --cold): the device's L2 is overwritten on the case's
// stream before the start event, outside the timed region.
LaunchResult launch_kernel(const void* fn, void** args, const Geometry& g, const Stress& stress, uint64_t seed,
                           uint64_t watchdog_ms, bool flush_l2 = false);

}  // namespace atomstress::kernel
