// Reproduction tokens: a TrialSpec as one line that replays it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "harness/trial/spec.hpp"

namespace atomstress {

// Reproduction token: version, every field, and a checksum, so a truncated
// or altered token is rejected rather than silently run as something else.
std::string encode_token(const TrialSpec& s);
// Returns the spec, or sets `error` to a one-line reason.
std::optional<TrialSpec> decode_token(std::string_view token, std::string& error);

}  // namespace atomstress
