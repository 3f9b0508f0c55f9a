// atomstress profile: throughput, noise and contention of entries over a
// sweep of named axes (the cross product of --k, --pattern, --grid,
// --block, --ops-per-thread, --space, --dist), in the manner of nvbench;
// reported through the printers (terminal table, Google Benchmark JSON,
// CSV, Markdown, an HTML page with SVG charts).  The axes and the
// measurement's options are shared with the benchmark wrapper
// (profile_sweep); the backend, the cpu backend's options and the reports
// are this command's own.
#include <algorithm>
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
#include "harness/registry/registry.hpp"
#include "reports/profile_table.hpp"

namespace po = boost::program_options;

namespace atomstress::cli {

namespace {

// "50 MiB": the size of what a cold measurement flushes.
std::string mebibytes(size_t bytes) {
  return fmt::format("{:.3g} MiB", double(bytes) / double(1 << 20));
}

// What the sweep leaves out, before the points: entries the backend cannot
// run (SKIP, as in check), combinations an entry refuses, and what a kernel
// entry's points measure.
void note_plan(const SweepPlan& plan, BackendKind backend, reports::Multiplex& printers) {
  for (const auto& s : plan.skipped_impls)
    printers.note(fmt::format("SKIP  {:<32} {:<4}  {}", s.impl->name, to_string(backend), s.why));
  for (const auto& s : plan.skipped) printers.note("not applicable: " + s);
  const bool kernels = std::any_of(plan.specs.begin(), plan.specs.end(), [](const TrialSpec& spec) {
    const Entry* e = find_impl(spec.impl);
    return e && is_kernel_entry(*e);
  });
  if (kernels)
    printers.note(
        "kernel entries: time per launch (us; summed over the launches their property makes), each launch timed "
        "from the buffers' state before it; the instrumented pass (retries, cycles, hot addresses) does not apply "
        "to them, and their verdict is their property's oracle on the timed runs");
}

// Measures and records every point; the exit status (1: a point failed).
// A kernel that faulted or hung leaves this process's CUDA context lost:
// the sweep stops there, saying so.  False with `error`: a point could not run.
bool run_points(const SweepPlan& plan, reports::Multiplex& printers, int& status, std::string& error) {
  status = 0;
  for (const auto& spec : plan.specs) {
    ProfilePoint point;
    if (!profile_point(spec, plan.settings, point, error)) {
      error = spec.impl + ": " + error;
      return false;
    }
    if (!point.not_applicable.empty()) {
      printers.note("not applicable: " + spec.impl + ": " + point.not_applicable);
      continue;
    }
    printers.record(point);
    if (point.verdict != Verdict::Pass) status = 1;  // a profile never hides a failure
    std::string lost;
    if (plan.settings.backend == BackendKind::Cuda && cuda_context_lost(lost) && &spec != &plan.specs.back()) {
      printers.note("the sweep stops after " + point.name() + ": the CUDA context is lost (" + lost +
                    "); profile the other points in a new run");
      break;
    }
  }
  return true;
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
  note_plan(plan, backend, printers);
  if (plan.specs.empty()) {
    printers.finish();
    // Every entry SKIPped (kernel entries on cpu): as check, not an error.
    if (!plan.skipped_impls.empty() && plan.skipped_impls.size() == sweep.impls.size()) return 0;
    return usage_error("no point of the sweep applies to the chosen entries");
  }
  int status = 0;
  if (!run_points(plan, printers, status, error)) {
    printers.finish();  // keep what was measured
    return usage_error(error);
  }
  if (!printers.finish()) return usage_error(printers.error());
  return status;
}

}  // namespace atomstress::cli
