// Text from outside (a token, a path, a file's line) made safe to print in
// a one-line message: a newline cannot split the line, and a terminal
// escape or a bidirectional override cannot rewrite what the log shows.
#pragma once

#include <string>
#include <string_view>

namespace atomstress {

// `text` with C0 and C1 controls, DEL and Unicode's bidirectional controls
// written as escapes (\n, \t, \r, \xNN, \u202E); everything else as it is.
std::string one_line(std::string_view text);

}  // namespace atomstress
