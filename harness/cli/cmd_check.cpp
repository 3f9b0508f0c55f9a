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
#include "harness/pipeline/in_order_reports.hpp"
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
// same way (fuzz/shrink_spec.hpp), with the run's own options (`run`: its
// watchdogs grown where it runs beside other trials).
reports::ShrunkCase shrink_failure(const CheckPlan& plan, const RunOptions& run, const TrialSpec& spec, Verdict verdict,
                                   const std::string& why) {
  fuzz::ShrinkConfig cfg;
  cfg.backend = plan.backend;
  cfg.run = run;
  cfg.max_seconds = plan.opt.shrink_s;
  reports::ShrunkCase c = fuzz::shrink_spec(spec, verdict, why, cfg);
  c.knobs = plan.opt.run.knobs;
  return c;
}

// The distinct failure a diagnosis met: shrunk and classed on its own.
reports::ShrunkCase conclude_distinct(const CheckPlan& plan, bool shrink, const RunOptions& run,
                                      const DistinctFailure& found) {
  reports::ShrunkCase c;
  if (shrink) {
    c = shrink_failure(plan, run, found.spec, Verdict::Fail, found.why);
  } else {
    c.spec = found.spec;
    c.why = found.why;
    c.knobs = plan.opt.run.knobs;
  }
  Finding finding;
  c.diagnosis = diagnose(c.spec, Verdict::Fail, finding, plan.backend, run);
  c.diagnosis.distinct.reset();  // one level: a distinct failure's own is not chased
  if (c.diagnosis.cls == FailureClass::None) {  // it did not fail again: as the replay saw it
    c.diagnosis.cls = found.cls;
    c.diagnosis.trace = found.trace;
    c.diagnosis.inference = found.inference;
  }
  settle_cause(c.diagnosis.cls, c.why);
  return c;
}

// A failing implementation's conclusion: its failure shrunk, and the
// reported case's class (the shrunk one's, else the first failure's).
void conclude_failure(const CheckPlan& plan, bool shrink, const RunOptions& run, ImplSummary& sum) {
  const auto& f = sum.first_failure;
  if (shrink) sum.shrunk = shrink_failure(plan, run, f.spec, f.verdict, f.why());
  const TrialSpec& reported = sum.shrunk ? sum.shrunk->spec : f.spec;
  const Diagnosis d = diagnose(reported, f.verdict, f.finding, plan.backend, run);
  if (d.distinct) sum.distinct = conclude_distinct(plan, shrink, run, *d.distinct);
  if (sum.shrunk) {
    sum.shrunk->diagnosis = d;
    settle_cause(d.cls, sum.shrunk->why);
    settle_cause(d.cls, sum.first_failure.finding.explanation);  // the case as found: the same bug
  } else {
    apply(d, sum.first_failure.finding);
  }
}

// What an implementation's trials come to, printed in plan order.
struct Conclusion {
  const CheckPlan& plan;
  const CheckOptions& co;
  reports::Multiplex& printers;
  InOrderReports& reports;
  size_t background = 0;  // conclusions at work at once beside the trials
  int status = 0;
  CheckTimes times{};
  std::string fatal{};  // the run stops: bad input
};

// Records an implementation's summary (shrinking and diagnosing its failure:
// a crash's beside the later trials, with trials at once) or why it was
// skipped.  False: the run stops (`fatal`).
bool conclude(Conclusion& c, const Entry& impl, ImplSummary&& sum) {
  const CheckPlan& plan = c.plan;
  if (impl.gpu_only && plan.backend == BackendKind::Cpu) {
    c.reports.report([&c, &impl] {
      c.printers.record(reports::SkippedEntry{&impl, c.plan.backend, cpu_skip_reason(impl)});
    });
    return true;
  }
  if (sum.verdict == Verdict::Error && sum.trials == 0 && plan.impls.size() > 1) {
    c.reports.report([&c, &impl, why = sum.first_failure.why()] {
      c.printers.record(reports::SkippedEntry{&impl, c.plan.backend, "no trial applies: " + why});
    });
    return true;
  }
  if (sum.verdict == Verdict::Error) {
    c.reports.finish();  // what came before it is recorded
    c.fatal = sum.first_failure.why();
    return false;
  }
  auto concluded = std::make_shared<ImplSummary>(std::move(sum));
  auto record = [&c, concluded] {
    const ImplSummary& s = *concluded;
    c.printers.record(s);
    c.times.run_ms += s.run_ms;
    c.times.check_ms += s.check_ms;
    c.times.overlapped_ms += s.check_overlapped_ms;
    if (s.verdict != Verdict::Pass) c.status = 1;
  };
  if (concluded->verdict == Verdict::Pass) {
    c.reports.report(std::move(record));
    return true;
  }
  // Beside the later trials, it shares the GPU with their worker and the
  // other conclusions; in order, with the conclusions still at work.
  const bool beside = concluded_beside(concluded->verdict) && c.background > 0;
  const RunOptions run =
      shared_gpu_run(plan.opt.run, beside ? c.background : c.reports.working());
  c.reports.conclude([&plan, shrink = !c.co.no_shrink, run,
                      concluded] { conclude_failure(plan, shrink, run, *concluded); },
                     std::move(record), beside);
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
  // Crashes concluded beside the later trials run trials of their own:
  // where those do not fit too, every failure concludes in order.
  const size_t background =
      plan_fits(plan, jobs + background_conclusions(jobs), error) ? background_conclusions(jobs) : 0;

  reports::Multiplex printers;
  printers.add(std::make_unique<reports::TextPrinter>(co.quiet, co.profile > 0));
  if (!reports::add_report_printers(reports_asked.request(), printers, error)) return usage_error(error);
  if (!plan.note.empty()) printers.note(plan.note);
  printers.begin(run_header(command_line, plan.backend));
  InOrderReports in_order(background);
  Conclusion c{plan, co, printers, in_order, background};
  const auto started = std::chrono::steady_clock::now();
  BusyTime busy;  // the reported trials' kernels, overlaps counted once
  const auto print_trial = [&](const Outcome& t) {
    busy.add(t.run_end_s, t.run_ms);
    busy.add_own(t.device_check_end_s, t.device_check_ms);
    in_order.report([&printers, t] { printers.record(t); });
  };
  if (jobs > 1) {
    run_impls_concurrently(
        plan, jobs, print_trial,
        [&](const Entry& impl, ImplSummary&& sum) { return conclude(c, impl, std::move(sum)); },
        [&] { return in_order.working(); });
  } else {
    for (const Entry* impl : plan.impls) {
      const bool runs = !(impl->gpu_only && plan.backend == BackendKind::Cpu);
      if (!conclude(c, *impl, runs ? run_impl(plan, *impl, print_trial) : ImplSummary{})) break;
    }
  }
  in_order.finish();
  if (!c.fatal.empty()) {
    printers.finish();  // keep what was recorded
    return usage_error(c.fatal);
  }
  c.times.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  c.times.busy_ms = busy.ms();
  c.times.gpu_busy_ms = busy.gpu_ms();
  if (!co.quiet) printers.note(check_time_line(c.times, plan.backend, jobs));
  if (!printers.finish()) return usage_error(printers.error());
  return c.status;
}

}  // namespace atomstress::cli
