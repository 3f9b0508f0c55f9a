// A worker's deadline counts the time the worker could run, not the time it
// waited for a core.  On a loaded host (CI's two busy cores, a cpu-backend
// trial of 256 threads beside other work) a correct trial's worker ran a
// small share of the wall time and was killed as a hang at its wall
// deadline, though its own watchdog counts CPU time and had not fired
// (a correct `lock.device` trial, HANG "no result within the trial's
// watchdog (200 ms) and 2001 ms of grace", passing at once alone).  The
// worker's threads' time on a core and waiting for one (Linux's
// /proc/<pid>/task/*/schedstat) give the share of each stretch that counts.
// A worker that does not want a core (blocked, asleep) gets no extension.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>

namespace atomstress {

// A thread's time on a core and waiting for one, in nanoseconds.
struct ThreadTimes {
  uint64_t run_ns = 0, wait_ns = 0;
};
using TaskTimes = std::map<pid_t, ThreadTimes>;  // by thread id

// The threads of process `pid` now; nothing when they cannot be read (no
// such process, a kernel without schedstat).
std::optional<TaskTimes> read_task_times(pid_t pid);

// The share of a stretch that counts, from the snapshots at its start and
// end: the threads' time on a core over their time on a core or waiting for
// one (a thread new in `to` counts whole; one gone from it, not at all); 1
// when they neither ran nor waited (the stretch counts whole).
double runnable_share(const TaskTimes& from, const TaskTimes& to);

// A wait for process `pid` that ends once `span` of it has counted, or at
// kMaxStretch times `span` of wall time whatever counted.  The counters are
// first read a moment in (kFirstLook: most answers come sooner, and reading
// them costs a directory walk; an eighth of a shorter span), then at each
// wake.
class CountedWait {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr auto kFirstLook = std::chrono::milliseconds(250);
  static constexpr auto kLookEvery = std::chrono::milliseconds(500);
  // 16: a correct trial needs little of a core (milliseconds), so a worker
  // that got 1/16 of one has had its time; a loop that yields at every turn
  // beside CPU-bound work gets 0.2% (measured: two `yes` on 2 cores), and
  // at 64 its hang took 3.5 minutes to call.
  static constexpr int kMaxStretch = 16;

  CountedWait(pid_t pid, Clock::duration span);
  // When to look again.
  Clock::time_point next_wake() const { return wake_; }
  // At a wake: false once the wait is over.
  bool go_on();
  // Wall time so far that did not count (the worker waited for a core).
  Clock::duration uncounted() const { return last_ - start_ - counted_; }

 private:
  pid_t pid_;
  Clock::duration span_, counted_{0};
  Clock::time_point start_, last_, wake_;
  std::optional<TaskTimes> seen_;
};

}  // namespace atomstress
