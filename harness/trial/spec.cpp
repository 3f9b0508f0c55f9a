#include "harness/trial/spec.hpp"

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
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s grid=%u block=%u ops/thread=%u (%llu ops) %s %s k=%u zipf_s=%.1f dist=%s "
                "special=%u/1000 init=%s seed=0x%llx",
                s.impl.c_str(), s.grid, s.block, s.ops_per_thread,
                static_cast<unsigned long long>(s.ops()), to_string(s.space), to_string(s.pattern),
                s.k, s.zipf_s / 2.0, to_string(s.dist), s.special_permille, to_string(s.init),
                static_cast<unsigned long long>(s.seed));
  std::string out = buf;
  if (s.stress.any()) out += " " + describe(s.stress);
  return out;
}

std::string describe(const Stress& s) {
  if (!s.any()) return "";
  std::string out = "stress:";
  char buf[160];
  if (s.blocks) {
    std::snprintf(buf, sizeof buf, " %u extra blocks (%u/1000 hammer %u lines, stride %u, %s)", s.blocks,
                  s.mem_permille, s.lines, s.stride, to_string(s.access));
    out += buf;
  }
  if (s.shuffle) out += " shuffle";
  if (s.barrier_us) out += " barrier<=" + std::to_string(s.barrier_us) + "us";
  if (s.bank_conflicts) out += " bank-conflicts";
  return out;
}

}  // namespace atomstress
