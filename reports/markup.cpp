#include "reports/markup.hpp"

namespace atomstress::reports {

namespace {

// The UTF-8 sequence at s[i]: its code point and length, or length 0 when
// the bytes there are not well-formed UTF-8 (overlong, a stray
// continuation, cut short, beyond U+10FFFF).
struct CodePoint {
  char32_t cp = 0;
  size_t length = 0;
};
CodePoint decode_utf8(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return {};
  char32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < n; ++k) {
    const unsigned char b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return {};
    cp = (cp << 6) | (b & 0x3F);
  }
  static constexpr char32_t kLeast[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kLeast[n] || cp > 0x10FFFF) return {};
  return {cp, n};
}

// XML 1.0's Char production: what a well-formed document may hold.
bool xml_char(char32_t cp) {
  return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) ||
         (cp >= 0x10000 && cp <= 0x10FFFF);
}

}  // namespace

std::string escape_markup(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const CodePoint p = decode_utf8(s, i);
    if (p.length == 0) {  // not UTF-8: the replacement character, one per byte
      o += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    switch (p.cp) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default:
        if (xml_char(p.cp))
          o.append(s.substr(i, p.length));
        else
          o += '?';  // a control, a surrogate, U+FFFE or U+FFFF: no XML parser takes it
    }
    i += p.length;
  }
  return o;
}

}  // namespace atomstress::reports
