// What `atomstress profile` and its Google Benchmark wrapper
// (bench/bench_algos.cpp) share: the sweep's named axes and the measurement's
// options, declared, parsed and planned in one place, so that both time the
// same points the same way (harness/pipeline/profile).
#pragma once

#include <boost/program_options.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "harness/pipeline/profile.hpp"

namespace atomstress::cli {

struct SweepOptions {
  // Axes, as given: lists, or pow2:LO:HI[:STEP] for the numeric ones.
  std::string impl, k = "pow2:0:20:4", pattern = "auto", grid = "0", block = "0", ops = "0", space = "global",
                    dist = "small";
  // The measurement.
  std::string max_noise = "5";  // percent
  double max_time_s = 2;
  double batch_s = 0.01;  // a batch repeats launches up to about this long
  bool baseline = false, cold = false;
  uint32_t hotspots = 8;
  uint64_t seed = 1;
  // The run settings (budget, watchdog, the cpu backend's threads and yield);
  // a profile times the code under test, so the cpu backend yields only when asked.
  RunOptions run = [] {
    RunOptions r;
    r.knobs.yield_permille = 0;
    return r;
  }();
};

// Adds the axes (--impl, --k, --pattern, --grid, --block, --ops-per-thread,
// --space, --dist) and the measurement's options (--max-noise,
// --max-time-per-point, --batch-time, --baseline, --cold, --hotspots, --seed) and
// profile's run settings (backend/run_settings.hpp) to `desc`, stored into `o`.
void add_sweep_options(boost::program_options::options_description& desc, SweepOptions& o);

// The options parsed: what needs no device yet.
struct Sweep {
  std::vector<const Entry*> impls;
  std::vector<uint32_t> ks, grids, blocks, ops;  // 0: the backend's default
  std::vector<Pattern> patterns;                 // empty: automatic (single at k = 1, else uniform)
  std::vector<Space> spaces;
  std::vector<Dist> dists;
  uint64_t seed = 1;
  ProfileSettings settings;  // all but the backend
};

// Parses the entries, the axes (at most 4096 points) and the measurement's
// options.  False with a one-line `error` on bad input; it needs no device,
// so bad input is refused the same way with or without a GPU.
bool parse_sweep(const SweepOptions& o, Sweep& sweep, std::string& error);

// An entry the backend cannot run at all (a kernel entry on cpu): SKIP, as in check.
struct SkippedImpl {
  const Entry* impl = nullptr;
  std::string why;  // cpu_skip_reason
};

struct SweepPlan {
  std::vector<TrialSpec> specs;      // the points, in sweep order
  std::vector<std::string> skipped;  // one line per combination an entry cannot run
  std::vector<SkippedImpl> skipped_impls;
  ProfileSettings settings;          // how each point is measured, on `backend`
};

// The points of `sweep` on `backend` (whose defaults fill the 0s of grid,
// block and ops per thread); false with a one-line `error` when a point does
// not fit the machine's memory.  Kernel entries take every axis but
// --space shared (a kernel's buffers are global memory: its points there
// are skipped with the reason, as an algorithm's); on cpu they are skipped
// whole (skipped_impls).
bool plan_sweep(const Sweep& sweep, BackendKind backend, SweepPlan& plan, std::string& error);

}  // namespace atomstress::cli
