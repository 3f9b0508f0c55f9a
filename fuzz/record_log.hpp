// `fuzz --json FILE`: one JSON line per record (the run's header, each
// corpus replay, each time slice, each entry's result), appended and flushed
// as it happens (one write(2) each, unbuffered), so a kill at any moment
// loses nothing already recorded.  A write that fails (a full disk) is cut
// back to the last complete line and error() says so at once: the campaign
// stops (exit 2) rather than fuzz on without a log.  `merge` reads these
// lines back.
#pragma once

#include <string>

#include "reports/printer.hpp"

namespace atomstress::fuzz {

class RecordLog final : public reports::Printer {
 public:
  explicit RecordLog(const std::string& path);
  ~RecordLog() override;
  RecordLog(const RecordLog&) = delete;
  RecordLog& operator=(const RecordLog&) = delete;
  bool opened() const { return fd_ >= 0; }


  void fuzz_started(const reports::FuzzHeader& h) override;
  void fuzz_replay(const reports::ReplayRecord& r) override;
  void fuzz_slice(const reports::FuzzSliceRecord& s) override;
  // Not for an entry of origin "interrupted" (a run ended by a signal): an
  // `entry` record says the entry's run ended, and merge treats its absence
  // as a shard that did not finish.
  void fuzz_entry(const reports::FuzzEntryResult& e) override;
  bool finish() override;
  std::string error() const override { return error_; }

 private:
  // Adds "record" and "timestamp" to a record's JSON text and appends it.
  void write_line(std::string line);

  std::string path_;
  int fd_ = -1;
  bool regular_ = false;  // a regular file (cut back on a failed write)
  bool fresh_line_needed_ = false;
  std::string error_;
};

}  // namespace atomstress::fuzz
