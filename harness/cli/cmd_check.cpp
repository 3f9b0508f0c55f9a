// atomstress check: every planned trial of the chosen implementations,
// reported through the printers (terminal lines, --json).
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include "fuzz/shrink_spec.hpp"
#include "harness/cli/check_concurrent.hpp"
#include "harness/cli/check_plan.hpp"
#include "harness/cli/commands.hpp"
#include "harness/pipeline/diagnose.hpp"
#include "harness/cli/options.hpp"
#include "harness/pipeline/footprint.hpp"
#include "harness/support/busy_time.hpp"
#include "reports/terminal.hpp"
#include "reports/text_printer.hpp"

#include <fmt/format.h>

namespace po = boost::program_options;

namespace atomstress::cli {

namespace {

// Every trial of the plan must fit the machine before the first one runs,
// `jobs` of them at once.
bool plan_fits(const CheckPlan& plan, size_t jobs, std::string& error) {
  MemoryBudget budget = memory_budget(plan.backend);
  budget.host /= jobs;
  if (budget.device_free) *budget.device_free /= jobs;
  for (const Entry* impl : plan.impls) {
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
reports::ShrunkCase shrink_failure(const CheckPlan& plan, const ImplSummary& sum) {
  fuzz::ShrinkConfig cfg;
  cfg.backend = plan.backend;
  cfg.run = plan.opt.run;
  cfg.max_seconds = plan.opt.shrink_s;
  const auto& f = sum.first_failure;
  reports::ShrunkCase c = fuzz::shrink_spec(f.spec, f.verdict, f.why(), cfg);
  c.knobs = plan.opt.run.knobs;
  return c;
}

// What an implementation's trials come to, printed in plan order.
struct Conclusion {
  const CheckPlan& plan;
  const CheckOptions& co;
  reports::Multiplex& printers;
  int status = 0;
  CheckTimes times;
  std::string fatal;  // the run stops: bad input
};

// Prints an implementation's summary (shrinking and diagnosing its
// failure) or why it was skipped.  False: the run stops (`fatal`).
bool conclude(Conclusion& c, const Entry& impl, ImplSummary&& sum) {
  const CheckPlan& plan = c.plan;
  if (impl.gpu_only && plan.backend == BackendKind::Cpu) {
    c.printers.record(reports::SkippedEntry{&impl, plan.backend, cpu_skip_reason(impl)});
    return true;
  }
  if (sum.verdict == Verdict::Error && sum.trials == 0 && plan.impls.size() > 1) {
    c.printers.record(reports::SkippedEntry{&impl, plan.backend, "no trial applies: " + sum.first_failure.why()});
    return true;
  }
  if (sum.verdict == Verdict::Error) {
    c.fatal = sum.first_failure.why();
    return false;
  }
  if (sum.verdict != Verdict::Pass && !c.co.no_shrink) sum.shrunk = shrink_failure(plan, sum);
  // The reported case's class: the shrunk one's, else the first failure's.
  if (sum.verdict != Verdict::Pass) {
    const auto& f = sum.first_failure;
    const TrialSpec& reported = sum.shrunk ? sum.shrunk->spec : f.spec;
    const Diagnosis d = diagnose(reported, f.verdict, f.finding, plan.backend, plan.opt.run);
    if (sum.shrunk) {
      sum.shrunk->diagnosis = d;
      settle_cause(d.cls, sum.shrunk->why);
      settle_cause(d.cls, sum.first_failure.finding.explanation);  // the case as found: the same bug
    } else {
      apply(d, sum.first_failure.finding);
    }
  }
  c.printers.record(sum);
  c.times.run_ms += sum.run_ms;
  c.times.check_ms += sum.check_ms;
  c.times.overlapped_ms += sum.check_overlapped_ms;
  if (sum.verdict != Verdict::Pass) c.status = 1;
  return true;
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
  // Automatic concurrency steps down to one trial at a time when the plan's
  // trials do not fit the machine several at once.
  size_t jobs = check_jobs(plan);
  if (jobs > 1 && co.jobs == 0 && !plan_fits(plan, jobs, error)) jobs = 1;
  if (!plan_fits(plan, jobs, error)) return usage_error(error);

  reports::Multiplex printers;
  printers.add(std::make_unique<reports::TextPrinter>(co.quiet, co.profile > 0));
  if (!reports::add_report_printers(reports_asked.request(), printers, error)) return usage_error(error);
  if (!plan.note.empty()) printers.note(plan.note);
  printers.begin(run_header(command_line, plan.backend));
  Conclusion c{plan, co, printers};
  const auto started = std::chrono::steady_clock::now();
  BusyTime busy;  // the reported trials' kernels, overlaps counted once
  const auto print_trial = [&](const Outcome& t) {
    busy.add(t.run_end_s, t.run_ms);
    printers.record(t);
  };
  if (jobs > 1) {
    run_impls_concurrently(plan, jobs, print_trial,
                           [&](const Entry& impl, ImplSummary&& sum) { return conclude(c, impl, std::move(sum)); });
  } else {
    for (const Entry* impl : plan.impls) {
      const bool runs = !(impl->gpu_only && plan.backend == BackendKind::Cpu);
      if (!conclude(c, *impl, runs ? run_impl(plan, *impl, print_trial) : ImplSummary{})) break;
    }
  }
  if (!c.fatal.empty()) {
    printers.finish();  // keep what was recorded
    return usage_error(c.fatal);
  }
  c.times.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  c.times.busy_ms = busy.ms();
  if (!co.quiet) printers.note(check_time_line(c.times, plan.backend, jobs));
  if (!printers.finish()) return usage_error(printers.error());
  return c.status;
}

}  // namespace atomstress::cli
