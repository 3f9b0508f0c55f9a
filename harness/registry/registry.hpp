// The type-erased catalogue: every implementation's name, spec and oracle,
// with values carried as zero-extended bit patterns in uint64_t.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "atomics_under_test/spec.cuh"

namespace atomstress {

enum class VK : uint8_t { I32, U32, I64, U64, F32, F64, U16 };
unsigned vk_bytes(VK k);
const char* vk_name(VK k);
bool vk_is_float(VK k);

using PhiFn = uint64_t (*)(uint64_t old, uint64_t a, uint64_t b);
struct ImplInfo;

// An algorithm built on a catalogue atomic (atomics_under_test/algorithms.cuh).
struct AlgoInfo {
  Family family;
  SumForm sum_form = SumForm::Element;  // Sum
  const char* form;                     // "sum.block", "buggy.lock.unfenced", ...
  bool warp_agg = false;                // Append: the hand-aggregated form
  bool shared_bins = false;             // Histogram: privatised shared-memory bins
  bool is_max = false, is_cas = false;  // ArgMax
  bool block_scope = false;             // Lock: per-block locks, block fences
  size_t atomic_index = 0;              // the atomic it uses, in catalogue()
  VK mem_kind = VK::U32;                // the words of its memory
  size_t algo_index = 0;                // in the backends' algorithm tables
  const ImplInfo& atomic() const;
};

struct ImplInfo {
  const char* name;
  VK kind;
  Domain domain;
  Semantics sem;
  const char* bug;  // nullptr for a correct implementation
  PhiFn phi;        // sequential semantics on bit patterns
  PhiFn phi_shared; // the same in shared memory (differs for native float add)
  size_t index;     // position in ATOMSTRESS_CATALOGUE
  bool needs_gpu = false;  // a bug only a GPU can show (the cpu backend cannot catch it)
  const AlgoInfo* algo = nullptr;  // an algorithm, not a single atomic
  bool gpu_only = false;   // uses warp intrinsics: the cpu backend cannot run it
  bool rate_only = false;  // a bug the hardware may never show: its failure rate is reported

  bool buggy() const { return bug != nullptr; }
  PhiFn phi_in(bool shared) const { return shared ? phi_shared : phi; }
  // The state the checker compares: bitwise, or all NaNs as one state.
  uint64_t canon(uint64_t bits) const { return sem.nan_states_equal ? canon_nan(bits) : bits; }
  uint64_t canon_nan(uint64_t bits) const;
};

const std::vector<ImplInfo>& catalogue();
const ImplInfo* find_impl(std::string_view name);
// Name, glob (fnmatch), or "all" (correct ones) / "atomics" (correct single
// atomics) / "algorithms" (correct algorithms) / "buggy" / "everything".
std::vector<const ImplInfo*> match_impls(std::string_view pattern);

// "1.5 (0x3fc00000)", "-7", "NaN (0x7fffffff)".
std::string format_value(VK k, uint64_t bits);
std::string describe_spec(const ImplInfo& i);

}  // namespace atomstress
