// atomstress repro TOKEN [--runs N] [--shrink] [--trace]: reruns a failure's
// token with the options it carries and reports its failure rate and
// reproducibility score, and a failure's class; --shrink then shrinks the
// case; --trace prints the case replayed alone as a table (a kernel entry's
// case as it ran: draws, launches, buffers, the oracle's window);
// --sanitize reruns under compute-sanitizer.  TOKEN may also name a fuzz
// corpus file (its token line is replayed).
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "reports/terminal.hpp"
#include <iostream>
#include <memory>

#include "fuzz/corpus.hpp"
#include "fuzz/shrink_spec.hpp"
#include "harness/cli/commands.hpp"
#include "harness/cli/options.hpp"
#include "harness/pipeline/diagnose.hpp"
#include "harness/pipeline/execute_trial.hpp"
#include "harness/pipeline/footprint.hpp"
#include "harness/registry/registry.hpp"
#include "reports/repro_command.hpp"
#include "reports/text_printer.hpp"

namespace po = boost::program_options;

namespace atomstress::cli {

namespace {

// TOKEN may name a fuzz corpus file: its token line.  What is shaped like
// a token ("as2.…") and names no file is a token, malformed or not (a '/'
// in a field is a malformed token, not a missing file); anything else that
// names a path (there or not) is a case file to read.
bool token_of(std::string& token, std::string& error) {
  const bool looks_like_token = token.size() > 4 && token.rfind("as", 0) == 0 && token[3] == '.';
  std::error_code ec;
  const bool path_like = token.find('/') != std::string::npos ||
                         (token.size() > 5 && token.compare(token.size() - 5, 5, ".case") == 0);
  if (!std::filesystem::exists(token, ec) && (looks_like_token || !path_like)) return true;
  const auto c = fuzz::read_case(token, error);
  if (!c) return false;
  token = c->token;
  return true;
}

// The reruns' tally: the summary, and the first failure as found.
struct Reruns {
  reports::ReproSummary sum;
  Verdict first_verdict = Verdict::Pass;
  FailureClass first_class = FailureClass::None;
  std::string first_why;
  std::optional<std::string> refused;  // a run that could not run: the same for every run
};

// The runs pipelined (each judged while the next runs), in order.
Reruns rerun(const TrialSpec& spec, uint32_t runs, BackendKind backend, const RunOptions& opt,
             reports::Printer& printers) {
  Reruns out;
  out.sum.spec = spec;
  out.sum.runs = runs;
  const std::vector<TrialSpec> copies(runs, spec);
  uint32_t r = 0;
  execute_sequence(copies, {backend, opt, 0, false}, [&](Outcome&& t) {
    ++r;
    if (out.refused) return;
    if (t.verdict == Verdict::Error) {
      out.refused = t.why();
      return;
    }
    printers.record(t);
    if (t.verdict == Verdict::Pass) return;
    if (out.sum.failures++ > 0) return;
    out.sum.first_failed_run = r;
    out.sum.first_why = std::string(to_string(t.verdict)) + ": " + t.why();
    out.first_verdict = t.verdict;
    out.first_why = t.why();
    out.first_class = t.finding.cls;
  });
  return out;
}

// A failure's class, and what its replay alone shows (pipeline/diagnose.hpp).
Diagnosis diagnose_reruns(const TrialSpec& spec, const Reruns& reruns, BackendKind backend, const RunOptions& opt) {
  Finding f;
  f.cls = reruns.first_class;
  return diagnose(spec, reruns.first_verdict, f, backend, opt);
}
void note_class(const Diagnosis& d, reports::Printer& printers) {
  printers.note(fmt::format("class: {} ({})", to_string(d.cls), describe(d.cls)));
  for (const auto& t : d.trace) printers.note("alone, in program order: " + t);
  if (!d.inference.empty()) printers.note(d.inference);
}

bool is_kernel_entry(const TrialSpec& spec) {
  const Entry* e = find_impl(spec.impl);
  return e && atomstress::is_kernel_entry(*e);
}

// Rows of each buffer a kernel case's table shows.
constexpr uint32_t kKernelTraceRows = 8;

// --trace of a kernel entry: the case as it ran (its geometry, not alone:
// a kernel is not a list of ops), as a table: what it drew, each launch's
// geometry, each buffer's first elements, the oracle's window onto the
// first difference (harness/kernel/case_table.hpp).
void note_kernel_trace(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, reports::Printer& printers) {
  RunOptions traced = opt;
  traced.policy.trace_rows = kKernelTraceRows;
  const Outcome o = execute_trial(spec, backend, traced);
  if (o.trace_table.empty()) {
    printers.note("trace: " + (o.verdict == Verdict::Error ? o.why() : "the case recorded no table (" + o.why() + ")"));
    return;
  }
  printers.note(fmt::format("the case, as it ran ({}{}):", to_string(o.verdict),
                            o.verdict == Verdict::Pass ? "" : ": " + o.why()));
  for (const auto& row : o.trace_table) printers.note("  " + row);
}

// --trace: the case replayed alone, one op at a time, as a table.
void note_trace(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, reports::Printer& printers) {
  if (is_kernel_entry(spec)) return note_kernel_trace(spec, backend, opt, printers);
  RunOptions seq = opt;
  seq.policy.sequential = true;
  seq.policy.checker = CheckerKind::Cpu;
  seq.policy.trace_rows = 256;
  const Outcome alone = execute_trial(spec, backend, seq);
  if (alone.trace_table.empty())
    printers.note("trace: " + (alone.verdict == Verdict::Error
                                   ? alone.why()
                                   : fmt::format("a table is kept for single atomics only ({} alone: {})",
                                                 to_string(alone.verdict), alone.why())));
  else
    printers.note(fmt::format("the case alone, one op at a time in program order ({}):", to_string(alone.verdict)));
  for (const auto& row : alone.trace_table) printers.note(row);
}

// --shrink of a failing case, keeping its rate when it passed a run.
void note_shrunk(const TrialSpec& spec, const Reruns& reruns, FailureClass cls, double shrink_s, BackendKind backend,
                 const RunOptions& opt, reports::Printer& printers) {
  fuzz::ShrinkConfig cfg;
  cfg.backend = backend;
  cfg.run = opt;
  cfg.max_seconds = shrink_s;
  cfg.by_rate = reruns.sum.failures < reruns.sum.runs;
  auto r = fuzz::shrink_spec(spec, reruns.first_verdict, reruns.first_why, cfg);
  settle_cause(cls, r.why);
  printers.note(fmt::format("shrunk: {} ({} smaller cases tried, {} accepted, {:.1f} s{}; failed {} of {} reruns)",
                            describe(r.spec), r.candidates, r.steps, r.seconds,
                            r.timed_out ? ", stopped at --shrink-time" : "", r.rate_failures, r.rate_runs));
  printers.note("  " + r.why);
  printers.note("  repro: " + reports::repro_command(encode_token(r.spec, opt.knobs), backend));
}

}  // namespace

int cmd_repro(const std::vector<std::string>& args, const std::string& command_line) {
  po::options_description desc("atomstress repro TOKEN");
  std::string token, backend_name = "auto";
  ReportOptions reports_asked(reports::kReportRepro);
  bool skip_without_gpu = false;
  uint32_t runs = 10;
  double shrink_s = 60;
  RunOptions opt;
  desc.add_options()("help,h", "this help")("token", po::value<std::string>(&token), "reproduction token")(
      "runs", bounded<uint32_t>(&runs, 1, kMaxRuns)->default_value(10), "times to rerun");
  add_backend_options(desc, backend_name, skip_without_gpu);
  add_run_settings(desc, kCommandRepro, opt);
  std::string sanitize;
  add_sanitize_option(desc, sanitize);
  desc.add_options()(
      "shrink", "after the reruns, shrink a failing case (and print its token)")(
      "trace", "replay the case alone, one op at a time in program order, and print its history as a table: "
               "op, block, thread, address, operands, returned and stored values, what the spec returns and stores. "
               "A kernel entry's case prints as it ran: its draws, each launch's geometry, each buffer's first "
               "elements and the oracle's expected and got around the first difference")(
      "shrink-time", seconds(&shrink_s, kMaxBudgetSeconds)->default_value(60),
      "seconds the shrinking may take, more than 0 and at most 3600");
  add_report_options(desc, reports_asked);
  po::positional_options_description pos;
  pos.add("token", 1);
  const auto vm = parse_command(args, desc, &pos);
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  if (token.empty()) return usage_error("repro needs a reproduction token");
  std::string error, note;
  if (skip_for_missing_gpu(backend_name, skip_without_gpu, note)) {
    reports::print("{}\n", note);
    return 77;
  }
  if (!token_of(token, error)) return usage_error(error);
  auto decoded = decode_repro_token(token, error);
  if (!decoded) return usage_error(error);
  const TrialSpec& spec = decoded->spec;
  // The token's own options, unless the command line names them.
  if (decoded->knobs) {
    const RunOptions given = opt;
    opt.knobs = *decoded->knobs;
    keep_given_settings(vm, given, opt);
  }
  const BackendKind backend = resolve_backend(backend_name, note, error);
  if (!error.empty()) return usage_error(error);
  if (!apply_sanitize_option(sanitize, backend, opt, error)) return usage_error(error);
  if (!footprint_fits(spec, backend, error)) return usage_error(error);

  reports::Multiplex printers;
  printers.add(std::make_unique<reports::TextPrinter>(false, false));
  if (!reports::add_report_printers(reports_asked.request(), printers, error)) return usage_error(error);
  printers.begin(run_header(command_line, backend));
  if (!note.empty()) printers.note(note);
  printers.note("repro: " + describe(spec));
  if (!decoded->tool_version.empty() && decoded->tool_version != tool_version())
    printers.note("the token was written by atomstress " + decoded->tool_version + ", this is " + tool_version());
  Reruns reruns = rerun(spec, runs, backend, opt, printers);
  if (reruns.refused) {
    printers.finish();
    return usage_error(*reruns.refused);
  }
  // The class first: a failure wrong alone is not told as a lost update.
  std::optional<Diagnosis> d;
  if (reruns.sum.failures > 0) {
    d = diagnose_reruns(spec, reruns, backend, opt);
    settle_cause(d->cls, reruns.sum.first_why);
    settle_cause(d->cls, reruns.first_why);
  }
  printers.record(reruns.sum);
  if (d) note_class(*d, printers);
  if (vm.count("trace")) note_trace(spec, backend, opt, printers);
  if (vm.count("shrink") && d) note_shrunk(spec, reruns, d->cls, shrink_s, backend, opt, printers);
  else if (vm.count("shrink")) printers.note("shrink: nothing to shrink, no run failed");
  if (!printers.finish()) return usage_error(printers.error());
  return reruns.sum.failures ? 1 : 0;
}

}  // namespace atomstress::cli
