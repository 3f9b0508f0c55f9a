// Wall-clock timestamps for reports and logs, in ISO 8601.
#pragma once

#include <string>

namespace atomstress {

// UTC now: "2026-11-23T12:00:00Z" (run records, report headers).
std::string utc_timestamp();
// Local time now with its offset: "2026-11-23T13:00:00+0100" (Google
// Benchmark's "date" field is local).
std::string local_timestamp();

}  // namespace atomstress
