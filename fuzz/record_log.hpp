// `fuzz --json FILE`: one JSON line per record (the run's header, each
// corpus replay, each time slice, each entry's result), appended and flushed
// as it happens, so a kill at any moment loses nothing already recorded.
// `merge` reads these lines back.
#pragma once

#include <cstdio>
#include <string>

#include "reports/printer.hpp"

namespace atomstress::fuzz {

class RecordLog final : public reports::Printer {
 public:
  explicit RecordLog(const std::string& path);
  ~RecordLog() override;
  RecordLog(const RecordLog&) = delete;
  RecordLog& operator=(const RecordLog&) = delete;
  bool opened() const { return f_ != nullptr; }

  void fuzz_started(const reports::FuzzHeader& h) override;
  void fuzz_replay(const reports::ReplayRecord& r) override;
  void fuzz_slice(const reports::FuzzSliceRecord& s) override;
  void fuzz_entry(const reports::FuzzEntryResult& e) override;
  bool finish() override;
  std::string error() const override { return error_; }

 private:
  // Adds "record" and "timestamp" to a record's JSON text and appends it.
  void write_line(std::string line);

  std::string path_;
  std::FILE* f_ = nullptr;
  bool fresh_line_needed_ = false;
  std::string error_;
};

}  // namespace atomstress::fuzz
