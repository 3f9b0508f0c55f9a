// Text inside XML, HTML and SVG: &, <, >, " and ' as entities; other control
// characters (not valid XML 1.0) as '?'.  The one escaper of every markup
// report.
#pragma once

#include <string>
#include <string_view>

namespace atomstress::reports {

std::string escape_markup(std::string_view s);

}  // namespace atomstress::reports
