// Running the atomstress program from a test: it sits beside the test
// program (bin/); a shell command line's status and output come back.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace atomstress::testing {

struct Result {
  int status;
  std::string out;  // what the command line printed (stdout, and stderr where it says 2>&1)
};

inline std::string bin_dir() {
  // ATOMSTRESS_TEST_BIN_DIR (ending in '/'): run the tests against the
  // programs of another build (an older one, to see a test fail there).
  if (const char* d = std::getenv("ATOMSTRESS_TEST_BIN_DIR"); d != nullptr && *d != '\0') return d;
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string self(buf, n > 0 ? size_t(n) : 0);
  return self.substr(0, self.rfind('/') + 1);
}
inline std::string binary() { return bin_dir() + "atomstress"; }

inline Result run_shell(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

}  // namespace atomstress::testing
