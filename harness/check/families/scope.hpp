// The algorithm families' part of the scope rule: whose atomic targets two
// blocks share.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "harness/workload/workload.hpp"

namespace atomstress {

// Whether elements of two different blocks have the same key (their atomic's
// target: a bin, an accumulator, a lock).
inline bool keys_shared_across_blocks(const Workload& w, const std::vector<uint32_t>& key) {
  std::unordered_map<uint32_t, uint32_t> owner;
  for (uint64_t e = 0; e < key.size(); ++e) {
    const auto [it, fresh] = owner.emplace(key[e], w.block_of(e));
    if (!fresh && it->second != w.block_of(e)) return true;
  }
  return false;
}

}  // namespace atomstress
