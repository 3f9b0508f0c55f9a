#include "fuzz/shard.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "harness/support/parse_number.hpp"

namespace atomstress::fuzz {

namespace {
constexpr uint64_t kMaxShards = 100000;

std::optional<uint64_t> env_number(const char* name, uint64_t lo, uint64_t hi, std::string& why) {
  const char* v = std::getenv(name);
  if (!v) return std::nullopt;
  std::string w;
  const auto n = parse_unsigned(v, lo, hi, w);
  if (!n) why = std::string(name) + " '" + v + "' " + w;
  return n;
}
}  // namespace

std::optional<Shard> parse_shard(std::string_view text, std::string& why) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) {
    why = "is not a shard: i/N, like 0/4";
    return std::nullopt;
  }
  const auto count = parse_unsigned(text.substr(slash + 1), 1, kMaxShards, why);
  if (!count) return std::nullopt;
  const auto index = parse_unsigned(text.substr(0, slash), 0, *count - 1, why);
  if (!index) return std::nullopt;
  return Shard{uint32_t(*index), uint32_t(*count)};
}

Shard shard_from_env(std::string& why) {
  why.clear();
  if (std::getenv("SLURM_ARRAY_TASK_ID")) {
    const auto count = env_number("SLURM_ARRAY_TASK_COUNT", 1, kMaxShards, why);
    if (!why.empty()) return {};
    if (!count) {
      why = "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not";
      return {};
    }
    const auto min = env_number("SLURM_ARRAY_TASK_MIN", 0, ~0u, why).value_or(0);
    if (!why.empty()) return {};
    const auto id = env_number("SLURM_ARRAY_TASK_ID", min, min + *count - 1, why);
    if (!id) return {};
    return {uint32_t(*id - min), uint32_t(*count)};
  }
  if (std::getenv("JOB_COMPLETION_INDEX")) {
    const auto count = env_number("ATOMSTRESS_SHARD_COUNT", 1, kMaxShards, why);
    if (!why.empty()) return {};
    if (!count) {
      why = "JOB_COMPLETION_INDEX is set but ATOMSTRESS_SHARD_COUNT is not";
      return {};
    }
    const auto id = env_number("JOB_COMPLETION_INDEX", 0, *count - 1, why);
    if (!id) return {};
    return {uint32_t(*id), uint32_t(*count)};
  }
  return {};
}

std::vector<const Entry*> shard_entries(std::vector<const Entry*> entries, Shard shard) {
  std::sort(entries.begin(), entries.end(),
            [](const Entry* a, const Entry* b) { return std::strcmp(a->name, b->name) < 0; });
  std::vector<const Entry*> mine;
  for (size_t j = 0; j < entries.size(); ++j)
    if (j % shard.count == shard.index) mine.push_back(entries[j]);
  return mine;
}

}  // namespace atomstress::fuzz
