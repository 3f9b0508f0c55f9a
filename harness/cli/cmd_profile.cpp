// atomstress profile: throughput, noise and contention of entries over a
// sweep of named axes (the cross product of --k, --pattern, --grid,
// --block, --ops-per-thread, --space, --dist), in the manner of nvbench;
// reported through the printers (terminal table, Google Benchmark JSON,
// CSV, Markdown, an HTML page with SVG charts).  The axes and the
// measurement's options are shared with the benchmark wrapper
// (profile_sweep); the backend, the cpu backend's options and the reports
// are this command's own.
#include <cstdio>
#include <iostream>
#include <memory>

#include "harness/cli/commands.hpp"
#include "harness/cli/options.hpp"
#include "harness/cli/profile_sweep.hpp"
#include "harness/support/atomic_file.hpp"
#include "reports/csv_printer.hpp"
#include "reports/gbench_json_printer.hpp"
#include "reports/profile_html.hpp"
#include "reports/profile_markdown.hpp"
#include "reports/profile_table.hpp"

namespace po = boost::program_options;

namespace atomstress::cli {

namespace {

// "50 MiB": the size of what a cold measurement flushes.
std::string mebibytes(size_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g MiB", double(bytes) / double(1 << 20));
  return b;
}

}  // namespace

int cmd_profile(const std::vector<std::string>& args, const std::string& command_line) {
  SweepOptions o;
  std::string backend_name = "auto", json, csv, markdown, html;
  bool skip_without_gpu = false;
  po::options_description desc("atomstress profile");
  desc.add_options()("help,h", "this help")("backend", po::value<std::string>(&backend_name)->default_value("auto"),
                                           "cuda, cpu or auto");
  add_sweep_options(desc, o);
  desc.add_options()(
      "cpu-threads", bounded<uint32_t>(&o.run.cpu_threads, 1, kMaxCpuThreads)->default_value(4),
      "host threads of the cpu backend (1 to 256)")(
      "yield", bounded<uint32_t>(&o.run.yield_permille, 0, 1000)->default_value(0),
      "cpu backend: per mille chance of yielding at an interleaving point")(
      "json", non_empty(&json), "write Google Benchmark JSON to FILE")(
      "csv", non_empty(&csv), "write one CSV row per point to FILE")(
      "markdown", non_empty(&markdown), "write a Markdown report to FILE")(
      "html", non_empty(&html), "write an HTML page with SVG charts to FILE")(
      "skip-without-gpu", po::bool_switch(&skip_without_gpu),
      "exit 77 when no GPU is usable (with --backend cuda or auto)");
  const auto vm = parse_command(args, desc);
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  std::string error;
  Sweep sweep;
  if (!parse_sweep(o, sweep, error)) return usage_error(error);

  std::string note;
  if (skip_without_gpu && (backend_name == "cuda" || backend_name == "auto")) {
    std::string why;
    if (!cuda_available(why)) {
      std::printf("no usable GPU (%s): skipped\n", why.c_str());
      return 77;
    }
  }
  const BackendKind backend = resolve_backend(backend_name, note, error);
  if (!error.empty()) return usage_error(error);
  SweepPlan plan;
  if (!plan_sweep(sweep, backend, plan, error)) return usage_error(error);
  // Two reports naming one file would overwrite each other.
  if (!check_distinct({{"--json", json}, {"--csv", csv}, {"--markdown", markdown}, {"--html", html}}, {},
                            error))
    return usage_error(error);

  reports::Multiplex printers;
  printers.add(std::make_unique<reports::ProfileTablePrinter>());
  auto add_file = [&](const std::string& path, auto printer) {
    if (path.empty()) return true;
    if (!printer->opened()) return false;
    printers.add(std::move(printer));
    return true;
  };
  if (!add_file(json, std::make_unique<reports::GbenchJsonPrinter>(json)))
    return usage_error("cannot open '" + json + "' for writing");
  if (!add_file(csv, std::make_unique<reports::CsvPrinter>(csv)))
    return usage_error("cannot open '" + csv + "' for writing");
  if (!add_file(markdown, std::make_unique<reports::ProfileMarkdownPrinter>(markdown)))
    return usage_error("cannot open '" + markdown + "' for writing");
  if (!add_file(html, std::make_unique<reports::ProfileHtmlPrinter>(html)))
    return usage_error("cannot open '" + html + "' for writing");

  const bool cuda = backend == BackendKind::Cuda;
  printers.run_started({command_line, backend, cuda ? cuda_device_name() : "host"});
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
    printers.profile_point(point);
    if (point.verdict != Verdict::Pass) status = 1;  // a profile never hides a failure
  }
  if (!printers.finish()) return usage_error(printers.error());
  return status;
}

}  // namespace atomstress::cli
