// What every family's oracle shares: the Eulerian check of the atomics an
// algorithm issued (their returned values must chain like a sequential
// history), and a value printer.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "harness/check/finding.hpp"
#include "harness/registry/registry.hpp"

namespace atomstress::families {

// The algorithm's atomics as a history for the Eulerian checker: op i at
// addr[i] with operand arg[i] returned old[i].  `elem` maps op i to the
// element that issued it (empty: op i is element i).  `what` names the
// atomics in the explanation.
Finding check_chain(const char* what, const Entry& atomic, std::span<const uint32_t> addr,
                    std::span<const uint64_t> arg, std::span<const uint64_t> old, std::span<const uint64_t> init,
                    std::span<const uint64_t> fin, std::span<const uint64_t> elem, uint32_t threads = 0);

inline std::string fmt(VK k, uint64_t bits) { return format_value(k, bits); }
inline uint64_t width_mask(VK k) {
  const unsigned b = vk_bytes(k);
  return b == 8 ? ~0ull : (1ull << (8 * b)) - 1;
}
// The spec every algorithm starts from: global memory only (its form decides
// where it uses shared memory), NaN states as its atomic's, every rule "n/a"
// until the family states it.
inline Semantics algorithm_semantics(const Entry& atomic, const char* phi) {
  Semantics s{};
  s.phi = phi;
  s.nan = s.signed_zero = s.subnormals = s.wrap = kNA;
  s.shared_ok = false;
  s.nan_states_equal = atomic.sem.nan_states_equal;
  return s;
}

constexpr uint32_t pattern_bit(Pattern p) { return 1u << unsigned(p); }

// Registers a family object at static initialisation.
#define ATOMSTRESS_FAMILY(Class)                   \
  namespace {                                      \
  const Class family_instance;                     \
  const bool family_registered = [] {              \
    ::atomstress::register_family(family_instance); \
    return true;                                   \
  }();                                             \
  }

}  // namespace atomstress::families
