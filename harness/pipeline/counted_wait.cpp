#include "harness/pipeline/counted_wait.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

namespace atomstress {

std::optional<TaskTimes> read_task_times(pid_t pid) {
  std::error_code ec;
  const std::filesystem::path dir = "/proc/" + std::to_string(pid) + "/task";
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return std::nullopt;
  TaskTimes times;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) return std::nullopt;
    std::ifstream in(it->path() / "schedstat");
    ThreadTimes t;
    if (!(in >> t.run_ns >> t.wait_ns)) continue;  // a thread that ended meanwhile
    times[pid_t(std::stol(it->path().filename().string()))] = t;
  }
  if (times.empty()) return std::nullopt;
  return times;
}

double runnable_share(const TaskTimes& from, const TaskTimes& to) {
  uint64_t run = 0, wait = 0;
  for (const auto& [tid, now] : to) {
    const auto before = from.find(tid);
    const ThreadTimes was = before != from.end() ? before->second : ThreadTimes{};
    run += now.run_ns >= was.run_ns ? now.run_ns - was.run_ns : now.run_ns;  // a reused id: a new thread
    wait += now.wait_ns >= was.wait_ns ? now.wait_ns - was.wait_ns : now.wait_ns;
  }
  return run + wait == 0 ? 1.0 : double(run) / double(run + wait);
}

CountedWait::CountedWait(pid_t pid, Clock::duration span)
    : pid_(pid), span_(span), start_(Clock::now()), last_(start_), wake_(start_ + std::min<Clock::duration>(span / 8, kFirstLook)) {}

bool CountedWait::go_on() {
  const auto now = Clock::now();
  std::optional<TaskTimes> seen = pid_ > 0 ? read_task_times(pid_) : std::nullopt;
  // Before the first look, and whenever the counters cannot be read, the
  // stretch counts whole (the plain wall-clock deadline).
  const double share = seen_ && seen ? runnable_share(*seen_, *seen) : 1.0;
  counted_ += std::chrono::duration_cast<Clock::duration>((now - last_) * share);
  last_ = now;
  seen_ = std::move(seen);
  if (counted_ >= span_ || now - start_ >= kMaxStretch * span_) return false;
  wake_ = now + std::clamp<Clock::duration>(span_ - counted_, std::chrono::milliseconds(10), kLookEvery);
  return true;
}

}  // namespace atomstress
