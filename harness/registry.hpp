// The type-erased catalogue: every implementation's name, spec and oracle,
// with values carried as zero-extended bit patterns in uint64_t.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../atomics_under_test/spec.cuh"

namespace atomstress {

enum class VK : uint8_t { I32, U32, I64, U64, F32, F64, U16 };
unsigned vk_bytes(VK k);
const char* vk_name(VK k);
bool vk_is_float(VK k);

using PhiFn = uint64_t (*)(uint64_t old, uint64_t a, uint64_t b);

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

  bool buggy() const { return bug != nullptr; }
  PhiFn phi_in(bool shared) const { return shared ? phi_shared : phi; }
  // The state the checker compares: bitwise, or all NaNs as one state.
  uint64_t canon(uint64_t bits) const { return sem.nan_states_equal ? canon_nan(bits) : bits; }
  uint64_t canon_nan(uint64_t bits) const;
};

const std::vector<ImplInfo>& catalogue();
const ImplInfo* find_impl(std::string_view name);
// Name, glob (fnmatch), or "all" (correct ones) / "buggy" / "everything".
std::vector<const ImplInfo*> match_impls(std::string_view pattern);

// "1.5 (0x3fc00000)", "-7", "NaN (0x7fffffff)".
std::string format_value(VK k, uint64_t bits);
std::string describe_spec(const ImplInfo& i);

}  // namespace atomstress
