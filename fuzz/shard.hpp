// Sharding a campaign over a job array: shard i of N takes the entries at
// positions j with j % N == i in the name-sorted list of the selected
// entries (balanced, and the same on every machine).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/registry/registry.hpp"

namespace atomstress::fuzz {

struct Shard {
  uint32_t index = 0, count = 1;
};

// "i/N" with 0 <= i < N <= 100000; nullopt with a one-line `why`.
std::optional<Shard> parse_shard(std::string_view text, std::string& why);

// From the environment when no --shard is given: SLURM_ARRAY_TASK_ID (less
// SLURM_ARRAY_TASK_MIN) of SLURM_ARRAY_TASK_COUNT, or Kubernetes'
// JOB_COMPLETION_INDEX of ATOMSTRESS_SHARD_COUNT.  Unsharded when neither is
// set; `why` non-empty when one is set but malformed.
Shard shard_from_env(std::string& why);

// The entries of `shard`, in name order.
std::vector<const Entry*> shard_entries(std::vector<const Entry*> entries, Shard shard);

}  // namespace atomstress::fuzz
