// RapidCheck generators: TrialSpecs (never the bulk arrays, which are
// expanded from a spec's seed) and IEEE / integer special values.
#pragma once

#include <rapidcheck.h>

#include <vector>

#include "harness/backend/backend.hpp"
#include "harness/trial/spec.hpp"

namespace atomstress::properties {

struct GenConfig {
  std::vector<const Entry*> impls;  // drawn from, first ones preferred when shrinking
  BackendKind backend = BackendKind::Cpu;
  uint32_t max_grid = 16;              // cuda: a few times the SM count
  uint64_t max_ops = 4096;             // cap on grid * block * ops_per_thread
  bool stress = true;                  // vary the stress incantations (half the specs have none); default_config: cuda only
  uint32_t max_stress_blocks = 8;      // cuda: twice the SM count
};

GenConfig default_config(BackendKind backend, std::vector<const Entry*> impls);

// Shrinks towards one block of one thread, one op, the single-address
// pattern, global memory, small values, no specials, no stress.
rc::Gen<TrialSpec> gen_trial_spec(const GenConfig& c);
// Stress incantations: none half the time, else a mix of extra hammering
// blocks, thread randomisation, a bounded pre-test barrier and skewed warps.
rc::Gen<Stress> gen_stress(uint32_t max_blocks);

// Values RapidCheck's own float generator never makes, on purpose and often:
// NaN of either sign with assorted payloads, +-0, +-inf, the smallest and
// largest subnormals and normals, values differing only below float
// precision (doubles), integer boundaries and wrap limits.
rc::Gen<float> gen_float_special();
rc::Gen<double> gen_double_special();
rc::Gen<int32_t> gen_int_boundary();
rc::Gen<uint32_t> gen_wrap_limit();
// The 16-bit floats as bit patterns (the workload's special values: NaNs
// with payloads, +-0, +-inf, subnormals, extremes, ties), or any pattern.
rc::Gen<uint16_t> gen_f16_bits();
rc::Gen<uint16_t> gen_bf16_bits();
// 64-bit wrap limits: the 32-bit ones and the edges of 64 bits.
rc::Gen<uint64_t> gen_wrap_limit64();

}  // namespace atomstress::properties
