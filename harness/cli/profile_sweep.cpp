#include "harness/cli/profile_sweep.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <sstream>

#include "harness/cli/options.hpp"
#include "harness/pipeline/footprint.hpp"
#include "harness/trial/patterns.hpp"

namespace po = boost::program_options;

namespace atomstress::cli {

namespace {

// A sweep larger than this is a typo, not a plan (hours of device time).
constexpr size_t kMaxPoints = 4096;
constexpr uint32_t kMaxK = uint32_t(kMaxTrialMemBytes / 2);

std::string refuse(const std::string& option, const std::string& value, const std::string& why) {
  return "option '--" + option + "': '" + value + "' " + why;
}

// "1,4,32" or "pow2:LO:HI[:STEP]" (2^LO, 2^(LO+STEP), ... up to 2^HI).
// Values in [lo, hi], no repeats.  Empty optional with `error` when refused.
std::optional<std::vector<uint32_t>> parse_number_axis(const std::string& option, const std::string& text,
                                                       uint32_t lo, uint32_t hi, std::string& error) {
  std::vector<uint32_t> out;
  std::string why;
  if (text.rfind("pow2:", 0) == 0) {
    std::vector<std::string> fields;
    std::stringstream ss(text.substr(5));
    std::string f;
    while (std::getline(ss, f, ':')) fields.push_back(f);
    if (!text.empty() && text.back() == ':') fields.push_back("");
    if (fields.size() < 2 || fields.size() > 3) {
      error = refuse(option, text, "is not a range: give pow2:LO:HI or pow2:LO:HI:STEP (exponents)");
      return std::nullopt;
    }
    const auto e0 = parse_unsigned(fields[0], 0, 31, why);
    const auto e1 = e0 ? parse_unsigned(fields[1], *e0, 31, why) : std::nullopt;
    if (!e1) {
      error = refuse(option, text, "has an exponent that " + why);
      return std::nullopt;
    }
    const auto step = fields.size() == 3 ? parse_unsigned(fields[2], 1, 31, why) : std::optional<uint64_t>(1);
    if (!step) {
      error = refuse(option, text, "has a step that " + why);
      return std::nullopt;
    }
    for (uint64_t e = *e0; e <= *e1; e += *step) {
      const uint64_t v = uint64_t(1) << e;
      if (v < lo || v > hi) {
        error = refuse(option, text, "reaches " + std::to_string(v) + ", out of range (" + std::to_string(lo) +
                                         " to " + std::to_string(hi) + ")");
        return std::nullopt;
      }
      out.push_back(uint32_t(v));
    }
    return out;
  }
  for (const auto& item : split_commas(text)) {
    const auto v = parse_unsigned(item, lo, hi, why);
    if (!v) {
      error = refuse(option, item, why);
      return std::nullopt;
    }
    if (std::find(out.begin(), out.end(), uint32_t(*v)) != out.end()) {
      error = refuse(option, item, "is given twice");
      return std::nullopt;
    }
    out.push_back(uint32_t(*v));
  }
  if (out.empty()) {
    error = refuse(option, text, "names no value");
    return std::nullopt;
  }
  return out;
}

// A list of names, each parsed by `parse`; no repeats.
template <class T, class Parse>
std::optional<std::vector<T>> parse_name_axis(const std::string& option, const std::string& text, Parse parse,
                                              const std::string& allowed, std::string& error) {
  std::vector<T> out;
  for (const auto& item : split_commas(text)) {
    const auto v = parse(item);
    if (!v) {
      error = refuse(option, item, "is not one of " + allowed);
      return std::nullopt;
    }
    if (std::find(out.begin(), out.end(), *v) != out.end()) {
      error = refuse(option, item, "is given twice");
      return std::nullopt;
    }
    out.push_back(*v);
  }
  if (out.empty()) error = refuse(option, text, "names nothing (" + allowed + ")");
  return out.empty() ? std::nullopt : std::optional(out);
}

// A percentage in (0, 100].
std::optional<double> parse_percent(const std::string& text, std::string& error) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v <= 0 ||
      v > 100) {
    error = refuse("max-noise", text, "is not a percentage (more than 0, at most 100)");
    return std::nullopt;
  }
  return v;
}

bool make_sweep(const SweepOptions& o, Sweep& s, std::string& error) {
  const auto names = split_commas(o.impl);
  for (const auto& name : names) {
    const auto m = name.empty() ? std::vector<const Entry*>{} : match_impls(name);
    if (m.empty()) {
      error = name.empty() ? refuse("impl", o.impl, "has an empty name")
                           : "unknown implementation '" + name + "' (see 'atomstress list')";
      return false;
    }
    for (auto* i : m)
      if (std::find(s.impls.begin(), s.impls.end(), i) == s.impls.end()) s.impls.push_back(i);
  }
  auto ks = parse_number_axis("k", o.k, 1, kMaxK, error);
  auto grids = ks ? parse_number_axis("grid", o.grid, 0, kMaxGrid, error) : std::nullopt;
  auto blocks = grids ? parse_number_axis("block", o.block, 0, kMaxBlock, error) : std::nullopt;
  auto ops = blocks ? parse_number_axis("ops-per-thread", o.ops, 0, uint32_t(kMaxTrialOps), error) : std::nullopt;
  if (!ops) return false;
  s.ks = *ks, s.grids = *grids, s.blocks = *blocks, s.ops = *ops;
  if (o.pattern != "auto") {
    auto p = parse_name_axis<Pattern>("pattern", o.pattern, parse_pattern,
                                      "auto, or " + pattern_names_help(),
                                      error);
    if (!p) return false;
    s.patterns = *p;
  }
  auto spaces = parse_name_axis<Space>("space", o.space, parse_space, "global, shared", error);
  auto dists = spaces ? parse_name_axis<Dist>("dist", o.dist, parse_dist, "small, full", error) : std::nullopt;
  if (!dists) return false;
  s.spaces = *spaces, s.dists = *dists;
  const size_t patterns = s.patterns.empty() ? 1 : s.patterns.size();
  const double points = double(s.impls.size()) * double(s.ks.size()) * double(patterns) * double(s.grids.size()) *
                        double(s.blocks.size()) * double(s.ops.size()) * double(s.spaces.size()) *
                        double(s.dists.size());
  if (points > double(kMaxPoints)) {
    error = "the sweep has " + std::to_string(uint64_t(points)) + " points (entries x axis values), more than " +
            std::to_string(kMaxPoints) + ": narrow an axis or --impl";
    return false;
  }
  return true;
}

// The specs of the sweep, in order; `skipped` collects one line per
// combination an entry cannot run (a pattern it does not allow, ...),
// `skipped_impls` the entries the backend cannot run at all.
std::vector<TrialSpec> plan_points(const Sweep& s, BackendKind backend, std::vector<std::string>& skipped,
                                   std::vector<SkippedImpl>& skipped_impls) {
  const bool cuda = backend == BackendKind::Cuda;
  std::vector<TrialSpec> specs;
  for (const Entry* impl : s.impls) {
    if (impl->gpu_only && !cuda) {
      skipped_impls.push_back({impl, cpu_skip_reason(*impl)});
      continue;
    }
    for (uint32_t k : s.ks) {
      std::vector<Pattern> patterns = s.patterns;
      if (patterns.empty()) {
        // Automatic: one address at k = 1, spread uniformly over k otherwise;
        // an entry that takes single only is measured once, at the smallest k.
        const bool single = k == 1 || !impl->limits.pattern_ok(Pattern::Uniform);
        if (single && k != s.ks.front()) continue;
        patterns = {single ? Pattern::Single : Pattern::Uniform};
      }
      for (Pattern p : patterns) {
        if (p == Pattern::Single && k != s.ks.front()) continue;  // k means nothing to it: measured once
        for (uint32_t g : s.grids)
          for (uint32_t b : s.blocks)
            for (uint32_t n : s.ops)
              for (Space sp : s.spaces)
                for (Dist d : s.dists) {
                  TrialSpec spec;
                  spec.impl = impl->name;
                  spec.grid = g ? g : cuda ? uint32_t(std::max(1, 2 * cuda_sm_count())) : 4;
                  spec.block = b ? b : cuda ? 256 : 64;
                  spec.ops_per_thread = n ? n : cuda ? 16 : 4;
                  spec.pattern = p;
                  spec.k = p == Pattern::Single ? 1 : k;
                  spec.space = sp;
                  spec.dist = d;
                  spec.init = Init::Zero;
                  spec.zipf_s = 2;
                  spec.seed = s.seed;
                  std::string why;
                  if (!validate(spec, impl->limits, why)) {
                    skipped.push_back(std::string(impl->name) + " k=" + std::to_string(k) + " " + to_string(p) +
                                      " " + to_string(sp) + ": " + why);
                    continue;
                  }
                  specs.push_back(spec);
                }
      }
    }
  }
  return specs;
}

}  // namespace

void add_sweep_options(po::options_description& desc, SweepOptions& o) {
  desc.add_options()(
      "impl", non_empty(&o.impl), "entries: names or globs, comma-separated ('atomics', 'algorithms')")(
      "k", po::value<std::string>(&o.k)->default_value(o.k),
      "addresses: a list 1,4,32 or a range pow2:LO:HI[:STEP] of exponents")(
      "pattern", po::value<std::string>(&o.pattern)->default_value(o.pattern),
      "auto (single at k = 1, else uniform) or a list of patterns")(
      "grid", po::value<std::string>(&o.grid)->default_value(o.grid), "blocks, a list (0: 2 x SMs on cuda, 4 on cpu)")(
      "block", po::value<std::string>(&o.block)->default_value(o.block),
      "threads per block, a list (0: 256 on cuda, 64 on cpu)")(
      "ops-per-thread", po::value<std::string>(&o.ops)->default_value(o.ops), "a list (0: 16 on cuda, 4 on cpu)")(
      "space", po::value<std::string>(&o.space)->default_value(o.space), "global, shared, or both: a list")(
      "dist", po::value<std::string>(&o.dist)->default_value(o.dist), "small, full, or both: a list")(
      "max-noise", po::value<std::string>(&o.max_noise)->default_value(o.max_noise),
      "stop timing a point when the relative noise of its batches is under this percentage")(
      "max-time-per-point", seconds(&o.max_time_s, kMaxBudgetSeconds)->default_value(2),
      "... or when its timing has taken this many seconds")(
      "batch-time", seconds(&o.batch_s, 60)->default_value(0.01),
      "seconds of launches averaged into one timing sample (longer batches: less noise between samples of "
      "slow launches that vary from launch to launch)")(
      "baseline", po::bool_switch(&o.baseline),
      "also time a bare atomicAdd kernel (native add of i32/u32/f32/f64) and report the ratio (cuda)")(
      "cold", po::bool_switch(&o.cold),
      "flush the GPU's L2 before each timed launch (and the bare kernel's), as nvbench's cold measurements "
      "do (cuda; ignored with a note on cpu)")(
      "hotspots", bounded<uint32_t>(&o.hotspots, 0, 1000)->default_value(8), "hottest addresses kept per point")(
      "seed", bounded<uint64_t>(&o.seed)->default_value(1), "seed of the workloads");
  add_run_settings(desc, kCommandProfile, o.run);
}

bool parse_sweep(const SweepOptions& o, Sweep& sweep, std::string& error) {
  sweep = {};
  if (o.impl.empty()) {
    error = "say which entries to profile: --impl NAME|GLOB[,..]";
    return false;
  }
  if (!make_sweep(o, sweep, error)) return false;
  const auto noise = parse_percent(o.max_noise, error);
  if (!noise) return false;
  sweep.seed = o.seed;
  auto& s = sweep.settings;
  s.run = o.run;
  s.max_noise = *noise / 100;
  s.max_time_s = o.max_time_s;
  s.target_batch_s = o.batch_s;
  s.hotspots = o.hotspots;
  s.baseline = o.baseline;
  s.cold = o.cold;
  return true;
}

bool plan_sweep(const Sweep& sweep, BackendKind backend, SweepPlan& plan, std::string& error) {
  plan = {};
  plan.specs = plan_points(sweep, backend, plan.skipped, plan.skipped_impls);
  // A geometry past a trial's size is bad input (exit 2, its true size
  // named), not a point that does not apply.
  for (const auto& line : plan.skipped)
    if (line.find("trial too large") != std::string::npos) {
      error = line;
      return false;
    }
  const MemoryBudget budget = memory_budget(backend);
  for (const auto& spec : plan.specs)
    if (!footprint_fits(spec, backend, budget, error, FootprintOf::ProfilePoint)) return false;
  plan.settings = sweep.settings;
  plan.settings.backend = backend;
  return true;
}

}  // namespace atomstress::cli
