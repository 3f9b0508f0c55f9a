// Reproduction tokens: a TrialSpec, the runtime options that change what the
// trial does, and the tool version that wrote it, as one line that replays
// it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "harness/trial/spec.hpp"

namespace atomstress {

// The runtime options a token carries: they change the trial (the CPU
// backend's interleavings, when a loop counts as a hang), so a failure
// replays only with them.  RunOptions::knobs (backend/backend.hpp) holds them.
struct TrialKnobs {
  uint32_t yield_permille = 20;  // cpu: chance of a yield at interleaving points
  uint32_t cpu_threads = 4;      // cpu: host threads
  uint64_t watchdog_ms = 0;      // 0: derived from the op count
  uint32_t retry_budget = 1u << 20;
  bool operator==(const TrialKnobs&) const = default;
};

struct ReproToken {
  TrialSpec spec;
  std::optional<TrialKnobs> knobs;  // absent in a version-1 token
  std::string tool_version;         // "0.1.0"; empty in a version-1 token
};

// The current token: version, tool version, every spec field, the knobs,
// the stress fields when the trial has stress (as3; as2 without, so builds
// from before stress replay it), and a checksum, so a truncated or altered
// token is rejected rather than silently run as something else.
std::string encode_token(const TrialSpec& s, const TrialKnobs& knobs);
// Decodes as3, as2 (no stress) and the older as1 (spec only, no stress).  Sets `error` to a one-line
// reason on a malformed token.
std::optional<ReproToken> decode_repro_token(std::string_view token, std::string& error);
// The spec alone.
std::optional<TrialSpec> decode_token(std::string_view token, std::string& error);

// The version tokens are stamped with (CMake's project version).
const char* tool_version();

}  // namespace atomstress
