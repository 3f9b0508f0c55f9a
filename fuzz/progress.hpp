// Live progress of a long campaign: on a terminal one line rewritten with
// `\r`; otherwise (a CI log, a Slurm output file) a full line every
// `period_s` seconds.  A background thread prints, so a slow trial does not
// silence it; every other line of output goes through print() so the two
// never interleave.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace atomstress::fuzz {

class Progress {
 public:
  // `label` (a lane of fuzz --devices, "[gpu 1] "): every line starts with
  // it, and status lines are plain lines even on a terminal, since several
  // lanes share it.
  Progress(double budget_s, double already_s, double period_s, std::string label = "");
  ~Progress();  // stops the thread, ends a `\r` line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void add(uint64_t trials, uint64_t ops) {
    trials_ += trials;
    ops_ += ops;
  }
  void add_failure() { ++failures_; }
  void set_entry(const std::string& name);
  // A line of ordinary output.
  void print(const std::string& line);
  void stop();

 private:
  std::string status_line();
  void loop();

  double budget_s_, already_s_, period_s_;
  bool tty_;
  std::atomic<uint64_t> trials_{0}, ops_{0}, failures_{0};
  std::mutex m_;
  std::condition_variable cv_;
  bool stopping_ = false, status_shown_ = false;
  std::string entry_, label_;
  std::chrono::steady_clock::time_point t0_;
  std::thread thread_;
};

}  // namespace atomstress::fuzz
