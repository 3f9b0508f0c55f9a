#include "harness/pipeline/crash_report.hpp"

#include <link.h>
#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>

namespace atomstress {

namespace {

// Where the executable lies in memory (its loadable segments).
uintptr_t executable_base = 0, executable_end = 0;

// Only async-signal-safe calls from here on: write(2), no stdio, no malloc.
void put(char*& at, const char* end, const char* s) {
  while (*s && at < end) *at++ = *s++;
}
void put_hex(char*& at, const char* end, uintptr_t v) {
  char digits[2 * sizeof v];
  int n = 0;
  do digits[n++] = "0123456789abcdef"[v & 0xf];
  while ((v >>= 4) != 0);
  put(at, end, "0x");
  while (n > 0 && at < end) *at++ = digits[--n];
}
void put_dec(char*& at, const char* end, int v) {
  char digits[12];
  int n = 0;
  do digits[n++] = char('0' + v % 10);
  while ((v /= 10) != 0);
  while (n > 0 && at < end) *at++ = digits[--n];
}

std::atomic<bool> reporting{false};

void on_fatal_signal(int sig) {
  // Several threads can fault at once (a wild store in every host thread of
  // the cpu backend): the first reports and ends the process, the others
  // wait for that.
  if (reporting.exchange(true))
    for (;;) pause();
  void* frames[40];
  const int n = backtrace(frames, 40);
  char line[1024];
  char* at = line;
  const char* end = line + sizeof line - 1;
  put(at, end, "atomstress worker: fatal signal ");
  put_dec(at, end, sig);
  put(at, end, "; call stack (offsets into the executable, for addr2line -f -C -e):");
  for (int i = 0; i < n; ++i) {
    const auto pc = reinterpret_cast<uintptr_t>(frames[i]);
    put(at, end, " ");
    // A frame outside the executable (libc, the driver) is marked.
    if (pc >= executable_base && pc < executable_end) {
      put_hex(at, end, pc - executable_base);
    } else {
      put(at, end, "(lib)");
    }
  }
  *at++ = '\n';
  [[maybe_unused]] const ssize_t w = write(STDERR_FILENO, line, size_t(at - line));
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void report_fatal_signals() {
  // The first object listed is the executable.
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void*) {
        executable_base = info->dlpi_addr;
        for (int i = 0; i < info->dlpi_phnum; ++i)
          if (info->dlpi_phdr[i].p_type == PT_LOAD)
            executable_end = std::max<uintptr_t>(executable_end, info->dlpi_addr + info->dlpi_phdr[i].p_vaddr +
                                                                     info->dlpi_phdr[i].p_memsz);
        return 1;
      },
      nullptr);
  // backtrace() loads its unwinder on first use, which allocates: do it now.
  void* warm[1];
  backtrace(warm, 1);
  static char alt_stack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa{};
  sa.sa_handler = on_fatal_signal;
  sa.sa_flags = SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) sigaction(sig, &sa, nullptr);
}

}  // namespace atomstress
