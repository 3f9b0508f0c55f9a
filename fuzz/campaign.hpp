// Property campaigns with a time budget: RapidCheck generates TrialSpecs,
// each is evaluated (rerun to catch rare interleavings), a failure is shrunk
// (each candidate rerun until it fails or the rerun bound is hit), and the
// shrunk case's failure rate is measured.  A failure that never recurs is
// reported as flaky with its observed rate, never dropped.
#pragma once

#include <functional>
#include <string>

#include "harness/pipeline/gpu_turns.hpp"
#include "harness/pipeline/ordered_trials.hpp"
#include "harness/support/busy_time.hpp"
#include "properties/generators.hpp"
#include "properties/properties.hpp"

namespace atomstress::fuzz {

struct CampaignConfig {
  properties::GenConfig gen;
  RunOptions run;
  double budget_s = 10;      // searching stops here; shrinking may take up to 3x
  uint64_t max_specs = ~0ull;
  uint32_t reruns = 2;       // runs per spec evaluation (and per shrink candidate)
  uint32_t rate_runs = 10;   // reruns of the shrunk case to measure its failure rate (within budget_s more)
  uint64_t seed = 1;
  // Packed rounds (cuda): before each RapidCheck round, this many small
  // specs of the entries' single atomics (at most kPackedMaxOps ops, a few
  // blocks) run packed into few launches (run_packed.hpp), each checked as
  // its own trial; a failure among them is shrunk from its spec
  // (shrink_spec.hpp).  0: none.
  uint32_t pack = 0;
  // Several of a round's specs at once (fuzz --trials-at-once): each
  // RapidCheck round's specs are drawn as that round would draw them (the
  // same seed, sizes and order), then run through this runner (a worker
  // with a stream per trial), each spec's runs in order up to its first
  // failure, and reported in that order (run_ordered: only a Pass is kept
  // from a run beside others; anything else runs again alone, and that run
  // is its verdict).  A failure is shrunk from its spec, as a packed one is.
  // Null, or a capacity of 1: one spec after another, through RapidCheck's
  // property.  Not owned: it outlives the campaign (its worker is kept).
  ConcurrentTrials* at_once = nullptr;
  // The first round's width at once (fuzz/at_once_ramp.hpp): widened up to
  // at_once's capacity after a round that left the GPU idle half its time or
  // more, narrowed back after one that kept it busy.  0: the capacity,
  // every round.
  size_t at_once_from = 0;
  // The first round's width where the ramp is on, between at_once_from and
  // the capacity: the width this entry's last slice ended at (0: at_once_from).
  // Each slice ramped from at_once_from again: a host-bound slice of a
  // third of a second spent a third of it below its width (H200).
  size_t at_once_start = 0;
  // Other campaigns share the GPU (fuzz's two slices at once, nightly.hpp):
  // every run alone (a trial that did not pass beside others, and the
  // shrinking, rate and diagnosis of a found failure) holds the GPU alone,
  // and each packed round a share (gpu_turns.hpp).  Null: nothing else runs.
  GpuTurns* turns = nullptr;
  // The packed rounds' thread (and its worker): one per campaign running
  // at once, numbered from 0.
  unsigned packed_lane = 0;
  // Called after each evaluation during the search (not while shrinking):
  // live progress for long campaigns.  Optional.
  std::function<void(uint64_t runs, uint64_t ops)> on_evaluated;
  // True when the run must end now (a signal): the search, shrinking and
  // rate stop at the next spec and the result is to be discarded.  Optional.
  std::function<bool()> stop;
};

struct CampaignResult {
  bool found = false;
  Verdict verdict = Verdict::Pass;
  std::string why;
  TrialSpec first, shrunk;       // as first found, and after shrinking
  double time_to_catch_s = 0;    // wall time until the first failing evaluation
  double total_s = 0;
  uint64_t specs = 0;            // specs evaluated (shrink candidates included)
  uint64_t runs = 0, ops = 0;    // trial runs and the ops they checked (rate runs included)
  double run_ms = 0;             // the code under test's time in them (cuda: its kernels' busy time)
  double gpu_ms = 0;             // cuda: the GPU's busy time, those kernels and the device's checking of them
  uint32_t rate_failures = 0, rate_runs = 0;
  size_t widest_at_once = 1;     // the most trials a round ran at once (CampaignConfig::at_once)
  size_t next_at_once = 0;       // the width a next round would have run at (0: not at once)
  // The search's runs at once and packed launches, as stamped spans (in
  // run_ms and gpu_ms): two campaigns run at once count their union.  The
  // runs alone after it have none (nothing ran beside them).
  BusyTime search_busy;
  bool flaky = false;            // the shrunk case (and the first) never failed again
  Diagnosis diagnosis;           // the shrunk case's class (pipeline/diagnose.hpp); `why` begins with it
};

// "semantics: alone, in program order, op #0 ...: the spec stores ... (matches: ...)":
// a failure's class and cause on one line, for every report that carries `why`.
std::string classed_why(const Diagnosis& d, const std::string& why);

inline constexpr uint64_t kPackedMaxOps = 1024;
inline constexpr uint32_t kPackedMaxGrid = 8;
// The pack size the commands use on cuda (0 elsewhere).
uint32_t default_pack(BackendKind backend);

CampaignResult run_campaign(const CampaignConfig& cfg);

// Reads RapidCheck's global configuration (RC_PARAMS) once, keeping the
// "Using configuration: seed=N" line it prints off stderr unless RC_PARAMS
// is set; `config` is that configuration ("seed=N") for the run's log.
// Call it before any campaign: false, with a one-line `error`, when
// RC_PARAMS does not parse.
bool load_rapidcheck_configuration(std::string& config, std::string& error);

}  // namespace atomstress::fuzz
