// atomstress selftest: the option parsing; the campaign itself is
// fuzz/selftest.cpp's run_selftest.
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

#include "reports/terminal.hpp"
#include <memory>

#include "fuzz/campaign.hpp"
#include "fuzz/selftest.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/options.hpp"
#include "harness/pipeline/run_trial.hpp"
#include "reports/selftest_printer.hpp"

namespace po = boost::program_options;

namespace atomstress::cli {

int cmd_selftest(const std::vector<std::string>& args, const std::string& command_line) {
  fuzz::SelftestConfig cfg;
  std::string backend_name = "auto";
  ReportOptions reports_asked(reports::kReportSelftest);
  uint64_t correct_specs = 0, algo_specs = 0;
  bool skip_without_gpu = false;
  constexpr uint64_t kMaxSpecs = 100'000'000;
  po::options_description desc("atomstress selftest");
  desc.add_options()("help,h", "this help");
  add_backend_options(desc, backend_name, skip_without_gpu);
  desc.add_options()(
      "bugs", non_empty(&cfg.bugs)->default_value("buggy"), "which deliberately wrong entries (glob; weak_memory: the weak-memory bugs)")(
      "budget-s", seconds(nullptr, kMaxBudgetSeconds),
      "search time per bug in seconds, more than 0 and at most 3600 (absent: 10 s on cuda, 2 s on cpu)")(
      "correct-specs", bounded<uint64_t>(&correct_specs, 0, kMaxSpecs)->default_value(0),
      "generated specs over the correct single atomics (0: 10000 on cuda, 300 on cpu)")(
      "algo-specs", bounded<uint64_t>(&algo_specs, 0, kMaxSpecs)->default_value(0),
      "generated specs over the correct algorithms (0: 10000 on cuda, 300 on cpu)")(
      "rate-runs", bounded<uint32_t>(&cfg.rate_runs, 1, kMaxRuns)->default_value(20),
      "runs of a weak-memory bug's shrunk case (or, uncaught, a contended trial) to measure its failure rate, "
      "without and with stress")(
      "rates", po::bool_switch(&cfg.rates_for_every_bug),
      "measure every selected bug's failure rate without and with stress, not only the weak-memory ones' "
      "(a race the GPU rarely shows: its rate, reported honestly)")(
      "reruns", bounded<uint32_t>(&cfg.reruns, 1, 1000)->default_value(2), "runs per spec evaluation (1 to 1000)")(
      "seed", bounded<uint64_t>(&cfg.seed)->default_value(1), "campaign seed");
  add_report_options(desc, reports_asked);
  add_run_settings(desc, kCommandSelftest, cfg.run);
  const auto vm = parse_command(args, desc);
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  std::string note, error, why;
  if (skip_for_missing_gpu(backend_name, skip_without_gpu, note)) {
    reports::print("{}\n", note);
    return 77;
  }
  cfg.backend = resolve_backend(backend_name, note, error);
  if (!error.empty()) return usage_error(error);
  const bool cuda = cfg.backend == BackendKind::Cuda;
  cfg.budget_s = vm.count("budget-s") ? vm["budget-s"].as<double>() : cuda ? 10 : 2;
  cfg.correct_specs = correct_specs ? correct_specs : cuda ? 10000 : 300;
  cfg.algo_specs = algo_specs ? algo_specs : cuda ? 10000 : 300;
  if (match_impls(cfg.bugs).empty()) return usage_error("no implementation matches '" + cfg.bugs + "'");
  std::string rc_config;  // RapidCheck's configuration read before the campaigns (a bad RC_PARAMS: refused here)
  if (!fuzz::load_rapidcheck_configuration(rc_config, error)) return usage_error(error);

  reports::Multiplex printers;
  printers.add(std::make_unique<reports::SelftestPrinter>());
  if (!reports::add_report_printers(reports_asked.request(), printers, error)) return usage_error(error);
  printers.begin(run_header(command_line, cfg.backend));
  if (!note.empty()) printers.note(note);
  const int status = fuzz::run_selftest(cfg, printers);
  if (!printers.finish()) return usage_error(printers.error());
  return status;
}

}  // namespace atomstress::cli
