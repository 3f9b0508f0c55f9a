// atomstress selftest: the property campaign against every deliberately
// wrong implementation (caught or not, time to catch, shrunk case, repro
// line, mutation score), the same campaign over the correct catalogue (no
// false failures allowed), and the differential properties.
#include <boost/program_options.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "campaign.hpp"
#include "reports/jsonl.hpp"

namespace po = boost::program_options;

namespace atomstress {

namespace {

// A bug the hardware may never show (a lock with no fences): run a small and
// a contended trial `runs` times each and report how often data was lost.
void report_rate(const ImplInfo& impl, BackendKind backend, const RunOptions& run, uint32_t runs, uint64_t seed) {
  const bool cuda = backend == BackendKind::Cuda;
  const uint32_t wide = cuda ? uint32_t(std::max(1, cuda_sm_count())) : 4;
  for (auto [grid, block] : {std::pair<uint32_t, uint32_t>{2, 8}, std::pair<uint32_t, uint32_t>{wide, 64}}) {
    TrialSpec spec;
    spec.impl = impl.name;
    spec.grid = grid;
    spec.block = block;
    spec.ops_per_thread = 1;
    spec.pattern = Pattern::Single;
    spec.dist = Dist::Full;
    uint32_t lost = 0, other = 0;
    std::string first;
    for (uint32_t r = 0; r < runs; ++r) {
      spec.seed = seed + r;
      const TrialOutcome t = run_trial(spec, backend, run);
      if (t.verdict == Verdict::Fail && lost++ == 0) first = t.why();
      if (t.verdict == Verdict::Hang || t.verdict == Verdict::Error) ++other;
    }
    std::printf("      observed rate, %u x %u x 1 on one lock: data lost in %u of %u runs%s\n", grid, block, lost, runs,
                other ? (" (" + std::to_string(other) + " runs hung)").c_str() : "");
  }
}

}  // namespace

int cmd_selftest(const std::vector<std::string>& args) {
  std::string backend_name = "auto", bugs = "buggy", json_path;
  double budget_s = 0;
  uint64_t correct_specs = 0, algo_specs = 0, seed = 1;
  uint32_t rate_runs = 20;
  uint32_t reruns = 2;
  bool skip_without_gpu = false;
  RunOptions run;
  po::options_description desc("atomstress selftest");
  desc.add_options()("help,h", "this help")("backend", po::value(&backend_name)->default_value("auto"), "cuda, cpu or auto")(
      "bugs", po::value(&bugs)->default_value("buggy"), "which deliberately wrong implementations (glob)")(
      "budget-s", po::value(&budget_s)->default_value(0), "search time per bug (0: 10 s on cuda, 2 s on cpu)")(
      "correct-specs", po::value(&correct_specs)->default_value(0),
      "generated specs over the correct single atomics (0: 10000 on cuda, 300 on cpu)")(
      "algo-specs", po::value(&algo_specs)->default_value(0),
      "generated specs over the correct algorithms (0: 10000 on cuda, 300 on cpu)")(
      "rate-runs", po::value(&rate_runs)->default_value(20),
      "runs of a contended trial to measure the failure rate of a bug the hardware may not show")(
      "reruns", po::value(&reruns)->default_value(2), "runs per spec evaluation")(
      "seed", po::value(&seed)->default_value(1), "campaign seed")(
      "watchdog-ms", po::value(&run.watchdog_ms)->default_value(0), "per-trial watchdog (0: automatic)")(
      "json", po::value(&json_path), "append one JSON line per bug to FILE")(
      "skip-without-gpu", po::bool_switch(&skip_without_gpu), "exit 77 when no GPU is usable");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  std::string note, error, why;
  if (skip_without_gpu && backend_name == "cuda" && !cuda_available(why)) {
    std::printf("no usable GPU (%s): skipped\n", why.c_str());
    return 77;
  }
  const BackendKind backend = resolve_backend(backend_name, note, error);
  if (!error.empty()) {
    std::fprintf(stderr, "atomstress: error: %s\n", error.c_str());
    return 2;
  }
  const bool cuda = backend == BackendKind::Cuda;
  if (budget_s <= 0) budget_s = cuda ? 10 : 2;
  if (correct_specs == 0) correct_specs = cuda ? 10000 : 300;
  if (algo_specs == 0) algo_specs = cuda ? 10000 : 300;
  const auto targets = match_impls(bugs);
  if (targets.empty()) {
    std::fprintf(stderr, "atomstress: error: no implementation matches '%s'\n", bugs.c_str());
    return 2;
  }
  reports::JsonLines json(json_path);
  if (!json.ok()) {
    std::fprintf(stderr, "atomstress: error: cannot open '%s' for appending\n", json_path.c_str());
    return 2;
  }
  if (!note.empty()) std::printf("%s\n", note.c_str());
  std::printf("selftest on %s: %.1f s search budget per bug, %u runs per spec\n\n", to_string(backend), budget_s, reruns);
  std::printf("%-32s %-6s %-5s %9s %6s  %-26s %s\n", "implementation", "caught", "how", "to catch", "specs",
              "shrunk: grid x block x ops", "rate of shrunk case");
  uint32_t caught = 0;
  std::vector<double> times;
  size_t counted = 0;
  for (const ImplInfo* impl : targets) {
    if (impl->needs_gpu && !cuda) {
      std::printf("%-32s %-6s (needs a GPU: not counted on the cpu backend)\n", impl->name, "n/a");
      continue;
    }
    if (!impl->rate_only) ++counted;
    fuzz::CampaignConfig cfg;
    cfg.gen = properties::default_config(backend, {impl});
    cfg.run = run;
    cfg.budget_s = budget_s;
    cfg.reruns = reruns;
    cfg.seed = seed;
    const auto r = fuzz::run_campaign(cfg);
    if (r.verdict == Verdict::Error) {
      std::fprintf(stderr, "atomstress: error: %s: %s\n", impl->name, r.why.c_str());
      return 2;
    }
    char shrunk[64] = "-", rate[64] = "-", when[32] = "-";
    if (r.found && !impl->rate_only) {
      ++caught;
      times.push_back(r.time_to_catch_s);
    }
    if (r.found) {
      std::snprintf(shrunk, sizeof shrunk, "%u x %u x %u = %llu ops", r.shrunk.grid, r.shrunk.block,
                    r.shrunk.ops_per_thread, (unsigned long long)r.shrunk.ops());
      std::snprintf(rate, sizeof rate, "%u/%u%s", r.rate_failures, r.rate_runs, r.flaky ? " (flaky)" : "");
      std::snprintf(when, sizeof when, "%.3f s", r.time_to_catch_s);
    }
    std::printf("%-32s %-6s %-5s %9s %6llu  %-26s %s\n", impl->name,
                r.found ? "yes" : impl->rate_only ? "unseen" : "NO",
                r.found ? to_string(r.verdict) : "-", when, (unsigned long long)r.specs, shrunk, rate);
    if (r.found) {
      std::printf("      %s\n      repro: atomstress repro %s --backend %s\n", r.why.c_str(),
                  encode_token(r.shrunk).c_str(), to_string(backend));
      TrialOutcome t;
      t.spec = r.shrunk;
      t.backend = backend;
      t.verdict = r.verdict;
      t.finding.explanation = r.why;
      t.ops = r.shrunk.ops();
      json.write(t, encode_token(r.shrunk));
    }
    if (impl->rate_only) report_rate(*impl, backend, run, rate_runs, seed);
    std::fflush(stdout);
  }
  std::sort(times.begin(), times.end());
  const double median = times.empty() ? 0 : times[times.size() / 2];
  std::printf("\nmutation score: %u/%zu caught (%.0f%%), median time to catch %.3f s\n", caught, counted,
              counted ? 100.0 * caught / counted : 0.0, median);

  // No false failures: the same campaign over the correct catalogue, its
  // single atomics and its algorithms.
  bool false_failure = false;
  for (const auto& [which, specs] : {std::pair<const char*, uint64_t>{"atomics", correct_specs},
                                     std::pair<const char*, uint64_t>{"algorithms", algo_specs}}) {
    fuzz::CampaignConfig cc;
    cc.gen = properties::default_config(backend, match_impls(which));
    cc.run = run;
    cc.budget_s = 1e9;
    cc.max_specs = specs;
    cc.reruns = 1;
    cc.seed = seed + 1000;
    const auto rc = fuzz::run_campaign(cc);
    std::printf("correct %-10s (%2zu entries): %llu generated specs, %s (%.1f s)\n", which, cc.gen.impls.size(),
                (unsigned long long)rc.specs,
                rc.found ? (rc.verdict == Verdict::Error ? "ERROR (an invalid spec was generated)" : "FALSE FAILURE")
                         : "no failure",
                rc.total_s);
    if (rc.found) {
      false_failure = true;
      std::printf("      %s\n      repro: atomstress repro %s --backend %s\n", rc.why.c_str(),
                  encode_token(rc.shrunk).c_str(), to_string(backend));
    }
  }

  // Differential properties, both memory spaces, with specials.
  bool diff_ok = true;
  for (const auto& pair : properties::differential_pairs()) {
    uint64_t agreed = 0, predicted = 0;
    for (Space space : {Space::Global, Space::Shared}) {
      for (uint64_t s = 0; s < 8; ++s) {
        const auto d = properties::differential(pair, backend, space, seed * 100 + s, 2048, 300);
        agreed += d.agreed;
        predicted += d.predicted;
        if (!d.ok) {
          diff_ok = false;
          std::printf("differential %s vs %s (%s): MISMATCH: %s\n", pair.emulated, pair.native, to_string(space),
                      d.why.c_str());
          break;
        }
      }
    }
    std::printf("differential %-18s vs %-16s agreed on %6llu ops, differed as the specs predict on %5llu\n",
                pair.emulated, pair.native, (unsigned long long)agreed, (unsigned long long)predicted);
  }
  const bool ok = caught == counted && !false_failure && diff_ok;
  return ok ? 0 : 1;
}

}  // namespace atomstress
