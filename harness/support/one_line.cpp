#include "harness/support/one_line.hpp"

#include <fmt/format.h>

namespace atomstress {

namespace {

// The code point of a UTF-8 bidirectional control at `s[i]` (U+200E,
// U+200F, U+202A to U+202E, U+2066 to U+2069), or 0.
unsigned bidi_control_at(std::string_view s, size_t i) {
  if (i + 2 >= s.size() || static_cast<unsigned char>(s[i]) != 0xE2) return 0;
  const unsigned b1 = static_cast<unsigned char>(s[i + 1]), b2 = static_cast<unsigned char>(s[i + 2]);
  const unsigned cp = 0x2000 | ((b1 & 0x3F) << 6) | (b2 & 0x3F);
  if ((b1 & 0xC0) != 0x80 || (b2 & 0xC0) != 0x80) return 0;
  const bool bidi = cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
  return bidi ? cp : 0;
}

}  // namespace

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      out += fmt::format("\\x{:02x}", c);
    } else if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9F) {  // a C1 control, U+0080 to U+009F
      out += fmt::format("\\u{:04X}", static_cast<unsigned char>(text[++i]));
    } else if (const unsigned cp = bidi_control_at(text, i)) {
      out += fmt::format("\\u{:04X}", cp);
      i += 2;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace atomstress
