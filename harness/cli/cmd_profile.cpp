// atomstress profile: throughput, noise and contention of entries over a
// sweep of named axes (the cross product of --k, --pattern, --grid,
// --block, --ops-per-thread, --space, --dist), in the manner of nvbench;
// reported through the printers (terminal table, Google Benchmark JSON,
// CSV, Markdown, an HTML page with SVG charts).  The axes and the
// measurement's options are shared with the benchmark wrapper
// (profile_sweep); the backend, the cpu backend's options and the reports
// are this command's own.
#include <cstdio>

#include <fmt/format.h>

#include "reports/terminal.hpp"
#include <iostream>
#include <memory>

#include "harness/support/atomic_file.hpp"
#include "harness/support/timestamp.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/options.hpp"
#include "harness/cli/profile_sweep.hpp"
#include "reports/profile_table.hpp"

namespace po = boost::program_options;

namespace atomstress::cli {

namespace {

// "50 MiB": the size of what a cold measurement flushes.
std::string mebibytes(size_t bytes) {
  return fmt::format("{:.3g} MiB", double(bytes) / double(1 << 20));
}

}  // namespace

int cmd_profile(const std::vector<std::string>& args, const std::string& command_line) {
  SweepOptions o;
  std::string backend_name = "auto";
  ReportOptions reports_asked(reports::kReportProfile);
  bool skip_without_gpu = false;
  po::options_description desc("atomstress profile");
  desc.add_options()("help,h", "this help");
  add_backend_options(desc, backend_name, skip_without_gpu);
  add_sweep_options(desc, o);
  add_report_options(desc, reports_asked);
  const auto vm = parse_command(args, desc);
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  std::string error;
  Sweep sweep;
  if (!parse_sweep(o, sweep, error)) return usage_error(error);

  std::string note;
  if (skip_for_missing_gpu(backend_name, skip_without_gpu, note)) {
    reports::print("{}\n", note);
    return 77;
  }
  const BackendKind backend = resolve_backend(backend_name, note, error);
  if (!error.empty()) return usage_error(error);
  SweepPlan plan;
  if (!plan_sweep(sweep, backend, plan, error)) return usage_error(error);
  // Two reports naming one file would overwrite each other.
  if (!check_distinct(reports::report_files(reports_asked.request()), {}, error))
    return usage_error(error);

  reports::Multiplex printers;
  printers.add(std::make_unique<reports::ProfileTablePrinter>());
  if (!reports::add_report_printers(reports_asked.request(), printers, error)) return usage_error(error);

  const bool cuda = backend == BackendKind::Cuda;
  printers.begin(run_header(command_line, backend));
  if (!note.empty()) printers.note(note);
  if (o.baseline && !cuda) printers.note("baseline: skipped on the cpu backend (the bare kernels are CUDA kernels)");
  // Accepted, not refused, on cpu: the same command line then runs in CPU
  // CI and on a GPU machine (and with --backend auto on either).
  if (o.cold)
    printers.note(cuda ? "cold: L2 (" + mebibytes(cuda_l2_bytes()) +
                             ") flushed before each timed launch, outside the timed region"
                       : "cold: ignored on the cpu backend (it flushes the GPU's L2)");
  for (const auto& s : plan.skipped) printers.note("not applicable: " + s);
  if (plan.specs.empty()) {
    printers.finish();
    return usage_error("no point of the sweep applies to the chosen entries");
  }

  int status = 0;
  for (const auto& spec : plan.specs) {
    ProfilePoint point;
    if (!profile_point(spec, plan.settings, point, error)) {
      printers.finish();  // keep what was measured
      return usage_error(spec.impl + ": " + error);
    }
    if (!point.not_applicable.empty()) {
      printers.note("not applicable: " + spec.impl + ": " + point.not_applicable);
      continue;
    }
    printers.record(point);
    if (point.verdict != Verdict::Pass) status = 1;  // a profile never hides a failure
  }
  if (!printers.finish()) return usage_error(printers.error());
  return status;
}

}  // namespace atomstress::cli
