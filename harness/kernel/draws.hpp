// What a kernel case draws from its TrialSpec: sizes, key ranges, keys with
// contention, values with special values, buffer offsets.  Pure functions of
// (spec, name, index), so a token replays the same case, and the shrinker's
// smaller specs (grid, block, ops_per_thread, k, special_permille, seed)
// give smaller cases.  Host only: the buffers are filled here and copied.
#pragma once

#include <cstdint>
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

}  // namespace atomstress::kernel
