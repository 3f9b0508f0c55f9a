// JSON lines, the one writer of them: one object per record, appended with
// one write(2) as it happens, so a kill at any moment loses nothing already
// recorded.  A file whose last line lacks its newline gets one first; a
// write that fails (a full disk) is cut back to the last complete line and
// error() says so at once (a fuzz campaign then stops rather than run on
// without its log).
//
// check and repro write a line per trial (and one per shrunk failure),
// selftest one per caught bug; fuzz's log (read back by `merge`) a "run"
// line, then a "replay", "slice" and "entry" line per record, each with a
// timestamp.
#pragma once

#include <string>

#include "reports/printer.hpp"

namespace atomstress::reports {

class JsonlPrinter final : public Printer {
 public:
  // Opens `path` for appending; error() says why it could not.  fuzz_log:
  // the header goes in as a "run" line (fuzz's log).
  JsonlPrinter(const std::string& path, bool fuzz_log);
  ~JsonlPrinter() override;
  JsonlPrinter(const JsonlPrinter&) = delete;
  JsonlPrinter& operator=(const JsonlPrinter&) = delete;

  std::string error() const override { return error_; }

 private:
  void do_begin(const RunHeader& h) override;
  void do_record(const Record& r) override;
  bool do_finish() override { return error_.empty(); }
  void write_line(std::string line);

  std::string path_;
  int fd_ = -1;
  bool regular_ = false;            // a regular file (a failed write can be cut back)
  bool fresh_line_needed_ = false;  // the file ended without a newline
  bool fuzz_log_ = false;
  std::string error_;               // the first open or write error
};

}  // namespace atomstress::reports
