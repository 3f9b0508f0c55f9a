// `--time` values: a whole number and one unit, `90s`, `45m`, `8h`.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace atomstress::fuzz {

inline constexpr double kMaxFuzzSeconds = 7 * 24 * 3600.0;  // a week

// Seconds in (0, a week]; nullopt with a one-line `why` otherwise.
std::optional<double> parse_duration(std::string_view text, std::string& why);

}  // namespace atomstress::fuzz
