// What the commands report: the records the printers receive.  Small on
// purpose, so that a printer needs no knowledge of how the results were made.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/pipeline/run_trial.hpp"

namespace atomstress::reports {

// One implementation's trials under `check`.
// A failure after shrinking: check's failures (fuzz/shrink_spec.hpp).
struct ShrunkCase {
  TrialSpec spec;
  TrialKnobs knobs;
  std::string why;
  uint64_t candidates = 0, steps = 0;  // smaller specs tried, and accepted
  uint64_t repeats_skipped = 0;        // candidates refused before, not run again
  uint32_t rate_failures = 0, rate_runs = 0;
  double seconds = 0;
  double run_ms = 0;  // the code under test's time over every run of the shrinking and its rate
  double device_check_ms = 0;  // the device's checking of those runs
  bool timed_out = false;
  Diagnosis diagnosis;  // its class, and what its replay alone showed (pipeline/diagnose.hpp)
};

struct ImplSummary {
  const Entry* impl = nullptr;
  BackendKind backend = BackendKind::Cpu;
  Verdict verdict = Verdict::Pass;
  uint32_t trials = 0, skipped = 0;
  uint64_t ops = 0, retries = 0;
  uint32_t max_retries = 0;
  double run_ms = 0, check_ms = 0;
  double check_overlapped_ms = 0;  // of check_ms, what ran while the next trial ran (run_sequence.hpp)
  Outcome first_failure;   // valid unless Pass
  Outcome most_contended;  // the trial with the most cycles (or retries)
  std::optional<ShrunkCase> shrunk;  // the first failure shrunk (unless --no-shrink)
  // A second, distinct failure its diagnosis met (Diagnosis::distinct),
  // shrunk and classed on its own (unless --no-shrink: as found).
  std::optional<ShrunkCase> distinct;
};

// `check`: an entry that ran nothing, and why.
struct SkippedEntry {
  const Entry* entry = nullptr;
  BackendKind backend = BackendKind::Cpu;
  std::string why;
};

// `repro`: a token rerun `runs` times.
struct ReproSummary {
  TrialSpec spec;
  uint32_t runs = 0, failures = 0;
  uint32_t first_failed_run = 0;  // 1-based; 0 when none failed
  std::string first_why;          // "FAIL: ..." of the first failed run
};

// `selftest`: one bug's property campaign.
struct CampaignRecord {
  const Entry* impl = nullptr;
  BackendKind backend = BackendKind::Cpu;
  bool found = false;
  Verdict verdict = Verdict::Pass;
  std::string why;
  TrialSpec shrunk;  // valid when found
  TrialKnobs knobs;  // the options it ran with (its token carries them)
  double time_to_catch_s = 0;
  uint64_t specs = 0;
  uint32_t rate_failures = 0, rate_runs = 0;
  bool flaky = false;
  FailureClass cls = FailureClass::None;  // the shrunk case's class (pipeline/diagnose.hpp)
};

// Once per command, before anything runs: where the run comes from (check,
// repro, selftest and profile fill in the command line, backend and device;
// fuzz and merge all of it, for a nightly report).
struct RunHeader {
  std::string timestamp;  // UTC, ISO 8601
  std::string version, git_revision;  // git_revision empty when unknown
  BackendKind backend = BackendKind::Cpu;
  std::string device, driver;  // device: the GPU's name on cuda, "host" on cpu; driver: on cuda only
  std::vector<std::pair<std::string, std::string>> options;  // as given (or resumed)
  std::string command_line;
  // The entries this run (this shard, this lane) was asked to run, by name:
  // `merge` holds the logs against them (an entry without its result is a
  // shard that did not finish).
  std::vector<std::string> entries;
};

// `fuzz`: a failure recorded in the corpus, replayed before fuzzing.
struct ReplayRecord {
  std::string impl, token, spec, file;
  BackendKind backend = BackendKind::Cpu;
  bool still_failing = false;
  Verdict verdict = Verdict::Pass;  // the first failing run's, else Pass
  std::string why;
  uint32_t runs = 0, failures = 0;
  uint64_t ops = 0;  // over the runs
  FailureClass cls = FailureClass::None;  // a case still failing: its class (pipeline/diagnose.hpp)
};

// `fuzz`: one entry's time slice of one round; a found failure (shrunk,
// with its failure rate) when verdict is not Pass.
// Time that two slices at once both counted: each carries half (FuzzSliceRecord::paired).
struct PairedTime {
  double seconds = 0, run_s = 0, gpu_s = 0;
  bool any() const { return seconds > 0 || run_s > 0 || gpu_s > 0; }
};

struct FuzzSliceRecord {
  std::string impl;
  BackendKind backend = BackendKind::Cpu;
  uint32_t round = 0;
  double seconds = 0;
  double run_s = 0;  // of those, the code under test's running time on the GPU (cuda) or the host's threads
  double gpu_s = 0;  // cuda: the GPU's busy time, those kernels and the device's checking of their trials
  uint64_t trials = 0, ops = 0;
  uint32_t at_once = 1;  // the most trials one of its rounds ran at once (fuzz --trials-at-once)
  // Run beside another entry's slice (fuzz --slices-at-once 2): half of
  // the wall time, of the code under test's time and of the GPU's busy
  // time that the two slices both counted.  A run's totals take these off
  // each slice's seconds, run_s and gpu_s, so that the overlap counts once.
  PairedTime paired;
  Verdict verdict = Verdict::Pass;
  std::string why, token, spec;
  double time_to_catch_s = 0;  // the entry's fuzzing time until the catch, over all rounds
  uint32_t rate_failures = 0, rate_runs = 0;
  // A shrunk case that kept stress (TrialSpec::stress): its rate without it.
  uint32_t bare_failures = 0, bare_runs = 0;
  bool flaky = false;
  FailureClass cls = FailureClass::None;  // a found failure's class (CampaignResult::diagnosis)
};

// `fuzz` and `merge`: one entry's result over the whole run.
struct FuzzEntryResult {
  std::string impl;
  BackendKind backend = BackendKind::Cpu;
  Verdict verdict = Verdict::Pass;
  bool skipped = false;
  std::string skip_why;
  std::string origin;  // of a failure: "fuzz" or "corpus"
  std::string why, token, spec;
  double time_to_catch_s = 0, seconds = 0;
  double run_s = 0;  // of `seconds`, the code under test's running time on the GPU (cuda) or the host's threads
  double gpu_s = 0;  // cuda: the GPU's busy time, those kernels and the device's checking of their trials
  PairedTime paired;  // its slices' (FuzzSliceRecord::paired), summed
  uint64_t trials = 0, ops = 0;
  uint32_t rounds = 0, rate_failures = 0, rate_runs = 0;
  uint32_t bare_failures = 0, bare_runs = 0;  // a stressed shrunk case's rate without its stress
  bool flaky = false;
  // A failure's class (check/finding.hpp; None for a pass, for an entry not
  // run to its end, and in logs written before classes).
  FailureClass cls = FailureClass::None;

  bool failed() const { return verdict != Verdict::Pass; }
};

}  // namespace atomstress::reports
