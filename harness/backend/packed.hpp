// Packed instances: many small single-atomic trials of one entry in one
// launch, in the manner of MC Mutants' parallel testing environment.  Each
// instance keeps its own memory (128-byte aligned, so no word or line is
// shared with another instance), its own initial values and its own slice of
// the history; each is checked as its own trial.  The plan is host code
// (tested on any machine); the cuda backend's packed runner
// (cuda/packed_program.cuh) launches it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "harness/backend/backend.hpp"
#include "harness/backend/gpu_checked.hpp"

namespace atomstress {

// The device's judgement of one packed instance, when a pack is judged on
// the GPU (PackItem::device): the same rules the resident path applies to a
// single trial (cuda/resident.cu).  No flag: the checker's circuit test
// (pack_circuit.cuh) explained every element and no host-only rule
// applies, so the instance passes without its history leaving the device.
// Any flag: the host judges it in full.
struct PackDeviceVerdict {
  uint8_t flags = 0;
  uint32_t max_retries = 0;
  uint64_t total_retries = 0;
  double check_ms = 0;   // its share of the launch's judging, host-timed
  double device_ms = 0;  // its share of that judging by its events: the GPU's time on it
  double end_s = 0;      // steady_seconds() when the host saw the judging end
};
inline constexpr uint8_t kPackUnexplained = 1;        // the circuit test found no explanation
inline constexpr uint8_t kPackGaveUp = 2;             // a loop gave up (the hang rule, or stopped by another's)
inline constexpr uint8_t kPackBlockScopeGlobal = 4;   // a block-scope op in global memory (the scope rule)
inline constexpr uint8_t kPackWrapRange = 8;          // a wrap counter out of range (the wrap rule words it)
inline constexpr uint8_t kPackNotJudged = 16;         // the device could not judge it
inline bool passed_on_device(const PackDeviceVerdict& v) { return v.flags == 0; }
// Whether the circuit test's verdict alone was the device's word (no host-only
// rule applied): then the host's checker must agree with it.
inline bool trail_test_alone(const PackDeviceVerdict& v) { return (v.flags & ~kPackUnexplained) == 0; }

// Whether the host judges an instance (and so needs its history back):
// always without a device verdict, always under CheckerKind::Both (the two
// checkers are compared), else when the device did not pass it.
inline bool host_judges(const PackDeviceVerdict* device, CheckerKind checker) {
  return device == nullptr || checker == CheckerKind::Both || !passed_on_device(*device);
}

// One instance to pack: its workload and family arrays, and where its
// history goes.  `device` non-null (on every item of a launch, or on none):
// the pack is judged on the device (the entry's device oracle and the GPU
// checker) into *device, and `h` receives the history only of an instance
// the device did not pass (of every instance under CheckerKind::Both);
// kernel_ms (its share of the launch) and kernel_end_s are set on all.
// `w` a shape only (expand_shape: arrays_elsewhere, on every item of a
// launch or on none, and then `s` null): the runner expands the inputs on
// the device from the spec (workload/draw.hpp, as the resident path does),
// and copies them back into *w only for an instance whose history `h`
// receives, so that the host judges what ran.
struct PackItem {
  Workload* w = nullptr;
  const Setup* s = nullptr;
  History* h = nullptr;
  PackDeviceVerdict* device = nullptr;
};

// What one physical thread of a packed launch does: logical thread `thread`
// of instance `instance` (kIdleSlot: nothing), whose block's shared-memory
// copy (shared instances) starts at element `smem_elem` of the physical
// block's shared memory.
struct PackSlot {
  uint32_t instance = 0, thread = 0, smem_elem = 0;
};
inline constexpr uint32_t kIdleSlot = 0xffffffffu;

// An instance as the packed kernel reads it.
struct PackInstance {
  uint64_t op_base = 0;   // its op o is the launch's op op_base + o
  uint64_t mem_base = 0;  // its word e is the launch's word mem_base + e
  uint32_t threads = 0, per_thread = 0, block = 0, region_elems = 0, shared = 0;
  uint32_t words = 0;  // its own words (pack_words), without the padding to whole lines
};

// Where the threads of one logical block go: its thread t takes slot
// first + (t * m + c) mod block, m co-prime with `block` (a permutation, so a
// warp mixes threads of several positions and instances).
struct PackPlacement {
  uint64_t first = 0;  // the slot of its physical block where it starts
  uint32_t instance = 0, logical = 0, block = 0, m = 1, c = 0, smem_elem = 0;
};

// A plan holds a placement per logical block, not a slot per thread: the
// device fills the slots (cuda/pack_expansion.hpp), which a host writing
// and copying one slot a thread took most of a small instance's plan.
struct PackPlan {
  std::vector<PackInstance> instances;
  std::vector<PackPlacement> placements;  // one per logical block
  uint32_t block_threads = 0, blocks = 0;
  uint32_t smem_elems = 0;  // shared-memory words per physical block (the fullest block's)
  uint64_t ops = 0, mem_elems = 0;
  size_t slot_count() const { return size_t(blocks) * block_threads; }
};

// The plan's slots, blocks * block_threads, the idle ones kIdleSlot: what
// the device makes of the placements, made on the host (the reference).
std::vector<PackSlot> plan_slots(const PackPlan& plan);

// An instance's memory words: its setup's, or (a shape expanded on the
// device) the workload's, which a single atomic's setup copies.
inline uint64_t pack_words(const PackItem& item) {
  return item.s != nullptr ? item.s->mem_init.size() : item.w->mem_elems();
}

// Whether a trial may be packed: a single atomic on an entry with a packed
// runner, unstressed, at most kPackMaxOps ops, memory within
// kPackMaxInstanceBytes.
inline constexpr uint64_t kPackMaxOps = 4096;
inline constexpr uint64_t kPackMaxInstanceBytes = 64 * 1024;
bool packable(const Workload& w);
// What packable asks of the spec and its entry alone, before any expansion
// (a pack's launches are grouped from their specs).
bool packable_spec(const Entry* impl, const TrialSpec& spec);

// Lays instances out for one launch of elements of `elem_bytes` bytes:
// memory in instance order, each instance's words starting on a 128-byte
// line and padded to whole lines; logical blocks placed whole in physical
// blocks (so block scope and a shared-memory copy mean what they mean
// unpacked), shared-memory blocks apart from global ones (their threads
// synchronise), in an order shuffled by `seed`; within a logical block the
// threads take the physical lanes in a co-prime permutation, also from
// `seed`, so a warp mixes threads of several positions and instances.  A
// physical block holds at most 1024 threads and `max_smem_bytes` of shared
// memory.  Nothing when an item cannot be packed (error says why).
std::optional<PackPlan> plan_pack(std::span<const PackItem> items, uint32_t elem_bytes, uint64_t seed,
                                  uint64_t max_smem_bytes, std::string& error);

// After a pack judged on the device: whether the histories of the `to_host`
// instances (of `instances`) come back in one copy of the whole launch's
// arrays rather than instance by instance (four small copies each).
bool copy_back_in_bulk(size_t to_host, size_t instances);

// The cuda backend's packed runner of an entry: RunPackedFn (registry.hpp).

}  // namespace atomstress
