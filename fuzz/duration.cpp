#include "fuzz/duration.hpp"

#include <cstdint>

namespace atomstress::fuzz {

std::optional<double> parse_duration(std::string_view text, std::string& why) {
  why = "is not a duration: a whole number and a unit, like 90s, 45m or 8h";
  if (text.size() < 2) return std::nullopt;
  const char unit = text.back();
  const double scale = unit == 's' ? 1 : unit == 'm' ? 60 : unit == 'h' ? 3600 : 0;
  if (scale == 0) return std::nullopt;
  uint64_t n = 0;
  for (char c : text.substr(0, text.size() - 1)) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + uint64_t(c - '0');
    if (n > uint64_t(kMaxFuzzSeconds)) {
      why = "is out of range (1s to 168h)";
      return std::nullopt;
    }
  }
  const double seconds = double(n) * scale;
  if (seconds <= 0 || seconds > kMaxFuzzSeconds) {
    why = "is out of range (1s to 168h)";
    return std::nullopt;
  }
  why.clear();
  return seconds;
}

}  // namespace atomstress::fuzz
