#include "fuzz/progress.hpp"

#include <fmt/format.h>

#include "reports/terminal.hpp"

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
  if (tty_ && status_shown_) reports::print("\n");
  std::fflush(stdout);
}

void Progress::set_entry(const std::string& name) {
  std::lock_guard lk(m_);
  entry_ = name;
}

std::string Progress::status_line() {
  const double el = already_s_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  return fmt::format("{}fuzz {:6.0f}s/{:.0f}s  trials {}  ops {}  failures {}  entry {}", label_, el, budget_s_,
                     trials_, svg::tick_label(double(ops_)), failures_, entry_);
}

void Progress::print(const std::string& line) {
  std::lock_guard lk(m_);
  if (tty_ && status_shown_) reports::print("\r\033[K");
  reports::print("{}{}\n", label_, line);
  status_shown_ = false;
  std::fflush(stdout);
}

void Progress::loop() {
  std::unique_lock lk(m_);
  const auto period = std::chrono::duration<double>(tty_ ? 0.5 : period_s_);
  while (!cv_.wait_for(lk, period, [this] { return stopping_; })) {
    if (tty_) reports::print("\r\033[K{}", status_line());
    else reports::print("{}\n", status_line());
    status_shown_ = true;
    std::fflush(stdout);
  }
}

}  // namespace atomstress::fuzz
