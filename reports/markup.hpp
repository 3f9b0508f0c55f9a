// Text inside XML, HTML and SVG: &, <, >, " and ' as entities; what XML 1.0
// does not allow (controls, surrogates, U+FFFE, U+FFFF) as '?', and bytes
// that are not UTF-8 as U+FFFD, so every report parses.  The one escaper of
// every markup report.
#pragma once

#include <string>
#include <string_view>

namespace atomstress::reports {

std::string escape_markup(std::string_view s);

}  // namespace atomstress::reports
