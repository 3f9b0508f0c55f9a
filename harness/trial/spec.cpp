#include "harness/trial/spec.hpp"

#include <fmt/format.h>

#include "harness/trial/patterns.hpp"

#include <array>
#include <charconv>
#include <cstdio>

namespace atomstress {

namespace {
template <class E, size_t N>
std::optional<E> parse_enum(std::string_view s, const std::array<const char*, N>& names) {
  for (size_t i = 0; i < N; ++i)
    if (s == names[i]) return static_cast<E>(i);
  return std::nullopt;
}
constexpr std::array<const char*, 2> kSpaceNames = {"global", "shared"};
constexpr std::array<const char*, 2> kDistNames = {"small", "full"};
constexpr std::array<const char*, 2> kInitNames = {"zero", "random"};
constexpr std::array<const char*, kNumStressAccesses> kAccessNames = {"load/load", "load/store", "store/load",
                                                                      "store/store"};

}  // namespace

const char* to_string(Pattern p) { return pattern_info(p).name; }
const char* to_string(Space s) { return kSpaceNames[static_cast<size_t>(s)]; }
const char* to_string(Dist d) { return kDistNames[static_cast<size_t>(d)]; }
const char* to_string(Init i) { return kInitNames[static_cast<size_t>(i)]; }
const char* to_string(StressAccess a) { return kAccessNames[static_cast<size_t>(a)]; }
std::optional<Pattern> parse_pattern(std::string_view s) {
  for (int p = 0; p < kNumPatterns; ++p)
    if (s == pattern_info(Pattern(p)).name) return Pattern(p);
  return std::nullopt;
}
std::optional<Space> parse_space(std::string_view s) { return parse_enum<Space>(s, kSpaceNames); }
std::optional<Dist> parse_dist(std::string_view s) { return parse_enum<Dist>(s, kDistNames); }

std::string describe(const TrialSpec& s) {
  std::string out = fmt::format(
      "{} grid={} block={} ops/thread={} ({} ops) {} {} k={} zipf_s={:.1f} dist={} special={}/1000 init={} seed=0x{:x}",
      s.impl, s.grid, s.block, s.ops_per_thread, s.ops(), to_string(s.space), to_string(s.pattern), s.k,
      s.zipf_s / 2.0, to_string(s.dist), s.special_permille, to_string(s.init), s.seed);
  if (s.stress.any()) out += " " + describe(s.stress);
  return out;
}

std::string describe(const Stress& s) {
  if (!s.any()) return "";
  std::string out = "stress:";
  if (s.blocks)
    out += fmt::format(" {} extra blocks ({}/1000 hammer {} lines, stride {}, {})", s.blocks, s.mem_permille, s.lines,
                       s.stride, to_string(s.access));
  if (s.shuffle) out += " shuffle";
  if (s.barrier_us) out += " barrier<=" + std::to_string(s.barrier_us) + "us";
  if (s.bank_conflicts) out += " bank-conflicts";
  return out;
}

}  // namespace atomstress
