// atomstress check: every planned trial of the chosen implementations,
// reported through the printers (terminal lines, --json).
#include <chrono>

#include <fmt/format.h>

#include "reports/terminal.hpp"
#include <cstdio>
#include <iostream>
#include <memory>

#include "fuzz/shrink_spec.hpp"
#include "harness/cli/check_plan.hpp"
#include "harness/cli/commands.hpp"
#include "harness/pipeline/diagnose.hpp"
#include "harness/cli/options.hpp"
#include "harness/pipeline/footprint.hpp"
#include "reports/text_printer.hpp"

namespace po = boost::program_options;

namespace atomstress::cli {

namespace {

// Every trial of the plan must fit the machine before the first one runs.
bool plan_fits(const CheckPlan& plan, std::string& error) {
  const MemoryBudget budget = memory_budget(plan.backend);
  for (const ImplInfo* impl : plan.impls) {
    if (impl->gpu_only && plan.backend == BackendKind::Cpu) continue;
    for (Pattern p : plan.patterns)
      for (Space s : plan.spaces)
        for (uint32_t t = 0; t < plan.opt.trials; ++t) {
          const auto spec = plan_trial(plan, *impl, p, s, t);
          if (!spec) break;
          if (!footprint_fits(*spec, plan.backend, budget, error)) return false;
          // The trial's shape repeats every 4 trials (k, zipf, init vary by t % 4).
          if (t >= 4) break;
        }
  }
  return true;
}

// The first failure, shrunk: each smaller candidate rerun until it fails the
// same way (fuzz/shrink_spec.hpp), with the run's own options.
// Where the wall time went: on cuda, the run's share is the GPU's busy share
// (the code under test running); the rest is expansion, transfers, set-up,
// shrinking and isolation's round trips.
std::string time_split(double wall_ms, double run_ms, double check_ms, double overlapped_ms, BackendKind backend) {
  const double w = std::max(wall_ms, 1e-9);
  return fmt::format(
      "time: {:.2f} s wall; the code under test ran {:.2f} s ({:.0f}%{}), checking {:.2f} s ({:.0f}%; {:.2f} s of it "
      "while the next trial ran), the rest {:.2f} s (expansion, transfers, set-up, shrinking)",
      wall_ms / 1000, run_ms / 1000, 100 * run_ms / w, backend == BackendKind::Cuda ? ": the GPU's busy share" : "",
      check_ms / 1000, 100 * check_ms / w, overlapped_ms / 1000,
      std::max(0.0, wall_ms - run_ms - (check_ms - overlapped_ms)) / 1000);
}

reports::ShrunkCase shrink_failure(const CheckPlan& plan, const ImplSummary& sum) {
  fuzz::ShrinkConfig cfg;
  cfg.backend = plan.backend;
  cfg.run = plan.opt.run;
  cfg.max_seconds = plan.opt.shrink_s;
  const auto& f = sum.first_failure;
  reports::ShrunkCase c = fuzz::shrink_spec(f.spec, f.verdict, f.why(), cfg);
  c.knobs = knobs_of(plan.opt.run);
  return c;
}

}  // namespace

int cmd_check(const std::vector<std::string>& args, const std::string& command_line) {
  CheckOptions co;
  ReportOptions reports_asked(reports::kReportCheck);
  po::options_description desc("atomstress check");
  add_check_options(desc, co);
  add_report_options(desc, reports_asked);
  const auto vm = parse_command(args, desc);
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  read_check_options(vm, co);
  std::string error;
  CheckPlan plan;
  if (!make_plan(co, plan, error)) {
    if (error == "skip") {
      reports::print("{}\n", plan.note);
      return 77;
    }
    return usage_error(error);
  }
  if (!plan_fits(plan, error)) return usage_error(error);

  reports::Multiplex printers;
  printers.add(std::make_unique<reports::TextPrinter>(co.quiet, co.profile > 0));
  if (!reports::add_report_printers(reports_asked.request(), printers, error)) return usage_error(error);
  if (!plan.note.empty()) printers.note(plan.note);
  printers.begin(run_header(command_line, plan.backend));
  int status = 0;
  const auto started = std::chrono::steady_clock::now();
  double run_ms = 0, check_ms = 0, overlapped_ms = 0;
  for (const ImplInfo* impl : plan.impls) {
    if (impl->gpu_only && plan.backend == BackendKind::Cpu) {
      printers.record(reports::SkippedEntry{impl, plan.backend, cpu_skip_reason(*impl)});
      continue;
    }
    ImplSummary sum = run_impl(plan, *impl, [&](const TrialOutcome& t) { printers.record(t); });
    if (sum.verdict == Verdict::Error && sum.trials == 0 && plan.impls.size() > 1) {
      printers.record(reports::SkippedEntry{impl, plan.backend, "no trial applies: " + sum.first_failure.why()});
      continue;
    }
    if (sum.verdict == Verdict::Error) {
      printers.finish();  // keep what was recorded
      return usage_error(sum.first_failure.why());
    }
    if (sum.verdict != Verdict::Pass && !co.no_shrink) sum.shrunk = shrink_failure(plan, sum);
    // The reported case's class: the shrunk one's, else the first failure's.
    if (sum.verdict != Verdict::Pass) {
      const auto& f = sum.first_failure;
      const TrialSpec& reported = sum.shrunk ? sum.shrunk->spec : f.spec;
      const Diagnosis d = diagnose(reported, f.verdict, f.finding, plan.backend, plan.opt.run);
      if (sum.shrunk) sum.shrunk->diagnosis = d;
      else apply(d, sum.first_failure.finding);
    }
    printers.record(sum);
    run_ms += sum.run_ms;
    check_ms += sum.check_ms;
    overlapped_ms += sum.check_overlapped_ms;
    if (sum.verdict != Verdict::Pass) status = 1;
  }
  const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  if (!co.quiet) printers.note(time_split(wall_ms, run_ms, check_ms, overlapped_ms, plan.backend));
  if (!printers.finish()) return usage_error(printers.error());
  return status;
}

}  // namespace atomstress::cli
