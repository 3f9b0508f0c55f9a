// What of a pack is made on the device rather than sent from the host: its
// slots, from the plan's placements (a placement per logical block instead
// of a slot per thread), and its inputs (backend/packed.hpp: items whose
// workload is a shape only): each instance's ops and initial memory from its
// spec, by the functions the host expands with (workload/draw.hpp), straight
// into the launch's arrays at the instance's op_base and mem_base.  The host
// then sends about a hundred bytes of parameters an instance instead of its
// arrays, and builds none.
//
// Host-only header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/backend/packed.hpp"
#include "harness/registry/value_kind.hpp"

namespace atomstress::cuda {

// The launch's arrays on the device: its inputs, as the packed kernel and
// the pack's judging read them, and its outputs, cleared (one kernel instead
// of five copies and clears a launch: a pack's launches are many and small).
struct PackInputs {
  uint32_t* key = nullptr;  // instance-local words
  uint64_t *x = nullptr, *y = nullptr;
  uint64_t* init = nullptr;  // per launch word: its initial value as a 64-bit pattern (the padding 0)
  void* mem = nullptr;       // the launch's memory, elem_bytes a word (the padding 0)
  uint64_t* old = nullptr;   // per op, cleared
  uint32_t* retries = nullptr;
  uint8_t* gave = nullptr;
};

// Fills `d` for the n instances of `plan` (the items' shapes, one entry's;
// `instances`: the plan's instances already on the device), on the calling
// thread's stream; the packed kernel launched after it on the same stream
// reads them.  False with `error` on a CUDA error.
bool expand_pack_on_device(const PackItem* items, size_t n, const PackPlan& plan, const PackInstance* instances,
                           uint32_t elem_bytes, const PackInputs& d, std::string& error);

// The plan's slots (plan_slots' bytes) into `slots` on the device (at least
// plan.slot_count() of them), on the calling thread's stream.
bool place_slots_on_device(const PackPlan& plan, PackSlot* slots, std::string& error);

// The special values of a kind and domain (workload.hpp, special_values) on
// the current device, copied there once per process and device.
const uint64_t* device_special_values(VK kind, Domain domain, std::string& error);

}  // namespace atomstress::cuda
