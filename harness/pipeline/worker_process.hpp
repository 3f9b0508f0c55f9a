// A child process that answers one line per line it is sent: the operating
// system's half of isolated trials (harness/pipeline/isolated.cpp speaks
// the protocol).  Its stdin and stdout are one end of a socket pair (so that
// writing to a worker that died is an error, never a SIGPIPE), its stderr a
// pipe that is passed on to ours as it comes and whose last lines are kept
// to explain a death.  Every descriptor of ours is close-on-exec; a worker
// that dies or is killed is always reaped (no zombies).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace atomstress {

class WorkerProcess {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Read { Line, Died, TimedOut, Woken };

  WorkerProcess() = default;
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;
  ~WorkerProcess();  // stop()s a running worker

  // Starts `program` with `argv` (argv[0] included); false with a one-line
  // `error` when it cannot be started.  A running worker is stopped first.
  bool start(const std::string& program, const std::vector<std::string>& argv, std::string& error);
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  // Writes `line` and a newline; false when the worker is gone.
  bool send(const std::string& line);
  // The worker's next line, without its newline (Line); or the worker
  // closed its output or died (Died: reaped, death() says how); or nothing
  // came by `deadline` (TimedOut: it is still running).  The time to
  // `deadline` counts only while the worker could run: time it waited for
  // a core (a loaded host) moves the deadline on (counted_wait.hpp).
  // `wake_fd` (an eventfd, or -1): when it becomes readable first, it is
  // drained and the answer is Woken (another thread has work for ours).
  Read receive(std::string& line, Clock::time_point deadline, int wake_fd = -1);
  // The wall time of the last receive that did not count (the worker waited for a core).
  Clock::duration waited_for_core() const { return waited_for_core_; }
  // SIGKILL, then reap.
  void kill();
  // Closes the worker's input (it exits at the end of its input) and reaps
  // it, killing it when it has not exited within `grace`.
  void stop(std::chrono::milliseconds grace);
  // Lets a worker that is ending go without waiting for it: its channels
  // are closed and its process id is returned for the caller to reap (-1
  // when none runs).  `kill`: SIGKILL it first.  death() then reads
  // "retired".
  pid_t release(bool kill);
  // Exchanges the two workers (a started spare for a dead one).
  void swap(WorkerProcess& other) noexcept;

  // How the last worker ended ("killed by signal 11 (SIGSEGV)", "exited
  // with status 3"); empty while it runs.
  const std::string& death() const { return death_; }
  // The signal that ended the last worker; 0 when it exited (or runs).
  int death_signal() const { return death_signal_; }
  // Whether the last worker died of a signal the code under test does not
  // raise (SIGKILL, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, ...: the OOM
  // killer, an operator, a CI runner), as opposed to a fault (SIGSEGV,
  // SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS).
  bool died_of_outside_signal() const;
  // Whether the running worker is stopped (SIGSTOP, SIGTSTP: state T in
  // /proc): its silence is not the trial's hang.
  bool stopped() const;
  // Its last lines on stderr: at most kTailLines lines and kTailBytes bytes.
  std::string stderr_tail() const;
  static constexpr size_t kTailLines = 8, kTailBytes = 2048;

 private:
  // Reads what stderr holds now (passing it on and keeping its tail); false
  // at its end.
  bool pump_stderr();
  // Reads stderr until its end or `until`, whichever comes first.
  void drain_stderr(Clock::time_point until);
  // waitpid: blocking, or not (then false while it still runs).
  bool reap(bool block);
  void close_channels();

  pid_t pid_ = -1;
  int channel_ = -1;  // our end of the socket pair: requests out, replies in
  int stderr_ = -1;   // the read end of the worker's stderr
  std::string pending_;  // received, not yet a whole line
  std::string tail_;     // the last bytes of its stderr
  std::string death_;
  int death_signal_ = 0;
  Clock::duration waited_for_core_{0};
};

}  // namespace atomstress
