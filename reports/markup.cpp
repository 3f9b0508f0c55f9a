#include "reports/markup.hpp"

namespace atomstress::reports {

std::string escape_markup(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (unsigned char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default: o += (c < 0x20 && c != '\n' && c != '\t' && c != '\r') ? '?' : char(c);
    }
  }
  return o;
}

}  // namespace atomstress::reports
