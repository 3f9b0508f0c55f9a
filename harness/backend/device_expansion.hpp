// A trial's inputs made on the device and copied into its workload: the
// bytes expand_arrays makes on the host (both run workload/draw.hpp's
// functions), for a trial whose history is judged on the host.  An
// algorithm's trial of tens of thousands of ops spent most of its host time
// expanding them (bench BM_AlgorithmHostWork); the device makes them in
// microseconds and the copy back costs a fraction of that.
//
// Host-only header; the CUDA backend implements it (backend/cuda/resident.cu).
#pragma once

#include <string>

#include "harness/workload/workload.hpp"

namespace atomstress {

// Fills w's per-op arrays and initial values (w from expand_shape) on the
// current device; false with `error` on a CUDA error (w keeps its shape).
bool expand_arrays_on_device(Workload& w, std::string& error);

// From this many ops a trial whose history is judged on the host has its
// inputs expanded on the device (below it the launch and copy cost more
// than the host's loop).
inline constexpr uint64_t kDeviceExpansionMinOps = 4096;

}  // namespace atomstress
