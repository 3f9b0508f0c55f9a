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

  uint64_t threads() const { return uint64_t(grid) * block; }
  uint64_t ops() const { return threads() * ops_per_thread; }
  bool operator==(const TrialSpec&) const = default;
};

// One-line description: "cas.add.f32 grid=2 block=33 ops=4 global zipf k=16 ...".
std::string describe(const TrialSpec& s);

}  // namespace atomstress
