// Judging a packed launch on the device (backend/packed.hpp,
// PackItem::device): each op's edge from the entry's device oracle, then one
// block per instance for its retries, its host-only rules (the resident
// path's) and the checker's test of its own edges (backend/pack_circuit.cuh).
// Only the per-instance verdicts come back.
//
// Host-only header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/backend/packed.hpp"

namespace atomstress::cuda {

// The launch's arrays as the packed runner left them on the device.
struct PackedLaunchArrays {
  const PackInstance* instances = nullptr;
  const uint32_t* key = nullptr;  // instance-local words
  const uint64_t *x = nullptr, *y = nullptr, *old = nullptr;
  const uint32_t* retries = nullptr;
  const uint8_t* gave = nullptr;
  const void* mem = nullptr;  // the launch's memory after the run, elem_bytes a word
  // Each launch word's initial value (64 bits, the padding 0) where the
  // inputs were expanded on the device; null: from the items' setups.
  const uint64_t* init = nullptr;
};

// Fills *items[i].device for the n instances of `plan` (one entry's, run by
// the launch just waited for).  An instance the device cannot judge (the
// entry has no device oracle, an op outside its words) gets kPackNotJudged.  False with `error` on a
// CUDA error.
bool judge_pack(const PackItem* items, size_t n, const PackPlan& plan, const PackedLaunchArrays& d,
                uint32_t elem_bytes, std::string& error);

}  // namespace atomstress::cuda
