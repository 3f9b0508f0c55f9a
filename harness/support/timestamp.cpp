#include "harness/support/timestamp.hpp"

#include <ctime>

namespace atomstress {

namespace {

std::string format_now(bool utc, const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  if (utc) gmtime_r(&now, &tm);
  else localtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

}  // namespace

std::string utc_timestamp() { return format_now(true, "%Y-%m-%dT%H:%M:%SZ"); }
std::string local_timestamp() { return format_now(false, "%Y-%m-%dT%H:%M:%S%z"); }

}  // namespace atomstress
