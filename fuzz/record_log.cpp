#include "fuzz/record_log.hpp"

#include <cerrno>
#include <cstring>

#include "fuzz/atomic_file.hpp"
#include "fuzz/records_json.hpp"

namespace atomstress::fuzz {

namespace {
std::string line_of(const char* record, nlohmann::json j) {
  j["record"] = record;
  if (!j.contains("timestamp")) j["timestamp"] = utc_timestamp();
  return j.dump();
}
}  // namespace

RecordLog::RecordLog(const std::string& path) : path_(path) {
  // "a+" to see whether the last line lacks its newline (a killed writer).
  f_ = std::fopen(path_.c_str(), "a+");
  if (f_ && std::fseek(f_, -1, SEEK_END) == 0) {
    const int last = std::fgetc(f_);
    fresh_line_needed_ = last != EOF && last != '\n';
  }
  if (f_) std::clearerr(f_);
}

RecordLog::~RecordLog() {
  if (f_) std::fclose(f_);
}

void RecordLog::write_line(std::string line) {
  if (!f_ || !error_.empty()) return;
  line = (fresh_line_needed_ ? "\n" : "") + line + "\n";
  errno = 0;
  if (std::fwrite(line.data(), 1, line.size(), f_) != line.size() || std::fflush(f_) != 0) {
    error_ = "cannot write '" + path_ + "'" + (errno ? std::string(": ") + std::strerror(errno) : "");
    return;
  }
  fresh_line_needed_ = false;
}

void RecordLog::fuzz_started(const reports::FuzzHeader& h) { write_line(line_of("run", to_json(h))); }
void RecordLog::fuzz_replay(const reports::ReplayRecord& r) { write_line(line_of("replay", to_json(r))); }
void RecordLog::fuzz_slice(const reports::FuzzSliceRecord& s) { write_line(line_of("slice", to_json(s))); }
void RecordLog::fuzz_entry(const reports::FuzzEntryResult& e) { write_line(line_of("entry", to_json(e))); }

bool RecordLog::finish() {
  if (f_ && error_.empty() && (std::fflush(f_) != 0 || std::ferror(f_)))
    error_ = "cannot write '" + path_ + "'" + (errno ? std::string(": ") + std::strerror(errno) : "");
  return error_.empty();
}

}  // namespace atomstress::fuzz
