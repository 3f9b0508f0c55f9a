// What a kernel case draws from its TrialSpec: sizes, key ranges, keys with
// contention, values with special values, buffer offsets.  Pure functions of
// (spec, name, index), so a token replays the same case, and the shrinker's
// smaller specs (grid, block, ops_per_thread, k, special_permille, seed)
// give smaller cases.  Host only: the buffers are filled here and copied.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/registry/value_kind.hpp"
#include "harness/trial/spec.hpp"

namespace atomstress::kernel {

// The edge sizes a size(name) comes from (docs/kernels.md has the table).
enum class SizeClass : uint8_t { Zero, One, OddSmall, AroundWarp, AroundBlock, AroundThreads, Large };
const char* to_string(SizeClass c);

// How the spec's pattern reads for a kernel's keys.
enum class KeyShape : uint8_t { AllEqual, Uniform, Zipf, FewHot, Sorted, Reversed, PerWarp, PerBlock };
KeyShape key_shape(Pattern p);
const char* to_string(KeyShape k);

// A stream number for a name: two names of one case draw independently.
uint64_t name_stream(std::string_view name);

SizeClass size_class(const TrialSpec& s, std::string_view name);
// The size: 0, 1, a small odd one, 32±1, block±1, grid*block±1, or the
// spec's whole op count (grid*block*ops_per_thread)±1.
uint64_t draw_size(const TrialSpec& s, std::string_view name);
// A profile's size (KernelCase in timing mode): the spec's whole op count,
// grid*block*ops_per_thread, under the same cap as drawn sizes, so that the
// geometry axes set the problem size.
uint64_t whole_size(const TrialSpec& s);
// A key range: the spec's k (at least 1).
uint64_t draw_range(const TrialSpec& s, std::string_view name);
// n keys in [0, range) in the spec's key shape.
std::vector<uint64_t> draw_keys(const TrialSpec& s, std::string_view name, uint64_t n, uint64_t range);
// n values of `kind` as bit patterns: small or full range (spec.dist), and
// special_permille of them from the kind's special values (NaNs, signed
// zeros, infinities, subnormals, extremes; integer limits).
std::vector<uint64_t> draw_value_bits(const TrialSpec& s, std::string_view name, uint64_t n, VK kind);
// Elements between a buffer's 256-byte aligned start and its first element:
// 0, 1 or 3 (odd offsets break vector loads that assume alignment).
uint32_t draw_offset_elems(const TrialSpec& s, std::string_view name);

// Dynamic shared memory per block: a stress axis even for a kernel with no
// extern __shared__, since what a block holds caps how many blocks an SM
// keeps resident, and so which blocks run beside which.  The case's class:
// none (exactly what the kernel needs), a little (kLittleShared more),
// enough that at most kFewBlocksPerSm blocks fit on an SM, or the most a
// block may opt into on the device.
enum class SharedClass : uint8_t { None, Little, FewBlocksPerSm, MostOptIn };
const char* to_string(SharedClass c);
inline constexpr uint32_t kLittleShared = 1024;
inline constexpr uint32_t kFewBlocksPerSm = 2;

// The device's shared memory (launch.hpp device_shared_limits reads them;
// tests pass their own).  0: unknown, the classes above none add nothing.
struct SharedLimits {
  uint32_t per_block_optin = 0;     // cudaDevAttrMaxSharedMemoryPerBlockOptin: static and dynamic together
  uint32_t per_sm = 0;              // cudaDevAttrMaxSharedMemoryPerMultiprocessor
  uint32_t reserved_per_block = 0;  // cudaDevAttrReservedSharedMemoryPerBlock (the system's share of each block)
};

// One class per case, from the seed's bits 3 and 4 (the size classes take
// bits 0 to 2): seeds 0..7 add nothing, so a failure that does not need the
// extra shrinks (the shrinker tries seeds 0..15 first, then towards 0) to a
// case without it, and seeds 0..31 reach every class.
SharedClass shared_class(const TrialSpec& s);
// A block's dynamic shared memory: `at_least` (what the kernel needs) with
// the class's extra, never more than the device lets a block opt into
// beside the kernel's `static_bytes` (the extra also leaves room on the SM
// for one block without shared memory: the stress's hammering block).  nullopt, with a one-line `error`,
// when `at_least` alone is more than that (the property's mistake, not the
// kernel's failure).
std::optional<uint32_t> draw_shared_bytes(const TrialSpec& s, uint32_t at_least, uint32_t static_bytes,
                                          const SharedLimits& limits, std::string& error);
// The same for a given class (a profile's: none).
std::optional<uint32_t> shared_bytes_of(SharedClass c, uint32_t at_least, uint32_t static_bytes,
                                        const SharedLimits& limits, std::string& error);

}  // namespace atomstress::kernel
