// atomstress: property tests of your own CUDA kernels, as you wrote them.
//
//   #include <atomstress/kernel.cuh>
//
//   __global__ void my_hist(const unsigned* keys, size_t n, unsigned* bins) { /* yours, unchanged */ }
//
//   ATOMSTRESS_KERNEL("mylib.hist", [](atomstress::KernelCase& c) {
//     const size_t n = c.size("n");                                // generated, shrinks toward small
//     const size_t nbins = c.range("bins");                        // the spec's key range
//     auto keys = c.keys<unsigned>("keys", n, nbins);              // contention: all equal, few hot, zipf...
//     auto bins = c.output<unsigned>("bins", nbins, 0u);           // a guarded device buffer
//     c.launch(c.cover(n), my_hist, keys, n, bins);                // or c.launch(my_hist, ...): generated grid
//     c.expect_counts(bins, keys);                                 // the oracle, on the host
//   });
//
// and in CMake, as for atomics: find_package(atomstress) +
// atomstress_add_suite(my_suite SOURCES my_kernels.cu GPU_ONLY).  The suite
// has the whole command line over your kernels: list, check, fuzz (corpus,
// reports), repro (tokens), per-entry CTest cases; each case runs in a
// supervised worker (a kernel that never ends or faults costs one verdict),
// and a failure is shrunk and classed.  docs/kernels.md has the API.
//
// ATOMSTRESS_KERNEL_BUGGY(name, "the bug", property) registers a
// deliberately wrong twin (selected by --impl buggy, expected to fail);
// ATOMSTRESS_KERNEL_WITH(name, atomstress::KernelTraits{...}, property) any
// traits.  Keep kernel entries in units of their own: this header does not
// intercept atomics (<atomstress/atomstress.cuh> does, for ATOMSTRESS_ATOMIC).
#pragma once

#include <cuda_runtime.h>

#include "harness/kernel/kernel_entry.hpp"

#define ATOMSTRESS_KERNEL_CAT2_(a, b) a##b
#define ATOMSTRESS_KERNEL_CAT_(a, b) ATOMSTRESS_KERNEL_CAT2_(a, b)
#define ATOMSTRESS_KERNEL_WITH(name, traits, ...)                                                     \
  namespace {                                                                                         \
  [[maybe_unused]] const bool ATOMSTRESS_KERNEL_CAT_(atomstress_kernel_registered_, __COUNTER__) =     \
      ::atomstress::register_kernel(name, __VA_ARGS__, traits);                                       \
  }
#define ATOMSTRESS_KERNEL(name, ...) ATOMSTRESS_KERNEL_WITH(name, ::atomstress::KernelTraits{}, __VA_ARGS__)
#define ATOMSTRESS_KERNEL_BUGGY(name, bug, ...) \
  ATOMSTRESS_KERNEL_WITH(name, (::atomstress::KernelTraits{bug, false}), __VA_ARGS__)
