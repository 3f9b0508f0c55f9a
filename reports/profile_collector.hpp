// What every file report of `profile` shares: its path is checked before
// the sweep starts (so a path that cannot be written is refused before any
// time is spent), it keeps the points, and writes the whole document at the
// end through a temporary file renamed over the old one (an interrupted
// profile keeps the old report).  A FIFO or device is opened at the start
// and written in place, as before.
#pragma once

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "harness/pipeline/profile.hpp"
#include "harness/support/atomic_file.hpp"
#include "reports/printer.hpp"

namespace atomstress::reports {

class ProfileCollector : public Printer {
 public:
  explicit ProfileCollector(std::string path) : path_(std::move(path)) {
    struct stat st{};
    in_place_ = ::stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
    if (in_place_) file_.open(path_, std::ios::trunc);
    else opened_ = check_output("profile's report", path_, open_error_);
  }
  bool opened() const { return in_place_ ? file_.is_open() : opened_; }
  const std::string& path() const { return path_; }

  std::string error() const override {
    if (error_.empty() && !opened())
      return open_error_.empty() ? "cannot open '" + path_ + "' for writing" : open_error_;
    return error_;
  }

 protected:
  void do_begin(const RunHeader& r) override { run_ = r; }
  void do_note(const std::string& n) override { notes_.push_back(n); }
  void do_record(const Record& r) override {
    if (const auto* p = as<ProfilePoint>(r)) points_.push_back(*p);
  }
  bool do_finish() override {
    if (finished_) return error_.empty();
    finished_ = true;
    if (!in_place_) return write_file_atomically(path_, render(), error_);
    errno = 0;
    file_ << render();
    file_.flush();
    if (!file_) error_ = "cannot write '" + path_ + "'" + (errno ? std::string(": ") + std::strerror(errno) : "");
    return error_.empty();
  }

  // The whole document.
  virtual std::string render() const = 0;
  RunHeader run_;
  std::vector<std::string> notes_;
  std::vector<ProfilePoint> points_;

 private:
  std::string path_;
  bool in_place_ = false;  // a FIFO or a device: written through `file_`
  bool opened_ = false;
  std::ofstream file_;
  std::string error_, open_error_;
  bool finished_ = false;
};

}  // namespace atomstress::reports
