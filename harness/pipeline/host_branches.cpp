#include "harness/pipeline/host_branches.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>

#include "harness/registry/registry.hpp"

namespace atomstress {

namespace {

constexpr unsigned kProbeSeconds = 2;
constexpr int kNoInterceptedCall = 3;

// The child's answer: 0, an intercepted call; kNoInterceptedCall, none;
// else how it ended, as a reason (null: the entry runs on the cpu).  A unit
// with atomics atomstress cannot intercept (a cuda::atomic object: Entry::
// not_intercepted) may make its only atomic call through them: there, no
// intercepted call says nothing of a host branch.
const char* probe_in_child(const Entry& e) {
  const pid_t pid = fork();
  if (pid < 0) return nullptr;  // no child: leave the entry as it is
  if (pid == 0) {
    alarm(kProbeSeconds);
    bool made = false;
    try {
      made = e.host_makes_intercepted_call();
    } catch (...) {
      _exit(4);
    }
    _exit(made ? 0 : kNoInterceptedCall);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return nullptr;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return nullptr;
  if (WIFEXITED(status) && WEXITSTATUS(status) == kNoInterceptedCall && e.not_intercepted != nullptr) return nullptr;
  std::string why;
  if (WIFEXITED(status) && WEXITSTATUS(status) == kNoInterceptedCall)
    why = "its host build makes no atomic call that atomstress intercepts (a host branch of its own: "
          "NV_IF_ELSE_TARGET, #ifdef __CUDA_ARCH__, AMREX_IF_ON_HOST), so the cpu backend would test other code "
          "than the GPU runs";
  else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
    why = "its host build did not return within " + std::to_string(kProbeSeconds) +
          " s when called once on the host, on a word of its own";
  else if (WIFSIGNALED(status))
    why = std::string("its host build faulted when called on the host (") + strsignal(WTERMSIG(status)) +
          "), so the cpu backend cannot run it";
  else
    why = "its host build threw when called on the host, so the cpu backend cannot run it";
  return intern_text(why);
}

}  // namespace

void settle_host_branches() {
  static std::once_flag once;
  std::call_once(once, [] {
    const auto& table = catalogue();
    for (size_t i = 0; i < table.size(); ++i) {
      const Entry& e = table[i];
      if (!e.user_code || e.gpu_only || e.host_makes_intercepted_call == nullptr) continue;
      if (const char* why = probe_in_child(e)) mark_cpu_unable(i, why);
    }
  });
}

}  // namespace atomstress
