// Output files written through the path the user gave, never replaced by
// something else: a regular file (or a path not there yet) by a temporary
// file beside it, flushed to disk and renamed over it (a kill at any moment
// leaves the old file or the new one); a symbolic link through to its
// target (the link stays a link); a character device (/dev/null, /dev/stdout
// on a terminal, /dev/full) written in place; anything else (a FIFO, a
// socket, a directory, a block device) refused with one line.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace atomstress {

// False with a one-line `error` naming the file.
bool write_file_atomically(const std::string& path, const std::string& content, std::string& error);

// `path` with every symbolic link along it followed (a dangling link: where
// it points); `path` itself when nothing is a link.
std::string resolve_links(const std::string& path);

// Before anything runs: can `path` be written as an output (a whole file;
// `append`: a log appended to)?  False with a one-line `error` that names
// `option` ("--junit 'x': ...") when its folder is missing or not writable,
// or it names a directory, a FIFO, a socket or a block device.
bool check_output(const std::string& option, const std::string& path, std::string& error);

// Two outputs (option, path) naming one file, after links are followed (or
// an output naming one of `inputs`): false with a one-line `error`.
bool check_distinct(const std::vector<std::pair<std::string, std::string>>& outputs,
                    const std::vector<std::string>& inputs, std::string& error);

}  // namespace atomstress
