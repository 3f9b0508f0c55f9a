// What every file report of `profile` shares: it opens its file before the
// sweep starts (so a path that cannot be written is refused before any
// time is spent), keeps the points, and writes the whole document at the end.
#pragma once

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "harness/pipeline/profile.hpp"
#include "reports/printer.hpp"

namespace atomstress::reports {

class ProfileCollector : public Printer {
 public:
  explicit ProfileCollector(std::string path) : path_(std::move(path)), file_(path_, std::ios::trunc) {}
  bool opened() const { return file_.is_open(); }
  const std::string& path() const { return path_; }

  std::string error() const override {
    if (error_.empty() && !opened()) return "cannot open '" + path_ + "' for writing";
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
  std::ofstream file_;
  std::string error_;
  bool finished_ = false;
};

}  // namespace atomstress::reports
