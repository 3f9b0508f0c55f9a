#include "harness/support/parse_number.hpp"

#include <charconv>

namespace atomstress {

namespace {

std::string range_text(uint64_t lo, uint64_t hi) {
  std::string text = "(";  // appended, not concatenated: GCC 12 warns falsely on "(" + string
  text += std::to_string(lo);
  text += " to ";
  text += std::to_string(hi);
  text += ")";
  return text;
}

}  // namespace

std::optional<uint64_t> parse_unsigned(std::string_view text, uint64_t lo, uint64_t hi, std::string& why) {
  if (text.empty()) {
    why = "is empty: give a whole number " + range_text(lo, hi);
    return std::nullopt;
  }
  if (text.front() == '-') {
    why = "is negative: give a whole number " + range_text(lo, hi);
    return std::nullopt;
  }
  // from_chars takes digits only: no sign, no blanks, no 0x, no exponent.
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range) {
    why = "is out of range " + range_text(lo, hi);
    return std::nullopt;
  }
  if (ec != std::errc() || end != text.data() + text.size()) {
    why = "is not a whole number " + range_text(lo, hi);
    return std::nullopt;
  }
  if (v < lo || v > hi) {
    why = "is out of range " + range_text(lo, hi);
    return std::nullopt;
  }
  return v;
}

}  // namespace atomstress
