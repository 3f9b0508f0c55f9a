// A user's __host__ __device__ code on the cpu backend runs its host build.
// Where that build takes a host branch of its own (AMReX's AMREX_IF_ON_HOST,
// NV_IF_ELSE_TARGET, #ifdef __CUDA_ARCH__), the CPU backend would test code
// the GPU never runs, and its verdict would be about that code.  So each
// such entry is called a few times on the host first, in a child process
// (a crash or a hang there costs nothing), and one that makes no
// intercepted atomic call is marked as one the cpu backend cannot run: its
// trials there are SKIP with the reason, and `list -v` says it.
#pragma once

namespace atomstress {

// Probes every user entry that has a host build (Entry::
// host_makes_intercepted_call), once per process, before any trial runs.
void settle_host_branches();

}  // namespace atomstress
