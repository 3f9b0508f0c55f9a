// The primitive layer: the one place where each atomic, each floating-point
// operation, each bounded retry and each execution context is mapped to the
// device and to the host.  Implementations in atomics_under_test/ are
// written once, against prim::*, and compile for both the CUDA backend and
// the CPU backend (host threads through std::atomic_ref).
#pragma once

#include "harness/prim/atomics.cuh"
#include "harness/prim/bits.cuh"
#include "harness/prim/config.cuh"
#include "harness/prim/exec.cuh"
#include "harness/prim/float_ops.cuh"
#include "harness/prim/half_ops.cuh"
#include "harness/prim/memory.cuh"
#include "harness/prim/retry.cuh"
#include "harness/prim/scoped_atomics.cuh"
#include "harness/prim/warp.cuh"
