// The one rule for files atomstress names itself inside a folder the user
// named (a corpus case from an entry's name, the state file and its lock,
// a lane's folder): the name is one plain file name (no '/', no "..", not
// absolute), the file is opened without following a link (O_NOFOLLOW) and
// must be a regular file with one name (a hard link to a file elsewhere is
// refused too), and a new file is created exclusively (O_EXCL).  A planted
// link is refused with one line, never followed.
#pragma once

#include <cstdint>
#include <string>

namespace atomstress {

// Can `name` be used as one file name inside a folder?  False with `why`
// for an empty name, one with '/', "..", a NUL byte or a leading '.'.
bool is_plain_file_name(const std::string& name, std::string& why);

// What `path` is without following a link: "" for a regular file with one
// name or a path not there, else why it may not be used ("a symbolic link",
// "a FIFO", "a directory", "a file with 2 names (a hard link)").
std::string why_not_own_file(const std::string& path);
// Whether anything (a dangling link too) is at `path`.
bool something_at(const std::string& path);

// Opens `path` for reading, never following a link and never blocking on a
// FIFO (a hard link may be read); -1 with a one-line `error` ("'P' is a symbolic link, not followed")
// when it is not a regular file or is larger than `max_bytes`.
int open_own_file_to_read(const std::string& path, uint64_t max_bytes, std::string& error);
// Reads `path` whole through open_own_file_to_read.
bool read_own_file(const std::string& path, uint64_t max_bytes, std::string& text, std::string& error);

// Opens (creating if missing) `path` for reading and writing, never through
// a link, never a file with another name; -1 with a one-line `error`.
int open_own_file_to_update(const std::string& path, std::string& error);

// Writes `content` to `path` through a temporary file created exclusively
// beside it and renamed over it; a link, a FIFO or a hard link at `path` is
// refused, never written through.
bool write_own_file(const std::string& path, const std::string& content, std::string& error);

}  // namespace atomstress
