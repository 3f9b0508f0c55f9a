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
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "harness/backend/packed.hpp"
#include "harness/registry/value_kind.hpp"

namespace atomstress::expansion {
struct Params;  // workload/draw.hpp
}  // namespace atomstress::expansion

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

// The Zipf tables a launch's instances read (one per distinct (k, s), end to
// end; cdf_at: each one's first weight), made on the host.
struct ExpansionTables {
  std::vector<double> cdfs;
  std::map<std::pair<uint32_t, uint32_t>, size_t> cdf_at;
};
ExpansionTables expansion_tables(const PackItem* items, size_t n);

// The n instances' expansion parameters into `params` and the tables into
// `cdfs` (host staging, tables.cdfs.size() doubles), pointing at the tables'
// copy `cdfs_on_device`; the caller sends both before expand_pack.
bool stage_expansion(const PackItem* items, size_t n, const ExpansionTables& tables, expansion::Params* params,
                     double* cdfs, const double* cdfs_on_device, std::string& error);

// Fills `d` for the n instances (the items' shapes, one entry's) from their
// parameters and the plan's `instances`, both on the device, on the calling
// thread's stream; the packed kernel launched after it reads them.  False
// with `error` on a CUDA error.
bool expand_pack(const expansion::Params* params, const PackInstance* instances, size_t n, uint32_t elem_bytes,
                 const PackInputs& d, std::string& error);

// The plan's slots (plan_slots' bytes) into `slots` on the device (at least
// plan.slot_count() of them) from its placements already there, on the
// calling thread's stream; place_slots_on_device copies them there first.
bool place_slots(const PackPlan& plan, const PackPlacement* placements, PackSlot* slots, std::string& error);
bool place_slots_on_device(const PackPlan& plan, PackSlot* slots, std::string& error);

// The special values of a kind and domain (workload.hpp, special_values) on
// the current device, copied there once per process and device.
const uint64_t* device_special_values(VK kind, Domain domain, std::string& error);

}  // namespace atomstress::cuda
