// Numbers from text (options, environment variables), strictly: digits only,
// each refusal in one line that a caller prefixes with the option's name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace atomstress {

// Parses a whole decimal integer in [lo, hi]; nullopt with a one-line `why`
// ("is negative", "is out of range (1 to 256)", "is not a whole number").
std::optional<uint64_t> parse_unsigned(std::string_view text, uint64_t lo, uint64_t hi, std::string& why);

}  // namespace atomstress
