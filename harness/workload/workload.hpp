// Workload: the bulk arrays of a trial, expanded deterministically from its
// TrialSpec with a counter-based generator, so the same spec gives the same
// bytes on every backend and machine.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/registry/registry.hpp"
#include "harness/trial/spec.hpp"
#include "harness/trial/validate.hpp"
#include "harness/workload/draw.hpp"

namespace atomstress {


struct Workload {
  const Entry* impl = nullptr;
  TrialSpec spec;
  uint32_t region_elems = 0;  // elements in one region (all memory, or one block's shared copy)
  uint32_t regions = 1;       // 1 for global memory, grid for shared memory
  std::vector<uint32_t> addr; // per op: flattened element index in [0, mem_elems)
  std::vector<uint64_t> a, b; // per op: operand bit patterns
  std::vector<uint64_t> init; // per element: initial memory bit patterns

  uint64_t mem_elems() const { return uint64_t(region_elems) * regions; }
  // expand_shape's workload: sizes only, the arrays live on the device
  // (cuda/resident.hpp) until copied back.
  bool arrays_elsewhere = false;
  // Non-zero: the mark of the device expansion that made addr, a and b
  // (expand_arrays_on_device); the trial's device buffers still hold them
  // while their mark is this one, and a run copies them up again otherwise.
  uint64_t device_inputs = 0;
  uint64_t ops() const { return arrays_elsewhere ? spec.ops() : addr.size(); }
  // Op o is the (o / threads)-th operation of thread (o % threads).
  uint64_t thread_of(uint64_t op) const { return op % spec.threads(); }
  uint32_t block_of(uint64_t op) const { return uint32_t(thread_of(op) / spec.block); }
};

// Validates the spec against its entry's limits (the one-line reason goes to
// `error`) and expands it.
std::optional<Workload> expand(const TrialSpec& spec, std::string& error);
// The same validation and sizes, arrays left empty: for a backend that
// expands on the device (backend/cuda/resident.hpp), from the same functions.
std::optional<Workload> expand_shape(const TrialSpec& spec, std::string& error);
// Fills a shape's arrays on the host (expand is expand_shape, then this).
void expand_arrays(Workload& w);
// What the expansion functions (draw.hpp) read: `special` points to the
// kind's special values and `cdf` to zipf_table(spec), wherever they live.
expansion::Params expansion_params(const Workload& w, const uint64_t* special, const double* cdf);
std::vector<double> zipf_table(const TrialSpec& spec);

// The special-value class of a kind/domain: NaNs of both signs and assorted
// payloads, signed zeros, infinities, subnormal and normal extremes, values
// that differ only below float precision, integer boundaries, wrap limits.
std::span<const uint64_t> special_values(VK kind, Domain domain);

}  // namespace atomstress
