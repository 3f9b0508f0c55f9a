#include "harness/support/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

namespace fs = std::filesystem;

namespace atomstress {

namespace {

// A file type in words, for the one-line refusals.
const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISCHR(m)) return "a character device";
  return "not a regular file";
}

bool write_all(int fd, const std::string& content) {
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    done += size_t(n);
  }
  return true;
}

std::string folder_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

}  // namespace

std::string resolve_links(const std::string& path) {
  fs::path p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st{};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) break;
    std::error_code ec;
    const fs::path to = fs::read_symlink(p, ec);
    if (ec) break;
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  return p.string();
}

bool write_file_atomically(const std::string& given, const std::string& content, std::string& error) {
  auto fail = [&](const std::string& what) {
    error = "cannot write '" + given + "': " + what + (errno ? std::string(": ") + std::strerror(errno) : "");
    return false;
  };
  // What the path names, every link followed (also /proc's, as /dev/stdout's).
  struct stat st{};
  const bool exists = ::stat(given.c_str(), &st) == 0;
  const std::string path = exists && !S_ISREG(st.st_mode) ? given : resolve_links(given);
  if (exists && !S_ISREG(st.st_mode)) {
    if (!S_ISCHR(st.st_mode)) {
      errno = 0;
      return fail(std::string(kind_of(st.st_mode)) + ", not replaced");
    }
    // A character device: written in place, never replaced by a file.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return fail("open");
    if (!write_all(fd, content)) {
      const int e = errno;
      ::close(fd);
      errno = e;
      return fail("write");
    }
    if (::close(fd) != 0) return fail("close");
    return true;
  }
  const std::string tmp =
      (fs::path(folder_of(path)) / ("." + fs::path(path).filename().string() + ".tmp." + std::to_string(getpid())))
          .string();
  // Created exclusively: a link planted at the temporary name is removed, never written through.
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return fail("create");
  if (exists) (void)::fchmod(fd, st.st_mode & 07777);  // the file keeps its permissions
  if (!write_all(fd, content)) {
    const int e = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    errno = e;
    return fail("write");
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    errno = e;
    return fail("flush");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    errno = e;
    return fail("rename");
  }
  return true;
}

bool check_output(const std::string& option, const std::string& given, std::string& error) {
  auto refuse = [&](const std::string& why) {
    error = option + " '" + given + "': " + why;
    return false;
  };
  if (given.empty()) return refuse("is empty");
  struct stat st{};
  const bool exists = ::stat(given.c_str(), &st) == 0;
  const std::string path = exists && !S_ISREG(st.st_mode) ? given : resolve_links(given);
  if (exists) {
    if (S_ISCHR(st.st_mode)) {
      if (::access(path.c_str(), W_OK) != 0) return refuse(std::string("cannot write: ") + std::strerror(errno));
      return true;
    }
    if (!S_ISREG(st.st_mode)) return refuse(std::string("is ") + kind_of(st.st_mode) + ", not a file to write");
    if (::access(path.c_str(), W_OK) != 0) return refuse(std::string("cannot write: ") + std::strerror(errno));
  }
  // A new file, or a regular file replaced by a rename: its folder must take one.
  const std::string dir = folder_of(path);
  struct stat ds{};
  if (::stat(dir.c_str(), &ds) != 0) return refuse("its folder '" + dir + "' does not exist");
  if (!S_ISDIR(ds.st_mode)) return refuse("'" + dir + "' is not a folder");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return refuse("cannot write in its folder '" + dir + "': " + std::strerror(errno));
  return true;
}

bool check_distinct(const std::vector<std::pair<std::string, std::string>>& outputs,
                    const std::vector<std::string>& inputs, std::string& error) {
  // One key per file: the device and inode of an existing one, else its
  // absolute path with the links of its folders followed.
  auto key = [](const std::string& p) -> std::string {
    struct stat st{};
    if (::stat(p.c_str(), &st) == 0) return "i" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
    std::error_code ec;
    const fs::path w = fs::weakly_canonical(fs::absolute(resolve_links(p)), ec);
    return "p" + (ec ? p : w.string());
  };
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].second.empty()) continue;
    const std::string ki = key(outputs[i].second);
    struct stat st{};
    // A character device (/dev/null) may take several outputs.
    if (::stat(resolve_links(outputs[i].second).c_str(), &st) == 0 && S_ISCHR(st.st_mode)) continue;
    for (size_t j = i + 1; j < outputs.size(); ++j)
      if (!outputs[j].second.empty() && key(outputs[j].second) == ki) {
        error = outputs[i].first + " '" + outputs[i].second + "' and " + outputs[j].first + " '" +
                outputs[j].second + "' name the same file: one would overwrite the other";
        return false;
      }
    for (const auto& in : inputs)
      if (key(in) == ki) {
        error = outputs[i].first + " '" + outputs[i].second + "' names the input '" + in +
                "': writing it would destroy the input";
        return false;
      }
  }
  return true;
}

}  // namespace atomstress
