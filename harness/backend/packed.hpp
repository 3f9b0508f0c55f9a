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

namespace atomstress {

// One instance to pack: its expanded workload and family arrays, and where
// its history goes.
struct PackItem {
  const Workload* w = nullptr;
  const Setup* s = nullptr;
  History* h = nullptr;
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
  uint32_t threads = 0, per_thread = 0, block = 0, region_elems = 0, shared = 0, pad = 0;
};

struct PackPlan {
  std::vector<PackInstance> instances;
  std::vector<PackSlot> slots;  // blocks * block_threads
  uint32_t block_threads = 0, blocks = 0;
  uint32_t smem_elems = 0;  // shared-memory words per physical block (the fullest block's)
  uint64_t ops = 0, mem_elems = 0;
};

// Whether a trial may be packed: a single atomic on an entry with a packed
// runner, unstressed, at most kPackMaxOps ops, memory within
// kPackMaxInstanceBytes.
inline constexpr uint64_t kPackMaxOps = 4096;
inline constexpr uint64_t kPackMaxInstanceBytes = 64 * 1024;
bool packable(const Workload& w);

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

// The cuda backend's packed runner of an entry: RunPackedFn (registry.hpp).

}  // namespace atomstress
