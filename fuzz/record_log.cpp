#include "fuzz/record_log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fuzz/records_json.hpp"
#include "harness/support/timestamp.hpp"

namespace atomstress::fuzz {

namespace {
std::string line_of(const char* record, nlohmann::json j) {
  j["record"] = record;
  if (!j.contains("timestamp")) j["timestamp"] = utc_timestamp();
  return j.dump();
}
}  // namespace

RecordLog::RecordLog(const std::string& path) : path_(path) {
  fd_ = ::open(path_.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd_ < 0) fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);  // a write-only device
  if (fd_ < 0) return;
  struct stat st{};
  regular_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
  // Does the last line lack its newline (a killed writer)?
  if (regular_ && st.st_size > 0) {
    char last = '\n';
    if (::pread(fd_, &last, 1, st.st_size - 1) == 1) fresh_line_needed_ = last != '\n';
  }
}

RecordLog::~RecordLog() {
  if (fd_ >= 0) ::close(fd_);
}

void RecordLog::write_line(std::string line) {
  if (fd_ < 0 || !error_.empty()) return;
  line = (fresh_line_needed_ ? "\n" : "") + line + "\n";
  // Where the line starts: a write that fails part-way is cut back to it, so
  // the log stays whole up to its last complete line.
  const off_t start = regular_ ? ::lseek(fd_, 0, SEEK_END) : 0;
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n == 0 ? EIO : errno;
      if (regular_ && start >= 0 && done > 0) (void)::ftruncate(fd_, start);
      error_ = "cannot write '" + path_ + "': " + std::strerror(e);
      return;
    }
    done += size_t(n);
  }
  fresh_line_needed_ = false;
}

void RecordLog::fuzz_started(const reports::FuzzHeader& h) { write_line(line_of("run", to_json(h))); }
void RecordLog::fuzz_replay(const reports::ReplayRecord& r) { write_line(line_of("replay", to_json(r))); }
void RecordLog::fuzz_slice(const reports::FuzzSliceRecord& s) { write_line(line_of("slice", to_json(s))); }
void RecordLog::fuzz_entry(const reports::FuzzEntryResult& e) {
  // An interrupted entry has no result yet: merge must see its run unfinished.
  if (e.origin != "interrupted") write_line(line_of("entry", to_json(e)));
}

bool RecordLog::finish() { return error_.empty(); }

}  // namespace atomstress::fuzz
