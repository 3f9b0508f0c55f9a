#include "harness/pipeline/spare_workers.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <mutex>

namespace atomstress::spare_workers {

namespace {

struct Spare {
  std::string program;
  std::vector<std::string> argv;
  std::unique_ptr<WorkerProcess> worker;
};

struct Pool {
  std::mutex mu;
  std::vector<Spare> spares;
  std::vector<std::pair<std::string, std::vector<std::string>>> wanted;  // command lines that get spares
  std::vector<pid_t> retired;                                            // ending, not yet reaped
  // Static destruction (the end of a run that returned from main): the
  // spares have done nothing, so nothing is lost by killing them.
  ~Pool() { clear_locked(); }

  void reap_retired(bool block) {
    std::erase_if(retired, [&](pid_t pid) {
      int status = 0;
      pid_t r;
      do r = waitpid(pid, &status, block ? 0 : WNOHANG);
      while (r < 0 && errno == EINTR);
      return r != 0;  // reaped, or not our child any more
    });
  }
  bool is_wanted(const std::string& program, const std::vector<std::string>& argv) const {
    for (const auto& [p, a] : wanted)
      if (p == program && a == argv) return true;
    return false;
  }
  size_t count(const std::string& program, const std::vector<std::string>& argv) const {
    size_t n = 0;
    for (const auto& s : spares) n += s.program == program && s.argv == argv;
    return n;
  }
  void top_up(const std::string& program, const std::vector<std::string>& argv) {
    for (size_t n = count(program, argv); n < kSpares; ++n) {
      auto w = std::make_unique<WorkerProcess>();
      std::string error;
      if (!w->start(program, argv, error)) return;  // the next start says why, for itself
      spares.push_back({program, argv, std::move(w)});
    }
  }
  void clear_locked() {
    for (auto& s : spares) retired.push_back(s.worker->release(true));
    spares.clear();
    wanted.clear();
    // A retired worker that has not exited by now is not waited for: killed.
    for (const pid_t pid : retired) kill(pid, SIGKILL);
    reap_retired(true);
  }
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

bool take(const std::string& program, const std::vector<std::string>& argv, bool replacing, WorkerProcess& worker) {
  Pool& p = pool();
  std::lock_guard lock(p.mu);
  p.reap_retired(false);
  if (replacing && !p.is_wanted(program, argv)) p.wanted.emplace_back(program, argv);
  if (!p.is_wanted(program, argv)) return false;
  p.top_up(program, argv);  // the first replacement starts them (and takes one, no later than a fresh start)
  const auto it = std::find_if(p.spares.begin(), p.spares.end(),
                               [&](const Spare& s) { return s.program == program && s.argv == argv; });
  if (it == p.spares.end()) return false;
  worker.swap(*it->worker);
  p.spares.erase(it);
  p.top_up(program, argv);
  return true;
}

void retire(WorkerProcess& worker, bool kill) {
  Pool& p = pool();
  std::lock_guard lock(p.mu);
  if (const pid_t pid = worker.release(kill); pid > 0) p.retired.push_back(pid);
  p.reap_retired(false);
}

size_t waiting() {
  Pool& p = pool();
  std::lock_guard lock(p.mu);
  return p.spares.size();
}

void clear() {
  Pool& p = pool();
  std::lock_guard lock(p.mu);
  p.clear_locked();
}

}  // namespace atomstress::spare_workers
