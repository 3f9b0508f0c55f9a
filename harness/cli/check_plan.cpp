#include "harness/cli/check_plan.hpp"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "harness/cli/options.hpp"
#include "harness/pipeline/execute_trial.hpp"
#include "harness/support/hash.hpp"
#include "harness/trial/patterns.hpp"
#include "harness/workload/workload.hpp"

namespace po = boost::program_options;

namespace atomstress {

void add_check_options(po::options_description& desc, CheckOptions& o) {
  using cli::bounded;
  // --k: the most addresses expand() can place (its memory limit over the
  // narrowest element, 2 bytes); what fits the machine is checked per trial.
  constexpr uint32_t kMaxK = uint32_t(kMaxTrialMemBytes / 2);
  desc.add_options()("help,h", "this help")(
      "impl", cli::non_empty(&o.impl),
      "entries: names or globs, comma-separated; 'atomics', 'algorithms', 'kernels'")(
      "all", po::bool_switch(&o.all), "every correct atomic and algorithm in the catalogue");
  cli::add_backend_options(desc, o.backend, o.skip_without_gpu);
  desc.add_options()(
      "pattern", po::value<std::string>(&o.pattern)->default_value("all"),
      ("all, or comma-separated: " + pattern_names_help()).c_str())(
      "space", po::value<std::string>(&o.space)->default_value("all"), "all, global or shared")(
      "grid", bounded<uint32_t>(&o.grid, 0, 0x7fffffffu)->default_value(0),
      "blocks (0: 2 x SMs on cuda, SMs for a trial with every op on one global word; 4 on cpu)")(
      "block", bounded<uint32_t>(&o.block)->default_value(0), "threads per block, at most 1024 (0: 256 on cuda, 64 on cpu)")(
      "ops-per-thread", bounded<uint32_t>(&o.ops_per_thread, 0, uint32_t(kMaxTrialOps))->default_value(0),
      "(0: 4; 1 on cuda for a trial with every op on one global word)")(
      "k", bounded<uint32_t>(&o.k, 0, kMaxK)->default_value(0), "addresses for the k-address patterns (0: vary)")(
      "dist", po::value<std::string>(&o.dist)->default_value("mixed"), "small, full or mixed")(
      "special", bounded<uint32_t>(nullptr, 0, 1000),
      "per mille of special values (NaN, -0, subnormals, limits), 0 to 1000; absent: vary by trial")(
      "seed", bounded<uint64_t>(&o.seed)->default_value(1), "base seed")(
      "trials", bounded<uint32_t>(&o.trials, 1, cli::kMaxTrials)->default_value(2), "trials per pattern and space");
  cli::add_run_settings(desc, kCommandCheck, o.run);
  cli::add_sanitize_option(desc, o.sanitize);
  desc.add_options()(
      "jobs", bounded<uint32_t>(&o.jobs, 0, 64)->default_value(0),
      "trials run at once, each on its own stream of one worker, reported in order (0: 4 on cuda, 1 on cpu; "
      "1 with --isolate off or --profile)")(
      "pipeline", cli::on_off(&o.pipeline, true),
      "on or off (on): judge each trial on the host while the next runs; off judges each before the next runs")(
      "profile", bounded<uint32_t>(&o.profile, 0, 1000)->default_value(0)->implicit_value(5),
      "show the N most contended addresses of each entry's busiest trial")(
      "quiet,q", po::bool_switch(&o.quiet), "print failures only")(
      "no-shrink", po::bool_switch(&o.no_shrink), "print each failure as found, without shrinking it")(
      "shrink-time", cli::seconds(&o.shrink_s, cli::kMaxBudgetSeconds)->default_value(30),
      "seconds each failure's shrinking may take, more than 0 and at most 3600");
}

void read_check_options(const po::variables_map& vm, CheckOptions& o) {
  if (vm.count("special")) o.special = vm["special"].as<uint32_t>();
}

bool make_plan(const CheckOptions& o, CheckPlan& plan, std::string& error) {
  plan.opt = o;
  if (o.all == !o.impl.empty()) {
    error = o.all ? "give either --all or --impl, not both" : "say which entries: --all or --impl NAME|GLOB";
    return false;
  }
  if (o.all) plan.impls = match_impls("all");
  else if (!cli::select_entries(o.impl, "impl", plan.impls, error)) return false;
  if (o.pattern == "all") {
    for (int p = 0; p < kNumPatterns; ++p) plan.patterns.push_back(Pattern(p));
  } else {
    const auto names = cli::split_commas(o.pattern);
    if (names.empty()) {
      error = "--pattern '" + o.pattern + "' names no pattern";
      return false;
    }
    if (cli::refuse_empty_items(names, "pattern", o.pattern, "pattern", error)) return false;
    for (const auto& x : names) {
      auto p = parse_pattern(x);
      if (!p) {
        error = "unknown pattern '" + x + "'";
        return false;
      }
      if (std::find(plan.patterns.begin(), plan.patterns.end(), *p) != plan.patterns.end()) {
        error = "pattern '" + x + "' is given twice in --pattern";
        return false;
      }
      plan.patterns.push_back(*p);
    }
  }
  if (o.space == "all") {
    plan.spaces = {Space::Global, Space::Shared};
  } else {
    auto s = parse_space(o.space);
    if (!s) {
      error = "unknown memory space '" + o.space + "' (global, shared or all)";
      return false;
    }
    plan.spaces = {*s};
  }
  if (o.dist != "mixed" && !parse_dist(o.dist)) {
    error = "unknown value distribution '" + o.dist + "' (small, full or mixed)";
    return false;
  }
  // --trials, --special and the other numbers are bounded by their parser.
  if (cli::skip_for_missing_gpu(o.backend, o.skip_without_gpu, plan.note)) {
    error = "skip";
    return false;
  }
  plan.backend = resolve_backend(o.backend, plan.note, error);
  if (!error.empty()) return false;
  if (!cli::apply_sanitize_option(o.sanitize, plan.backend, plan.opt.run, error)) return false;
  const bool cuda = plan.backend == BackendKind::Cuda;
  plan.auto_geometry = o.grid == 0 && o.block == 0 && o.ops_per_thread == 0;
  if (plan.opt.grid == 0) plan.opt.grid = cuda ? std::max(1, 2 * cuda_sm_count()) : 4;
  if (plan.opt.block == 0) plan.opt.block = cuda ? 256 : 64;
  if (plan.opt.ops_per_thread == 0) plan.opt.ops_per_thread = 4;
  return true;
}

uint64_t trial_seed(uint64_t base_seed, std::string_view name, Pattern p, Space s, uint32_t t) {
  const uint64_t stream = counter_rng(fnv1a64(name), uint64_t(p) * 2 + uint64_t(s), 0);
  return counter_rng(base_seed, stream, t);
}

std::optional<TrialSpec> plan_trial(const CheckPlan& plan, const Entry& impl, Pattern p, Space s, uint32_t t) {
  const auto& o = plan.opt;
  if (!entry_allows(impl.limits, p, s, o.grid)) return std::nullopt;
  TrialSpec spec;
  spec.impl = impl.name;
  spec.grid = o.grid;
  spec.block = o.block;
  spec.ops_per_thread = o.ops_per_thread;
  spec.space = s;
  spec.pattern = p;
  if (o.k == 0) {
    // An automatic k varies by trial, capped to fit (cap_k).
    static constexpr uint32_t kVary[] = {32, 1024, 4, 256};
    spec.k = kVary[t % 4];
    cap_k(spec, impl.limits.value_bytes);
  } else {
    spec.k = o.k;
  }
  spec.zipf_s = 1 + t % 4;
  spec.dist = o.dist == "mixed" ? (t % 2 ? Dist::Full : Dist::Small) : *parse_dist(o.dist);
  spec.special_permille = o.special ? *o.special : (t % 3 == 2 ? 150u : t % 3 == 1 ? 20u : 0u);
  spec.init = t % 4 == 3 ? Init::Zero : Init::Random;
  spec.seed = trial_seed(o.seed, impl.name, p, s, t);
  // Privatised histogram bins: an automatic k stays within 32 KiB of shared
  // memory; with the automatic geometry, a lock serialises at most 2^14
  // critical sections per trial (a whole grid spinning on one lock is a
  // throughput test, not a correctness one).
  if (impl.algo && ((impl.limits.max_region_bytes != 0 && o.k == 0) ||
                    (impl.limits.max_ops != 0 && plan.auto_geometry)))
    apply_caps(spec, impl.limits);
  // On cuda with the automatic geometry, a trial with every op on one global
  // word runs one op per thread on half the grid (one block per SM): every
  // SM still contends for the word, and the trial costs an eighth or less.
  // Its cost is the word's serial throughput times the contenders (a CAS
  // loop at the full grid retried about 2.5 G times, 2 s on an H100), and it
  // was most of `check --all`'s time; a heavier run is a throughput test
  // (profile), or asked for with --grid, --block or --ops-per-thread.  (The
  // cpu backend's default grid has no such cost.)
  if (plan.auto_geometry && plan.backend == BackendKind::Cuda && spec.pattern == Pattern::Single &&
      spec.space == Space::Global) {
    spec.ops_per_thread = 1;
    spec.grid = std::max<uint32_t>(1, spec.grid / 2);
  }
  return spec;
}

ImplTrials plan_impl(const CheckPlan& plan, const Entry& impl) {
  ImplTrials out;
  for (Pattern p : plan.patterns) {
    for (Space s : plan.spaces) {
      for (uint32_t t = 0; t < plan.opt.trials; ++t) {
        auto spec = plan_trial(plan, impl, p, s, t);
        if (spec) {
          out.specs.push_back(std::move(*spec));
          continue;
        }
        out.skip_at.push_back(out.specs.size());
        if (out.skip_at.size() == 1) {
          // Keep the reason, in case nothing at all applies.
          TrialSpec probe;
          probe.impl = impl.name;
          probe.grid = plan.opt.grid;
          probe.block = plan.opt.block;
          probe.ops_per_thread = plan.opt.ops_per_thread;
          probe.space = s;
          probe.pattern = p;
          probe.k = 1;
          expand(probe, out.none_applies);
        }
        break;
      }
    }
  }
  return out;
}

ImplTally::ImplTally(const CheckPlan& plan, const Entry& impl, const ImplTrials& planned) {
  sum.impl = &impl;
  sum.backend = plan.backend;
  // The reason, in case nothing at all applies.
  if (!planned.skip_at.empty()) sum.first_failure.finding.explanation = planned.none_applies;
}

void ImplTally::add(Outcome&& out) {
  ++sum.trials;
  sum.ops += out.ops;
  sum.run_ms += out.run_ms;
  sum.check_ms += out.check_ms;
  sum.retries += out.total_retries;
  sum.max_retries = std::max(sum.max_retries, out.max_retries);
  uint64_t weight = out.total_retries;
  for (const auto& h : out.hotspots) weight += h.cycles;
  if (sum.trials == 1 || weight > busiest_) {
    busiest_ = weight;
    sum.most_contended = out;
  }
  if (out.verdict != Verdict::Pass) {
    sum.verdict = out.verdict;
    sum.first_failure = std::move(out);
  }
}

ImplSummary ImplTally::close(const ImplTrials& planned) && {
  // Combinations reached before the first failure, as when each ran in turn.
  sum.skipped = uint32_t(std::count_if(planned.skip_at.begin(), planned.skip_at.end(), [&](size_t at) {
    return sum.verdict == Verdict::Pass || at < sum.trials;
  }));
  if (sum.trials == 0) {
    sum.verdict = Verdict::Error;
    if (sum.first_failure.why().empty())
      sum.first_failure.finding.explanation = std::string(sum.impl->name) + ": no trial applies";
  }
  return std::move(sum);
}

ImplSummary run_impl(const CheckPlan& plan, const Entry& impl, const std::function<void(const Outcome&)>& each) {
  const ImplTrials planned = plan_impl(plan, impl);
  ImplTally tally(plan, impl, planned);
  // Run in order, pipelined (each trial judged on the host while the next
  // runs), up to the first failure.
  const SequenceConfig cfg{plan.backend, plan.opt.run, plan.opt.profile, true, plan.opt.pipeline};
  const SequenceStats stats = execute_sequence(planned.specs, cfg, [&](Outcome&& out) {
    if (each) each(out);
    tally.add(std::move(out));
  });
  tally.sum.check_overlapped_ms = stats.overlapped_ms;
  return std::move(tally).close(planned);
}

size_t check_jobs(const CheckPlan& plan) {
  if (!plan.opt.run.policy.isolate) return 1;  // concurrent trials run in a worker
  if (plan.opt.run.policy.sanitize != SanitizeTool::None) return 1;  // one sanitized worker per trial
  if (plan.opt.jobs != 0) return plan.opt.jobs;
  // Timings for --profile are taken alone.  The cpu backend's trials each
  // run --cpu-threads host threads already.
  if (plan.opt.profile > 0 || plan.backend == BackendKind::Cpu) return 1;
  // Check's default geometry (2 blocks of 256 threads per SM) leaves room
  // for four kernels at once on each SM.
  return 4;
}

size_t background_conclusions(size_t jobs) { return jobs > 1 ? 2 : 0; }

bool concluded_beside(Verdict v) { return v == Verdict::Crash; }

RunOptions shared_gpu_run(const RunOptions& run, size_t others) {
  RunOptions r = run;
  r.policy.gpu_share *= uint32_t(1 + others);
  return r;
}

std::string check_time_line(const CheckTimes& t, BackendKind backend, size_t jobs) {
  const double w = std::max(t.wall_ms, 1e-9);
  const bool cuda = backend == BackendKind::Cuda;
  if (jobs > 1) {
    const std::string busy =
        !cuda ? fmt::format(" ({:.0f}% of the wall time)", 100 * t.run_ms / w)
        : t.gpu_busy_ms > t.busy_ms
            ? fmt::format(", the GPU busy with it {:.2f} s ({:.0f}%) and with it and the device's checking of its "
                          "trials {:.2f} s ({:.0f}%: the GPU's busy share)",
                          t.busy_ms / 1000, 100 * t.busy_ms / w, t.gpu_busy_ms / 1000, 100 * t.gpu_busy_ms / w)
            : fmt::format(", the GPU busy with it {:.2f} s ({:.0f}%: the GPU's busy share)", t.busy_ms / 1000,
                          100 * t.busy_ms / w);
    return fmt::format(
        "time: {:.2f} s wall, up to {} trials at once; the code under test ran {:.2f} s summed over the trials{}, "
        "checking {:.2f} s summed",
        t.wall_ms / 1000, jobs, t.run_ms / 1000, busy, t.check_ms / 1000);
  }
  return fmt::format(
      "time: {:.2f} s wall; the code under test ran {:.2f} s ({:.0f}%{}), checking {:.2f} s ({:.0f}%; {:.2f} s of it "
      "while the next trial ran), the rest {:.2f} s (expansion, transfers, set-up, shrinking)",
      t.wall_ms / 1000, t.run_ms / 1000, 100 * t.run_ms / w, cuda ? ": the GPU's busy share" : "", t.check_ms / 1000,
      100 * t.check_ms / w, t.overlapped_ms / 1000,
      std::max(0.0, t.wall_ms - t.run_ms - (t.check_ms - t.overlapped_ms)) / 1000);
}

}  // namespace atomstress
