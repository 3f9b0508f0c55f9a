#include "harness/support/safe_path.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "harness/support/atomic_file.hpp"

namespace atomstress {

namespace {

// Why a file may not be used ("" when it may); `one_name`: a file written or
// truncated must have no other name (a hard link to a file elsewhere).
std::string kind_of(const struct stat& st, bool one_name) {
  if (S_ISLNK(st.st_mode)) return "a symbolic link";
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (S_ISFIFO(st.st_mode)) return "a FIFO";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "a device";
  if (S_ISREG(st.st_mode) && one_name && st.st_nlink > 1)
    return "a file with " + std::to_string(st.st_nlink) + " names (a hard link)";
  return "";
}

// One line for a file refused: never its content.
std::string refusal(const std::string& path, const std::string& kind) {
  return "'" + path + "' is " + kind + ", not followed: atomstress uses only its own regular files there";
}

}  // namespace

bool is_plain_file_name(const std::string& name, std::string& why) {
  if (name.empty()) why = "an empty name";
  else if (name.find('/') != std::string::npos) why = "a name with '/'";
  else if (name.find("..") != std::string::npos) why = "a name with '..'";
  else if (name.find('\0') != std::string::npos) why = "a name with a NUL byte";
  else if (name[0] == '.') why = "a name that starts with '.'";
  else return true;
  return false;
}

std::string why_not_own_file(const std::string& path) {
  struct stat st{};
  if (::lstat(path.c_str(), &st) != 0) return "";
  return kind_of(st, true);
}

bool something_at(const std::string& path) {
  struct stat st{};
  return ::lstat(path.c_str(), &st) == 0;
}

int open_own_file_to_read(const std::string& path, uint64_t max_bytes, std::string& error) {
  // O_NONBLOCK: a FIFO opens at once (then is refused) instead of waiting for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int e = errno;
    error = e == ELOOP ? refusal(path, "a symbolic link") : "cannot read '" + path + "': " + std::strerror(e);
    return -1;
  }
  struct stat st{};
  std::string kind = ::fstat(fd, &st) != 0 ? std::string("unreadable") : kind_of(st, false);
  if (kind.empty() && !S_ISREG(st.st_mode)) kind = "not a regular file";
  if (!kind.empty()) {
    ::close(fd);
    error = refusal(path, kind);
    return -1;
  }
  if (uint64_t(st.st_size) > max_bytes) {
    ::close(fd);
    error = "'" + path + "' is " + std::to_string(st.st_size) + " bytes, more than the " + std::to_string(max_bytes) +
            " such a file may have: not read";
    return -1;
  }
  (void)::fcntl(fd, F_SETFL, 0);  // blocking reads from here on (a regular file)
  return fd;
}

bool read_own_file(const std::string& path, uint64_t max_bytes, std::string& text, std::string& error) {
  const int fd = open_own_file_to_read(path, max_bytes, error);
  if (fd < 0) return false;
  text.clear();
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = "cannot read '" + path + "': " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    text.append(buf, size_t(n));
    if (text.size() > max_bytes) {  // it grew since it was opened
      error = "'" + path + "' grew past the " + std::to_string(max_bytes) + " bytes such a file may have: not read";
      ::close(fd);
      return false;
    }
  }
  ::close(fd);
  return true;
}

int open_own_file_to_update(const std::string& path, std::string& error) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd < 0) {
    const int e = errno;
    error = e == ELOOP ? refusal(path, "a symbolic link") : "cannot open '" + path + "': " + std::strerror(e);
    return -1;
  }
  struct stat st{};
  std::string kind = ::fstat(fd, &st) != 0 ? std::string("unreadable") : kind_of(st, true);
  if (kind.empty() && !S_ISREG(st.st_mode)) kind = "not a regular file";
  if (!kind.empty()) {
    ::close(fd);
    error = refusal(path, kind);
    return -1;
  }
  (void)::fcntl(fd, F_SETFL, 0);
  return fd;
}

bool write_own_file(const std::string& path, const std::string& content, std::string& error) {
  if (const std::string kind = why_not_own_file(path); !kind.empty()) {
    error = "cannot write " + refusal(path, kind);
    return false;
  }
  // Not a link: write_file_atomically writes this very path (its temporary
  // file is created exclusively, never through a link).
  return write_file_atomically(path, content, error);
}

}  // namespace atomstress
