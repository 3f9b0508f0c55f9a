#include "harness/pipeline/worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <thread>
#include <utility>

#include "harness/pipeline/counted_wait.hpp"

extern char** environ;

namespace atomstress {

namespace {

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* abbrev = sigabbrev_np(sig);
    return "killed by signal " + std::to_string(sig) + (abbrev ? std::string(" (SIG") + abbrev + ")" : "");
  }
  return "ended with wait status " + std::to_string(status);
}

int millis_until(WorkerProcess::Clock::time_point t) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(t - WorkerProcess::Clock::now()).count();
  return int(std::clamp<long long>(left, 0, 1 << 30));
}

// Spawn's descriptor plan and attributes, released however start() returns.
struct SpawnPlan {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  SpawnPlan() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnPlan() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
};

}  // namespace

WorkerProcess::~WorkerProcess() { stop(std::chrono::milliseconds(2000)); }

bool WorkerProcess::start(const std::string& program, const std::vector<std::string>& argv, std::string& error) {
  stop(std::chrono::milliseconds(2000));
  death_.clear();
  tail_.clear();
  pending_.clear();
  int channel[2], err[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel) != 0) {
    error = std::string("socketpair: ") + std::strerror(errno);
    return false;
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    close(channel[0]);
    close(channel[1]);
    return false;
  }
  SpawnPlan plan;
  // dup2 clears close-on-exec on 0, 1 and 2 only; every other descriptor of
  // ours (reports, logs) is closed in the worker.
  posix_spawn_file_actions_adddup2(&plan.actions, channel[1], 0);
  posix_spawn_file_actions_adddup2(&plan.actions, channel[1], 1);
  posix_spawn_file_actions_adddup2(&plan.actions, err[1], 2);
  posix_spawn_file_actions_addclosefrom_np(&plan.actions, 3);
  // Default SIGPIPE and an empty signal mask, whatever ours are.
  sigset_t none, pipe_only;
  sigemptyset(&none);
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  posix_spawnattr_setsigmask(&plan.attr, &none);
  posix_spawnattr_setsigdefault(&plan.attr, &pipe_only);
  posix_spawnattr_setflags(&plan.attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, program.c_str(), &plan.actions, &plan.attr, args.data(), environ);
  close(channel[1]);
  close(err[1]);
  if (rc != 0) {
    close(channel[0]);
    close(err[0]);
    error = "cannot start '" + program + "': " + std::strerror(rc);
    return false;
  }
  pid_ = pid;
  channel_ = channel[0];
  stderr_ = err[0];
  return true;
}

bool WorkerProcess::send(const std::string& line) {
  if (channel_ < 0) return false;
  const std::string data = line + "\n";
  size_t done = 0;
  while (done < data.size()) {
    // MSG_NOSIGNAL: a worker that died gives EPIPE here, not a SIGPIPE that
    // would end the supervisor.
    const ssize_t n = ::send(channel_, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

WorkerProcess::Read WorkerProcess::receive(std::string& line, Clock::time_point deadline, int wake_fd) {
  // The deadline counts the time the worker could run (counted_wait.hpp).
  CountedWait wait(pid_, deadline - Clock::now());
  waited_for_core_ = Clock::duration{0};
  for (;;) {
    if (const auto nl = pending_.find('\n'); nl != std::string::npos) {
      line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return Read::Line;
    }
    if (channel_ < 0) return Read::Died;
    // The wake descriptor last (-1 when absent: poll skips a negative fd).
    pollfd fds[3] = {{channel_, POLLIN, 0}, {stderr_, POLLIN, 0}, {wake_fd, POLLIN, 0}};
    const int n = poll(fds, 3, millis_until(wait.next_wake()));
    if (n < 0 && errno == EINTR) continue;
    if (wake_fd >= 0 && fds[2].revents && !fds[0].revents) {
      uint64_t count;
      while (read(wake_fd, &count, sizeof count) < 0 && errno == EINTR) {
      }
      return Read::Woken;
    }
    if (n == 0 && Clock::now() >= wait.next_wake()) {
      const bool more = wait.go_on();
      waited_for_core_ = wait.uncounted();
      if (!more) return Read::TimedOut;
      continue;
    }
    if (stderr_ >= 0 && fds[1].revents) pump_stderr();
    if (fds[0].revents) {
      char buf[65536];
      const ssize_t got = read(channel_, buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got > 0) {
        pending_.append(buf, size_t(got));
        continue;
      }
      // End of its output: it exited or is about to.  A worker that closes
      // its output but lives on is killed after a moment.
      const auto until = Clock::now() + std::chrono::seconds(2);
      while (!reap(false) && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      if (running()) kill();
      return Read::Died;
    }
  }
}

bool WorkerProcess::pump_stderr() {
  char buf[4096];
  ssize_t got;
  do got = read(stderr_, buf, sizeof buf);
  while (got < 0 && errno == EINTR);
  if (got <= 0) {
    close(stderr_);
    stderr_ = -1;
    return false;
  }
  // Passed on as it comes: what the code under test prints is not hidden.
  for (ssize_t done = 0; done < got;) {
    const ssize_t w = write(STDERR_FILENO, buf + done, size_t(got - done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;  // our stderr is gone: the tail is still kept
    done += w;
  }
  tail_.append(buf, size_t(got));
  if (tail_.size() > 2 * kTailBytes) tail_.erase(0, tail_.size() - kTailBytes);
  return true;
}

void WorkerProcess::drain_stderr(Clock::time_point until) {
  while (stderr_ >= 0) {
    pollfd fd{stderr_, POLLIN, 0};
    const int n = poll(&fd, 1, millis_until(until));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // a grandchild may hold it open: stop at `until`
    if (!pump_stderr()) return;
  }
}

std::string WorkerProcess::stderr_tail() const {
  std::string t = tail_;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  // The start of the last kTailLines lines, then at most kTailBytes.
  size_t start = t.size();
  for (size_t lines = 0; lines < kTailLines && start != 0; ++lines) {
    const size_t nl = t.rfind('\n', start - 1);
    start = nl == std::string::npos ? 0 : nl;
  }
  if (start != 0) ++start;  // past the newline
  start = std::max(start, t.size() > kTailBytes ? t.size() - kTailBytes : size_t(0));
  return t.substr(start);
}

bool WorkerProcess::reap(bool block) {
  if (pid_ <= 0) return true;
  int status = 0;
  pid_t r;
  do r = waitpid(pid_, &status, block ? 0 : WNOHANG);
  while (r < 0 && errno == EINTR);
  if (r == 0) return false;
  death_ = r == pid_ ? describe_status(status) : std::string("lost (waitpid: ") + std::strerror(errno) + ")";
  death_signal_ = r == pid_ && WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  pid_ = -1;
  // Its stderr ends with it: keep what it said last.
  drain_stderr(Clock::now() + std::chrono::milliseconds(500));
  close_channels();
  return true;
}

bool WorkerProcess::died_of_outside_signal() const {
  switch (death_signal_) {
    case 0:
    case SIGSEGV: case SIGBUS: case SIGFPE: case SIGILL: case SIGABRT: case SIGTRAP: case SIGSYS:
    case SIGXCPU: case SIGXFSZ:
      return false;  // none, or the code under test's own fault
    default:
      return true;
  }
}

bool WorkerProcess::stopped() const {
  if (pid_ <= 0) return false;
  std::ifstream in("/proc/" + std::to_string(pid_) + "/stat");
  std::string stat;
  std::getline(in, stat);
  // "pid (comm) S ...": the state follows the last ')' (comm may hold one).
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() &&
         (stat[close + 2] == 'T' || stat[close + 2] == 't');
}

void WorkerProcess::kill() {
  if (pid_ > 0) ::kill(pid_, SIGKILL);
  reap(true);
  close_channels();
}

void WorkerProcess::stop(std::chrono::milliseconds grace) {
  if (channel_ >= 0) shutdown(channel_, SHUT_WR);  // end of its input
  const auto until = Clock::now() + grace;
  while (!reap(false) && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  if (running()) kill();
  close_channels();
}

pid_t WorkerProcess::release(bool kill) {
  const pid_t pid = pid_;
  if (pid > 0 && kill) ::kill(pid, SIGKILL);
  pid_ = -1;
  death_ = pid > 0 ? "retired" : death_;
  death_signal_ = 0;
  close_channels();
  return pid;
}

void WorkerProcess::swap(WorkerProcess& other) noexcept {
  std::swap(pid_, other.pid_);
  std::swap(channel_, other.channel_);
  std::swap(stderr_, other.stderr_);
  std::swap(pending_, other.pending_);
  std::swap(tail_, other.tail_);
  std::swap(death_, other.death_);
  std::swap(death_signal_, other.death_signal_);
}

void WorkerProcess::close_channels() {
  if (channel_ >= 0) close(channel_);
  if (stderr_ >= 0) close(stderr_);
  channel_ = stderr_ = -1;
}

}  // namespace atomstress
