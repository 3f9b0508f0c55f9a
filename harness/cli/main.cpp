// atomstress: the command line.
//   atomstress list     [--impl GLOB] [--verbose]
//   atomstress check    [--all | --impl NAME|GLOB[,..]] [--backend auto|cuda|cpu] ...
//   atomstress repro    TOKEN [--runs N] [--backend ...]
// Exit status: 0 all passed, 1 a failure or hang was found, 2 bad input,
// 3 a kernel outlived its watchdog (the process cannot recover the device),
// 77 (with --skip-without-gpu) no GPU.
#include <boost/program_options.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "reports/jsonl.hpp"
#include "harness/cli/check_plan.hpp"
#include "harness/pipeline/run_trial.hpp"
#include "harness/workload/workload.hpp"

namespace po = boost::program_options;
using namespace atomstress;

namespace atomstress {
int cmd_selftest(const std::vector<std::string>& args);
}

namespace {

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "atomstress: error: %s\n", msg.c_str());
  return 2;
}

int cmd_list(const std::vector<std::string>& args) {
  po::options_description desc("atomstress list");
  desc.add_options()("impl", po::value<std::string>()->default_value("everything"), "name or glob")(
      "verbose,v", po::bool_switch(), "print each implementation's semantics spec");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
  const auto impls = match_impls(vm["impl"].as<std::string>());
  if (impls.empty()) return usage_error("no implementation matches '" + vm["impl"].as<std::string>() + "'");
  for (const ImplInfo* i : impls) {
    if (i->algo)
      std::printf("%-44s algorithm on %s%s%s\n", i->name, i->algo->atomic().name, i->gpu_only ? " (cuda only)" : "",
                  i->buggy() ? "   [buggy]" : "");
    else
      std::printf("%-44s %-4s %s%s\n", i->name, vk_name(i->kind), i->sem.phi, i->buggy() ? "   [buggy]" : "");
    if (vm["verbose"].as<bool>()) std::printf("%s\n", describe_spec(*i).c_str());
  }
  return 0;
}

int cmd_check(const std::vector<std::string>& args) {
  CheckOptions co;
  po::options_description desc("atomstress check");
  add_check_options(desc, co);
  desc.add_options()("json", po::value<std::string>(&co.json), "append one JSON line per trial to FILE");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  std::string error;
  CheckPlan plan;
  if (!make_plan(co, vm, plan, error)) {
    if (error == "skip") return 77;
    return usage_error(error);
  }
  if (!plan.note.empty()) std::printf("%s\n", plan.note.c_str());
  reports::JsonLines json(co.json);
  if (!json.ok()) return usage_error("cannot open '" + co.json + "' for appending");
  int status = 0;
  for (const ImplInfo* impl : plan.impls) {
    if (impl->gpu_only && plan.backend == BackendKind::Cpu) {
      if (!co.quiet) std::printf("SKIP  %-32s cpu   uses warp intrinsics: needs the cuda backend\n", impl->name);
      continue;
    }
    ImplSummary sum = run_impl(plan, *impl, [&](const TrialOutcome& t) {
      if (t.verdict != Verdict::Error) json.write(t, encode_token(t.spec));
    });
    if (sum.verdict == Verdict::Error && sum.trials == 0 && plan.impls.size() > 1) {
      if (!co.quiet) std::printf("SKIP  %-32s %-4s  no trial applies: %s\n", impl->name, to_string(plan.backend),
                                 sum.first_failure.why().c_str());
      continue;
    }
    if (sum.verdict == Verdict::Error) return usage_error(sum.first_failure.why());
    print_summary(plan, sum);
    if (sum.verdict != Verdict::Pass) status = 1;
  }
  return status;
}

int cmd_repro(const std::vector<std::string>& args) {
  po::options_description desc("atomstress repro");
  std::string token, backend_name = "auto";
  uint32_t runs = 10;
  RunOptions opt;
  desc.add_options()("token", po::value<std::string>(&token), "reproduction token")(
      "runs", po::value<uint32_t>(&runs)->default_value(10), "times to rerun")(
      "backend", po::value<std::string>(&backend_name)->default_value("auto"), "cuda, cpu or auto")(
      "budget", po::value<uint32_t>(&opt.retry_budget)->default_value(1u << 20), "retries per op")(
      "watchdog-ms", po::value<uint64_t>(&opt.watchdog_ms)->default_value(0), "0: automatic")(
      "cpu-threads", po::value<uint32_t>(&opt.cpu_threads)->default_value(4), "cpu backend threads");
  po::positional_options_description pos;
  pos.add("token", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).positional(pos).run(), vm);
  po::notify(vm);
  if (token.empty()) return usage_error("repro needs a reproduction token");
  if (runs == 0) return usage_error("--runs must be at least 1");
  std::string error, note;
  auto spec = decode_token(token, error);
  if (!spec) return usage_error(error);
  const BackendKind backend = resolve_backend(backend_name, note, error);
  if (!error.empty()) return usage_error(error);
  if (!note.empty()) std::printf("%s\n", note.c_str());
  std::printf("repro: %s\n", describe(*spec).c_str());
  uint32_t failures = 0;
  std::string first_why;
  for (uint32_t r = 0; r < runs; ++r) {
    const TrialOutcome t = run_trial(*spec, backend, opt);
    if (t.verdict == Verdict::Error) return usage_error(t.why());
    if (t.verdict != Verdict::Pass) {
      if (failures == 0) {
        first_why = std::string(to_string(t.verdict)) + ": " + t.why();
        std::printf("run %u: %s\n", r + 1, first_why.c_str());
      }
      ++failures;
    }
  }
  // MC Mutants' reproducibility score: with x the expected number of
  // failures in a rerun of this many runs, 1 - e^-x.
  const double x = double(failures);
  std::printf("failed %u of %u runs (rate %.3f); reproducibility score 1-e^-x = %.3f (x = %.1f expected failures per %u runs)\n",
              failures, runs, double(failures) / runs, 1.0 - std::exp(-x), x, runs);
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const char* kUsage =
      "usage: atomstress <command> [options]\n"
      "  list      the catalogue, with each semantics spec (--verbose)\n"
      "  check     run implementations against the oracle (--all, --impl NAME|GLOB)\n"
      "  repro     rerun a reproduction token N times (--runs N)\n"
      "  selftest  catch every deliberately wrong implementation; no false failures\n"
      "Run 'atomstress <command> --help' for a command's options.\n";
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  try {
    if (cmd == "list") return cmd_list(args);
    if (cmd == "check") return cmd_check(args);
    if (cmd == "repro") return cmd_repro(args);
    if (cmd == "selftest") return cmd_selftest(args);
  } catch (const po::error& e) {
    return usage_error(e.what());
  } catch (const std::exception& e) {
    return usage_error(e.what());
  }
  return usage_error("unknown command '" + cmd + "' (list, check, repro, selftest)");
}
