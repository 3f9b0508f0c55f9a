// atomstress repro TOKEN [--runs N]: reruns a failure's token and reports
// its failure rate and reproducibility score.  TOKEN may also name a fuzz
// corpus file (its token line is replayed).
#include <filesystem>
#include <iostream>
#include <memory>

#include "fuzz/corpus.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/options.hpp"
#include "harness/pipeline/execute_trial.hpp"
#include "harness/pipeline/footprint.hpp"
#include "reports/jsonl_printer.hpp"
#include "reports/text_printer.hpp"

namespace po = boost::program_options;

namespace atomstress::cli {

int cmd_repro(const std::vector<std::string>& args, const std::string& command_line) {
  po::options_description desc("atomstress repro TOKEN");
  std::string token, backend_name = "auto", json_path;
  uint32_t runs = 10;
  RunOptions opt;
  desc.add_options()("help,h", "this help")("token", po::value<std::string>(&token), "reproduction token")(
      "runs", bounded<uint32_t>(&runs, 1, kMaxRuns)->default_value(10), "times to rerun")(
      "backend", po::value<std::string>(&backend_name)->default_value("auto"), "cuda, cpu or auto")(
      "budget", bounded<uint32_t>(&opt.retry_budget)->default_value(1u << 20), "retries per op")(
      "watchdog-ms", bounded<uint64_t>(&opt.watchdog_ms, 0, kMaxWatchdogMs)->default_value(0),
      "per-run watchdog, at most 3600000 (0: automatic)")(
      "cpu-threads", bounded<uint32_t>(&opt.cpu_threads, 1, kMaxCpuThreads)->default_value(4),
      "cpu backend threads (1 to 256)")(
      "isolate", isolation(&opt.isolate), kIsolationHelp)(
      "json", non_empty(&json_path), "append one JSON line per run to FILE");
  po::positional_options_description pos;
  pos.add("token", 1);
  const auto vm = parse_command(args, desc, &pos);
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  if (token.empty()) return usage_error("repro needs a reproduction token");
  std::string error, note;
  if (std::filesystem::is_regular_file(token)) {
    const auto c = fuzz::read_case(token, error);
    if (!c) return usage_error(error);
    token = c->token;
  }
  auto spec = decode_token(token, error);
  if (!spec) return usage_error(error);
  const BackendKind backend = resolve_backend(backend_name, note, error);
  if (!error.empty()) return usage_error(error);
  if (!footprint_fits(*spec, backend, error)) return usage_error(error);

  reports::Multiplex printers;
  printers.add(std::make_unique<reports::TextPrinter>(false, false));
  if (!json_path.empty()) {
    auto json = std::make_unique<reports::JsonlPrinter>(json_path);
    if (!json->opened()) return usage_error("cannot open '" + json_path + "' for appending");
    printers.add(std::move(json));
  }
  printers.run_started({command_line, backend, backend == BackendKind::Cuda ? cuda_device_name() : "host"});
  if (!note.empty()) printers.note(note);
  printers.note("repro: " + describe(*spec));
  reports::ReproSummary sum;
  sum.spec = *spec;
  sum.runs = runs;
  for (uint32_t r = 0; r < runs; ++r) {
    const TrialOutcome t = execute_trial(*spec, backend, opt);
    if (t.verdict == Verdict::Error) {
      printers.finish();
      return usage_error(t.why());
    }
    printers.trial(t);
    if (t.verdict != Verdict::Pass) {
      if (sum.failures == 0) {
        sum.first_failed_run = r + 1;
        sum.first_why = std::string(to_string(t.verdict)) + ": " + t.why();
      }
      ++sum.failures;
    }
  }
  printers.repro(sum);
  if (!printers.finish()) return usage_error(printers.error());
  return sum.failures ? 1 : 0;
}

}  // namespace atomstress::cli
