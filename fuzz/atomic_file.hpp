// Whole-file writes that a kill at any moment cannot leave half written:
// a temporary file beside the target, flushed to disk, then renamed over it.
#pragma once

#include <string>

namespace atomstress::fuzz {

// False with a one-line `error` naming the file.
bool write_file_atomically(const std::string& path, const std::string& content, std::string& error);

// UTC now, ISO 8601 ("2026-11-23T12:00:00Z").
std::string utc_timestamp();

}  // namespace atomstress::fuzz
