// TrialSpec: the small value that fully determines a trial's inputs.  The
// generators create and shrink these; the bulk arrays are expanded from them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace atomstress {

enum class Pattern : uint8_t {
  Single,    // every operation on one address
  Uniform,   // k addresses, uniform
  Zipf,      // k addresses, Zipf-skewed (exponent zipf_s / 2)
  SameLine,  // k addresses inside one 128-byte line
  PerLine,   // k addresses, one per 128-byte line
  PerPage,   // k addresses, one per 4 KiB
  PerWarp,   // one address per warp
  PerBlock,  // one address per block
};
inline constexpr int kNumPatterns = 8;
// Bit p set for every pattern p: "any pattern" in a pattern mask.
inline constexpr uint32_t kAllPatterns = (uint32_t(1) << kNumPatterns) - 1;

enum class Space : uint8_t { Global, Shared };
enum class Dist : uint8_t { Small, Full };
enum class Init : uint8_t { Zero, Random };

const char* to_string(Pattern p);
const char* to_string(Space s);
const char* to_string(Dist d);
const char* to_string(Init i);
std::optional<Pattern> parse_pattern(std::string_view s);
std::optional<Space> parse_space(std::string_view s);
std::optional<Dist> parse_dist(std::string_view s);

// The scratchpad accesses of a memory-stress block, per round on two
// locations: load/load, load/store, store/load, store/store.
enum class StressAccess : uint8_t { LoadLoad, LoadStore, StoreLoad, StoreStore };
inline constexpr int kNumStressAccesses = 4;
const char* to_string(StressAccess a);

// Stress incantations (Alglave et al. ASPLOS'15, Sorensen and Donaldson
// PLDI'16, Kirkham et al. OOPSLA'20): they change when and where the trial's
// threads run, never what they compute, so a correct entry passes under any
// of them.  All GPU-only (the cpu backend ignores them, with a note).  All
// zero: no stress; that is what `check` runs and where shrinking goes.
struct Stress {
  uint32_t blocks = 0;        // extra blocks launched beyond the trial's grid (0: none)
  uint32_t mem_permille = 0;  // share of the extra blocks that hammer the scratchpad (the rest exit)
  uint32_t lines = 0;         // scratchpad locations hammered (1..kMaxStressLines when blocks > 0)
  uint32_t stride = 0;        // 4-byte words between two locations (1..kMaxStressStride when blocks > 0)
  StressAccess access = StressAccess::LoadLoad;
  bool shuffle = false;       // thread randomisation: co-prime permutations of block ids (testing blocks
                              // among the extra ones) and of thread ids within a block (whole warps for
                              // algorithms, whose lanes must stay lanes)
  uint32_t barrier_us = 0;    // a pre-test spin barrier of the testing blocks, bounded by this (0: none)
  bool bank_conflicts = false;  // warps start skewed by a random run of 32-way bank-conflicted shared stores
  bool any() const { return blocks != 0 || shuffle || barrier_us != 0 || bank_conflicts; }
  bool operator==(const Stress&) const = default;
};
inline constexpr uint32_t kMaxStressBlocks = 4096;
inline constexpr uint32_t kMaxStressLines = 64;
inline constexpr uint32_t kMaxStressStride = 4096;
inline constexpr uint32_t kMaxStressBarrierUs = 100000;

struct TrialSpec {
  std::string impl;
  uint32_t grid = 1;
  uint32_t block = 32;
  uint32_t ops_per_thread = 1;
  Space space = Space::Global;
  Pattern pattern = Pattern::Single;
  uint32_t k = 1;                 // addresses, for Uniform/Zipf/SameLine/PerLine/PerPage
  uint32_t zipf_s = 2;            // Zipf exponent times two: 1..4 -> 0.5..2.0
  Dist dist = Dist::Small;        // value distribution of ordinary operands
  uint32_t special_permille = 0;  // share of operands and initial values from the special class
  Init init = Init::Random;
  uint64_t seed = 0;
  Stress stress;                  // off unless a campaign (or the token) says otherwise

  uint64_t threads() const { return uint64_t(grid) * block; }
  uint64_t ops() const { return threads() * ops_per_thread; }
  bool operator==(const TrialSpec&) const = default;
};

// One-line description: "cas.add.f32 grid=2 block=33 ops=4 global zipf k=16 ...",
// and the stress after the seed when there is any.
std::string describe(const TrialSpec& s);
// "stress: 64 extra blocks (50% hammer 4 lines, stride 32, load/store) shuffle barrier<=100us bank-conflicts";
// "" without stress.
std::string describe(const Stress& s);

}  // namespace atomstress
