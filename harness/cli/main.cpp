// atomstress: the command line.  main only dispatches; each command lives in
// its own cmd_*.cpp.
//   atomstress list     [--impl GLOB] [--verbose]
//   atomstress check    [--all | --impl NAME|GLOB[,..]] [--backend auto|cuda|cpu] ...
//   atomstress repro    TOKEN [--runs N] [--backend ...]
//   atomstress selftest [--backend ...] [--budget-s S] ...
//   atomstress fuzz     [--impl GLOB[,..]] [--time 8h] [--corpus DIR] [--junit F] [--report DIR] ...
//   atomstress merge    [--junit F] [--report DIR] [--corpus DIR] LOG...
//   atomstress profile  --impl NAME|GLOB[,..] [--k LIST|pow2:LO:HI[:STEP]] [--json FILE] ...
//   atomstress --version
//   atomstress worker   (hidden: started by the supervisor of isolated trials)
// Exit status: 0 all passed, 1 a failure, hang or crash was found, 2 bad
// input or a report that could not be written, 3 with --isolate off: a
// trial lost the CUDA context and the run stopped, 77 (with
// --skip-without-gpu) no GPU.
#include <cerrno>

#include <fmt/format.h>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "harness/cli/commands.hpp"
#include "harness/cli/options.hpp"
#include "harness/pipeline/host_branches.hpp"
#include "reports/terminal.hpp"
#include "reports/repro_command.hpp"

using namespace atomstress::cli;

namespace {

constexpr const char* kUsage =
    "usage: atomstress <command> [options]\n"
    "  list      the catalogue, with each semantics spec (--verbose)\n"
    "  check     run entries against their oracles (--all, --impl NAME|GLOB)\n"
    "  repro     rerun a reproduction token N times (--runs N)\n"
    "  selftest  catch every deliberately wrong entry; no false failures\n"
    "  fuzz      time-budgeted property campaign with a corpus (--time 8h, --corpus DIR)\n"
    "  merge     combine fuzz shards' JSON logs into one JUnit file, report and corpus\n"
    "  profile   throughput and contention over a sweep of k, pattern, geometry (--impl NAME|GLOB)\n"
    "Run 'atomstress <command> --help' for a command's options; 'atomstress --version'.\n";

int dispatch(const std::string& cmd, const std::vector<std::string>& args, const std::string& command_line) {
  if (cmd == "list") return cmd_list(args);
  if (cmd == "check") return cmd_check(args, command_line);
  if (cmd == "repro") return cmd_repro(args, command_line);
  if (cmd == "selftest") return cmd_selftest(args, command_line);
  if (cmd == "fuzz") return cmd_fuzz(args, command_line);
  if (cmd == "merge") return cmd_merge(args, command_line);
  if (cmd == "profile") return cmd_profile(args, command_line);
  if (cmd == "worker") return cmd_worker(args);  // not in the usage: no one runs it by hand
  return usage_error("unknown command '" + cmd + "' (list, check, repro, selftest, fuzz, merge, profile)");
}

// 0 unless stdout lost something (a full disk, a closed pipe): then the one
// line that says so, and 2.
int stdout_status() {
  std::string error;
  return atomstress::reports::flush_stdout(error) ? 0 : usage_error(error);
}

}  // namespace

// A suite made by atomstress_add_suite defines this: the architectures its
// own units were built for (the engine's may differ).
extern "C" __attribute__((weak)) const char* const atomstress_suite_cuda_architectures;

int main(int argc, char** argv) {
  if (argc > 0) atomstress::reports::set_program_name(argv[0]);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : stdout_status();
  }
  if (args[0] == "--version") {
    if (args.size() > 1) return usage_error("--version takes no arguments: '" + args[1] + "'");
    if (&atomstress_suite_cuda_architectures != nullptr)
      atomstress::reports::print("atomstress {} (this suite's CUDA architectures {}; the engine's {})\n", ATOMSTRESS_VERSION,
                 atomstress_suite_cuda_architectures, ATOMSTRESS_CUDA_ARCHITECTURES);
    else
      atomstress::reports::print("atomstress {} (CUDA architectures {})\n", ATOMSTRESS_VERSION, ATOMSTRESS_CUDA_ARCHITECTURES);
    return stdout_status();
  }
  // Before any command reads the registry's cpu-backend flags.
  atomstress::settle_host_branches();
  std::string command_line = "atomstress";
  for (const auto& a : args) command_line += " " + a;
  const std::string cmd = args[0];
  args.erase(args.begin());
  int status;
  try {
    status = dispatch(cmd, args, command_line);
  } catch (const std::exception& e) {  // Boost's option errors among them
    return usage_error(e.what());
  }
  if (status == 2) return status;  // its one line is already on stderr
  const int out = stdout_status();
  return out ? out : status;
}
