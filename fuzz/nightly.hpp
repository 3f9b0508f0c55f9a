// `atomstress fuzz`: a time-budgeted property campaign over many entries.
// The corpus is replayed first; then rounds: every entry still passing gets
// one time slice per round (a slow or hanging entry cannot starve the
// rest), each slice a RapidCheck campaign (fuzz::run_campaign: generate,
// evaluate with reruns, shrink, measure the shrunk case's failure rate).
// The state is saved after every slice, every record goes to the printers
// as it happens.
#pragma once

#include <csignal>
#include <string>
#include <vector>

#include "fuzz/campaign.hpp"
#include "fuzz/corpus.hpp"
#include "fuzz/state.hpp"
#include "harness/pipeline/gpu_turns.hpp"
#include "harness/pipeline/ordered_trials.hpp"
#include "harness/pipeline/trial_threads.hpp"
#include "harness/pipeline/run_trial.hpp"
#include "reports/printer.hpp"

namespace atomstress::fuzz {

// Entries' slices at once (fuzz --slices-at-once 2 or 3): host-bound
// entries' slices (plan_round), each a campaign of its own on the one trial
// worker (shared_trials.hpp), so that the GPU, which one such slice leaves
// idle most of its time (an algorithm over a fast atomic: microseconds of
// kernel around milliseconds of host work), runs the others' kernels in
// the gaps and more host threads feed it.  Every run alone holds the GPU
// alone (gpu_turns.hpp).  The group is logged in entry order once all have
// ended and saved together (a kill repeats them all); the budget counts
// their wall time once, and each record carries its part of what they
// counted more than once (FuzzSliceRecord::paired).
inline constexpr uint32_t kMostSlicesAtOnce = 3;
struct SlicesAtOnce {
  uint32_t count = 0;  // slices at once, 2 to kMostSlicesAtOnce
  ConcurrentTrials* runners[kMostSlicesAtOnce] = {};  // each slice's own view of the worker
  GpuTurns* turns = nullptr;
  TrialThreads* lane = nullptr;  // the other slices' threads, kept for the run (and its worker with it)
};

struct NightlyConfig {
  std::vector<const Entry*> entries;  // this shard's, in name order
  BackendKind backend = BackendKind::Cpu;
  RunOptions run;
  // Runs each round's specs several at once (CampaignConfig::at_once); null:
  // one after another.  Kept for the whole run, so its worker starts once.
  ConcurrentTrials* at_once = nullptr;
  uint32_t trials_at_once = 1;  // at_once's capacity, for the run's header and its time line
  // Each slice's first round runs this many at once, widened up to the
  // capacity where a round left the GPU idle (CampaignConfig::at_once_from;
  // 0: the capacity, fixed).
  uint32_t at_once_from = 0;
  // 2 or 3: that many slices at once (above; `slices` not null), its
  // runners in place of at_once.  1: one slice after another.
  uint32_t slices_at_once = 1;
  const SlicesAtOnce* slices = nullptr;
  // Which entries pair (plan_round): those whose slices kept the GPU busy at
  // most this share of their time (fuzz --pair-busy-at-most).
  double pair_busy_at_most = 0.5;
  uint32_t reruns = 2, rate_runs = 10;
  double progress_s = 10;
  std::string corpus_dir;  // empty: no corpus
  std::string state_path;  // empty: no state file
  reports::RunHeader header;  // version, device: stamped on corpus cases
  std::string label;           // a lane of fuzz --devices: its progress lines' prefix
  // Set (to the signal's number) by a SIGINT, SIGTERM or SIGHUP handler: the
  // run ends at the next spec.  Null: never.
  const volatile std::sig_atomic_t* stop_signal = nullptr;
};

// run_nightly's status when `stop_signal` ended the run: the state is saved
// (resumable), the slice in progress discarded, and every entry not already
// failed or skipped went to the printers as an error of origin
// "interrupted" (the JSON log leaves those out: merge sees the run as not
// finished).
inline constexpr int kInterrupted = -1;

// The length of one entry's slice per round: a quarter of its fair share,
// so every entry is revisited at least four times, between kShortestSlice
// (0.25 s) and 60 s.
inline constexpr double kShortestSlice = 0.25;
double slice_seconds(double budget_s, size_t entries);

// With slices at once, round 0's slices (each entry measured alone, the
// plan's input) are a quarter of `slice`, at least kShortestSlice: alone, a
// host-bound entry's slice leaves the GPU idle (a quarter of a 500 s
// catalogue run at 69% busy, H200), and its class is plain well before.
double measuring_slice_seconds(double slice);

// A round's slice positions (FuzzState::plan; empty: one entry each, in
// name order), each the entries (indexes in name order) whose slices run
// at once.  With `at_once` (2 or 3) at once: round 0 one entry each (every
// entry's busy share measured alone); in later rounds an entry whose slices
// so far kept the GPU busy at most `pair_busy_at_most` of their time
// (host-bound: an algorithm over a fast atomic) runs beside the next such
// entries in name order, up to `at_once` of them, and every other entry
// alone.  Not any entry beside any other
// (measured on an H200, docs/speed.md): a host-bound slice beside one whose
// kernels fill the GPU waited for them, its trials at a quarter of their
// rate alone, and two slices that fill the GPU beside each other each ran
// further past their budget.
std::vector<std::vector<size_t>> plan_round(const std::vector<const Entry*>& entries, const FuzzState& state,
                                            uint32_t at_once, double pair_busy_at_most);

// A resumed round's plan (a state file may be edited or damaged): every
// entry it names is this run's, named once, in positions of at most as
// many slices as `slices_at_once` (a run's).  False with `error`
// (one line) when not.
bool plan_fits(const std::vector<std::vector<size_t>>& plan, size_t entries, uint32_t slices_at_once,
               const std::string& state_path, std::string& error);

// What slices run at once from the same moment counted more than once,
// each slice's part of it (FuzzSliceRecord::paired), so that their records
// add up to the union: of their wall times, each stretch that k of them
// covered, (k - 1) / k of it in each of the k; of where their searches'
// runs at once overlapped, an equal part in each (the runs alone after a
// search held the GPU alone: nothing overlapped them).  For two: half the
// shorter one's wall time, half their overlap.
std::vector<reports::PairedTime> shared_parts(const std::vector<CampaignResult>& c,
                                              const std::vector<double>& took);

// Runs (or, from a resumed `state`, continues) the campaign.  0: no failure;
// 1: a failure found or a corpus case still failing; 2: `error` says why
// (a corpus or state file that cannot be written, a JSON log that could not
// be appended to: the run stops at once); kInterrupted.  The corpus replay
// draws from the budget like the slices: each case gets at most a slice's
// time (at least one run), and the budget's end stops the replay.
int run_nightly(const NightlyConfig& cfg, FuzzState& state, const std::vector<CorpusCase>& corpus,
                reports::Printer& out, std::string& error);

}  // namespace atomstress::fuzz
