#include "fuzz/progress.hpp"

#include <unistd.h>

#include <cstdio>

#include "reports/svg_chart.hpp"

namespace atomstress::fuzz {

Progress::Progress(double budget_s, double already_s, double period_s, std::string label)
    : budget_s_(budget_s), already_s_(already_s), period_s_(period_s),
      tty_(label.empty() && isatty(fileno(stdout)) == 1), label_(std::move(label)),
      t0_(std::chrono::steady_clock::now()) {
  thread_ = std::thread([this] { loop(); });
}

Progress::~Progress() { stop(); }

void Progress::stop() {
  {
    std::lock_guard lk(m_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
  if (tty_ && status_shown_) std::printf("\n");
  std::fflush(stdout);
}

void Progress::set_entry(const std::string& name) {
  std::lock_guard lk(m_);
  entry_ = name;
}

std::string Progress::status_line() {
  const double el = already_s_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  char buf[256];
  std::snprintf(buf, sizeof buf, "%sfuzz %6.0fs/%.0fs  trials %llu  ops %s  failures %llu  entry %s",
                label_.c_str(), el, budget_s_, (unsigned long long)trials_, svg::tick_label(double(ops_)).c_str(),
                (unsigned long long)failures_, entry_.c_str());
  return buf;
}

void Progress::print(const std::string& line) {
  std::lock_guard lk(m_);
  if (tty_ && status_shown_) std::printf("\r\033[K");
  std::printf("%s%s\n", label_.c_str(), line.c_str());
  status_shown_ = false;
  std::fflush(stdout);
}

void Progress::loop() {
  std::unique_lock lk(m_);
  const auto period = std::chrono::duration<double>(tty_ ? 0.5 : period_s_);
  while (!cv_.wait_for(lk, period, [this] { return stopping_; })) {
    if (tty_) std::printf("\r\033[K%s", status_line().c_str());
    else std::printf("%s\n", status_line().c_str());
    status_shown_ = true;
    std::fflush(stdout);
  }
}

}  // namespace atomstress::fuzz
