#include "fuzz/nightly.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>

#include <fmt/format.h>

#include "fuzz/aggregate.hpp"
#include "fuzz/campaign.hpp"
#include "fuzz/progress.hpp"
#include "harness/pipeline/diagnose.hpp"
#include "harness/support/hash.hpp"
#include "harness/support/timestamp.hpp"
#include "properties/properties.hpp"
#include "reports/fuzz_collector.hpp"
#include "reports/fuzz_text_printer.hpp"

namespace atomstress::fuzz {

namespace {

using clock = std::chrono::steady_clock;
double since(clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); }

// One corpus case replayed for at most `max_s`: --rate-runs runs for its
// rate; a case that passed them is rerun until it fails or has passed
// runs_to_call_fixed (corpus.hpp) in a row.  A race that a loaded host hid
// from ten runs must not be called fixed (it was, on 2 busy CI cores).
properties::Evaluation replay_case(const NightlyConfig& cfg, const TrialSpec& spec, const CorpusCase& c, double max_s) {
  const auto t = clock::now();
  auto ev = properties::measure_rate(spec, cfg.backend, cfg.run, cfg.rate_runs, max_s);
  if (ev.failures > 0 || ev.verdict == Verdict::Error) return ev;
  const uint32_t wanted = runs_to_call_fixed(c);
  if (ev.runs >= wanted) return ev;
  const auto more = properties::seek_failure(spec, cfg.backend, cfg.run, wanted - ev.runs, max_s - since(t));
  ev.runs += more.runs;
  ev.failures = more.failures;
  ev.run_ms += more.run_ms;
  ev.device_check_ms += more.device_check_ms;
  ev.verdict = more.verdict;
  ev.why = more.why;
  return ev;
}

// The progress line of a replayed case: still failing, fixed, or passed
// too few runs (its time ran out) to be called fixed.
std::string replay_line(const CorpusCase& c, const properties::Evaluation& ev) {
  const uint32_t wanted = runs_to_call_fixed(c);
  const std::string runs = std::to_string(ev.failures) + " of " + std::to_string(ev.runs) + " runs failed";
  if (ev.failures > 0) return "corpus still failing: " + c.impl + " (" + runs + ")  " + c.file;
  if (ev.runs >= wanted) return "corpus fixed:         " + c.impl + " (" + runs + ")  " + c.file;
  return fmt::format("corpus not reproduced: {} ({}; {} passing runs would call it fixed, its time ran out)  {}",
                     c.impl, runs, wanted, c.file);
}

// Replays the corpus cases of this run's entries; their results join `state`.
// Each case draws from the budget (at most `slice` seconds of it, at least
// one run): a case that hangs costs one watchdog, not --rate-runs of them.
// False when a record could not be written (`error`), or a signal ended it.
// Each replayed case is saved in `state` (FuzzState::replayed_cases) once
// its record is logged: a --resume after a kill goes on with the next.
bool replay_corpus(const NightlyConfig& cfg, FuzzState& state, const std::vector<CorpusCase>& corpus, double slice,
                   reports::Printer& out, Progress& progress, const std::function<bool()>& save, std::string& error) {
  for (const CorpusCase& c : corpus) {
    const bool mine = std::any_of(cfg.entries.begin(), cfg.entries.end(),
                                  [&](const Entry* e) { return c.impl == e->name; });
    if (!mine) continue;  // another shard's, or not selected
    const std::string name = std::filesystem::path(c.file).filename().string();
    const auto& done = state.replayed_cases;
    if (std::find(done.begin(), done.end(), name) != done.end()) continue;  // replayed before a --resume
    if (cfg.stop_signal && *cfg.stop_signal) return false;
    if (state.elapsed_s >= state.budget_s) {
      progress.print("corpus " + c.file + ": not replayed: the time budget ended");
      continue;
    }
    std::string why;
    const auto spec = decode_token(c.token, why);  // checked when the corpus was loaded
    progress.set_entry(c.impl + " (corpus)");
    const auto t = clock::now();
    const auto ev = replay_case(cfg, *spec, c, std::min(slice, state.budget_s - state.elapsed_s));
    state.elapsed_s += since(t);
    progress.add(ev.runs, ev.runs * spec->ops());
    if (cfg.stop_signal && *cfg.stop_signal) return false;  // its runs may have been cut by the signal
    if (ev.verdict == Verdict::Error) {
      progress.print("corpus " + c.file + ": cannot replay here: " + ev.why);
      continue;
    }
    reports::ReplayRecord r;
    r.impl = c.impl;
    r.token = c.token;
    r.spec = describe(*spec);
    r.file = c.file;
    r.backend = cfg.backend;
    r.still_failing = ev.failures > 0;
    r.verdict = ev.verdict;
    r.why = ev.failures > 0 ? ev.why : replay_line(c, ev);
    r.runs = ev.runs;
    r.failures = ev.failures;
    r.ops = uint64_t(ev.runs) * spec->ops();
    if (r.still_failing) {
      // Its class, as a fuzzed failure's: the case replayed alone
      // (pipeline/diagnose.hpp), at the head of its why.
      const Diagnosis d = diagnose(*spec, ev.verdict, Finding{}, cfg.backend, cfg.run);
      r.cls = d.cls;
      r.why = classed_why(d, ev.why);
    }
    out.record(r);
    if (error = out.error(); !error.empty()) return false;
    add_replay(state.entries[c.impl], r);
    if (r.still_failing) progress.add_failure();
    progress.print(replay_line(c, ev));
    state.replayed_cases.push_back(name);
    if (!save()) return false;
  }
  return true;
}

}  // namespace

std::vector<std::vector<size_t>> plan_round(const std::vector<const Entry*>& entries, const FuzzState& state,
                                            uint32_t at_once, double pair_busy_at_most) {
  std::vector<std::vector<size_t>> plan;
  if (at_once < 2) return plan;
  auto pairs = [&](size_t i) {
    const auto it = state.entries.find(entries[i]->name);
    if (state.round == 0 || it == state.entries.end()) return false;
    const reports::FuzzEntryResult& r = it->second;
    return !r.skipped && !r.failed() && r.seconds > 0 && r.gpu_s <= pair_busy_at_most * r.seconds;
  };
  constexpr size_t kNone = SIZE_MAX;
  size_t filling = kNone;  // a host-bound group's position, until `at_once` entries joined it
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!pairs(i)) {
      plan.push_back({i});
      continue;
    }
    if (filling == kNone) {
      filling = plan.size();
      plan.push_back({});
    }
    plan[filling].push_back(i);
    if (plan[filling].size() == at_once) filling = kNone;
  }
  return plan;
}

double slice_seconds(double budget_s, size_t entries) {
  return std::clamp(budget_s / (4.0 * double(std::max<size_t>(entries, 1))), kShortestSlice, 60.0);
}

double measuring_slice_seconds(double slice) { return std::max(kShortestSlice, slice / 4); }

bool plan_fits(const std::vector<std::vector<size_t>>& plan, size_t entries, uint32_t slices_at_once,
               const std::string& state_path, std::string& error) {
  const size_t most = std::max<uint32_t>(slices_at_once, 1);
  std::vector<bool> named(entries, false);
  for (const auto& position : plan) {
    if (position.size() > most) {
      error = fmt::format("malformed state file '{}': its plan runs {} slices at once where this run runs {}",
                          state_path, position.size(), most);
      return false;
    }
    for (const size_t i : position) {
      if (i >= entries) {
        error = fmt::format("malformed state file '{}': its plan names entry {} of {}", state_path, i,
                            entries);
        return false;
      }
      if (named[i]) {
        error = fmt::format("malformed state file '{}': its plan names entry {} twice", state_path, i);
        return false;
      }
      named[i] = true;
    }
  }
  return true;
}

std::vector<reports::PairedTime> shared_parts(const std::vector<CampaignResult>& c, const std::vector<double>& took) {
  const size_t n = c.size();
  std::vector<reports::PairedTime> parts(n);
  std::vector<size_t> by_end(n);
  for (size_t i = 0; i < n; ++i) by_end[i] = i;
  std::sort(by_end.begin(), by_end.end(), [&](size_t a, size_t b) { return took[a] < took[b]; });
  double from = 0, shared = 0;  // shared: what each still running has counted twice so far
  for (size_t k = 0; k < n; ++k) {
    const size_t covering = n - k;
    shared += (took[by_end[k]] - from) * double(covering - 1) / double(covering);
    from = took[by_end[k]];
    parts[by_end[k]].seconds = shared;
  }
  BusyTime all;
  double run_ms = 0, gpu_ms = 0;
  for (const CampaignResult& r : c) {
    all.add_all(r.search_busy);
    run_ms += r.search_busy.ms();
    gpu_ms += r.search_busy.gpu_ms();
  }
  for (reports::PairedTime& p : parts) {
    p.run_s = std::max(0.0, run_ms - all.ms()) / (1000.0 * double(n));
    p.gpu_s = std::max(0.0, gpu_ms - all.gpu_ms()) / (1000.0 * double(n));
  }
  return parts;
}

namespace {

// A signal: every entry still running is reported interrupted (not to the
// JSON log, see reports/jsonl_printer.hpp), the state stays resumable.
int report_interrupted(const NightlyConfig& cfg, FuzzState& state, Progress& progress, reports::Printer& out) {
  progress.stop();
  const int sig = *cfg.stop_signal;
  const std::string name = sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
  const std::string spent = fmt::format("{:.1f} s of its {:.0f} s budget", state.elapsed_s, state.budget_s);
  out.note(fmt::format("\ninterrupted by {} after {}: the state is saved{}", name, spent,
                       cfg.state_path.empty() ? "" : " (resume with: fuzz --resume --state " + cfg.state_path + ")"));
  for (const Entry* e : cfg.entries) {
    auto r = state.entries[e->name];
    if (!r.skipped && !r.failed()) {
      r.verdict = Verdict::Error;
      r.origin = "interrupted";
      r.why = "the run was interrupted by " + name + " after " + spent + " before this entry's end" +
              (cfg.state_path.empty() ? "" : "; resume it with fuzz --resume");
    }
    out.record(r);
  }
  return kInterrupted;
}

// One campaign's result as a slice record (a found failure shrunk, with its
// rate, and a stressed case's rate without its stress).
reports::FuzzSliceRecord slice_record(const NightlyConfig& cfg, const FuzzState& state, const Entry& entry,
                                      const reports::FuzzEntryResult& result, const CampaignResult& c, double took,
                                      double budget_s) {
  reports::FuzzSliceRecord s;
  s.impl = entry.name;
  s.backend = cfg.backend;
  s.round = state.round;
  s.seconds = took;
  s.run_s = c.run_ms / 1000;
  s.gpu_s = c.gpu_ms / 1000;
  s.trials = c.runs;
  s.ops = c.ops;
  s.at_once = uint32_t(c.widest_at_once);
  if (!c.found || c.verdict == Verdict::Error) return s;
  s.verdict = c.verdict;
  s.why = c.why;
  s.token = encode_token(c.shrunk, cfg.run.knobs);
  s.spec = describe(c.shrunk);
  s.time_to_catch_s = result.seconds + c.time_to_catch_s;
  s.rate_failures = c.rate_failures;
  s.rate_runs = c.rate_runs;
  s.flaky = c.flaky;
  s.cls = c.diagnosis.cls;
  if (c.shrunk.stress.any()) {
    // What the stress bought: the same case without it, as many runs.
    TrialSpec bare = c.shrunk;
    bare.stress = {};
    const auto r = properties::measure_rate(bare, cfg.backend, cfg.run, cfg.rate_runs, budget_s);
    s.bare_failures = r.failures;
    s.bare_runs = r.runs;
  }
  return s;
}

enum class SliceEnd { Done, Interrupted, Failed };

bool stop_signalled(const NightlyConfig& cfg) { return cfg.stop_signal != nullptr && *cfg.stop_signal != 0; }

// An entry's campaign for this round's slice.
CampaignConfig slice_campaign(const NightlyConfig& cfg, const FuzzState& state, const Entry& entry, double slice,
                              Progress& progress) {
  CampaignConfig cc;
  cc.gen = properties::default_config(cfg.backend, {&entry});
  cc.run = cfg.run;
  cc.budget_s = std::min(slice, state.budget_s - state.elapsed_s);
  cc.reruns = cfg.reruns;
  cc.rate_runs = cfg.rate_runs;
  cc.pack = default_pack(cfg.backend);
  cc.at_once = cfg.at_once;
  cc.at_once_from = cfg.at_once_from;
  if (const auto it = state.at_once_next.find(entry.name); it != state.at_once_next.end() && cfg.at_once_from != 0)
    cc.at_once_start = it->second;
  // From the name, not the position: a slice's specs do not depend on which
  // other entries (or shards) run.
  cc.seed = state.seed * 0x9e3779b97f4a7c15ull + fnv1a64(entry.name) + state.round * 1000003ull;
  cc.on_evaluated = [&progress](uint64_t runs, uint64_t ops) { progress.add(runs, ops); };
  cc.stop = [&cfg] { return stop_signalled(cfg); };
  return cc;
}

// A slice's campaign has ended (`took` seconds): its record, a found
// failure into the corpus.  `paired`: what it shared with a slice beside it.
SliceEnd finish_slice(const NightlyConfig& cfg, FuzzState& state, const Entry& entry, const CampaignResult& c,
                      double took, double budget_s, const reports::PairedTime& paired, Progress& progress,
                      reports::Printer& out, std::string& error) {
  auto& result = state.entries[entry.name];
  if (c.verdict == Verdict::Error) {
    // The entry cannot run here (no spec applies): skipped, the rest go on.
    result.skipped = true;
    result.skip_why = c.why;
    progress.print("SKIP  " + std::string(entry.name) + ": " + c.why);
    return SliceEnd::Done;
  }
  reports::FuzzSliceRecord s = slice_record(cfg, state, entry, result, c, took, budget_s);
  s.paired = paired;
  if (stop_signalled(cfg)) return SliceEnd::Interrupted;
  add_slice(result, s);
  if (c.next_at_once != 0 && cfg.at_once_from != 0) state.at_once_next[entry.name] = uint32_t(c.next_at_once);
  out.record(s);
  // A log that cannot be appended to (a full disk) ends the run now.
  if (error = out.error(); !error.empty()) return SliceEnd::Failed;
  if (!c.found) return SliceEnd::Done;
  progress.add_failure();
  progress.print(reports::fuzz_failure_lines(result));
  if (cfg.corpus_dir.empty()) return SliceEnd::Done;
  CorpusCase found{.impl = entry.name,
                   .token = s.token,
                   .spec = s.spec,
                   .verdict = to_string(s.verdict),
                   .why = s.why,
                   .version = cfg.header.version,
                   .backend = to_string(cfg.backend),
                   .device = cfg.header.device,
                   .first_seen = utc_timestamp(),
                   .rate_failures = s.rate_failures,
                   .rate_runs = s.rate_runs,
                   .file = {}};
  bool added = false;
  if (!add_case(cfg.corpus_dir, found, added, error)) return SliceEnd::Failed;
  if (added) progress.print("      corpus: " + found.file);
  return SliceEnd::Done;
}

// One entry's time slice of this round.  With slices at once (a position
// with one active entry left), the first slice's view of the worker.
SliceEnd run_slice(const NightlyConfig& cfg, FuzzState& state, const Entry& entry, double slice,
                   Progress& progress, reports::Printer& out, std::string& error) {
  progress.set_entry(entry.name);
  CampaignConfig cc = slice_campaign(cfg, state, entry, slice, progress);
  if (cfg.slices) {
    cc.at_once = cfg.slices->runners[0];
    cc.turns = cfg.slices->turns;
  }
  const auto t = clock::now();
  const CampaignResult c = run_campaign(cc);
  const double took = since(t);
  // A slice cut by a signal is discarded: --resume runs it again.
  if (stop_signalled(cfg)) return SliceEnd::Interrupted;
  state.elapsed_s += took;
  return finish_slice(cfg, state, entry, c, took, cc.budget_s, {}, progress, out, error);
}

// Entries' slices at once (NightlyConfig::slices): the first one's
// campaign here, the others' on the kept lane; then all finished in entry
// order.
SliceEnd run_slices_at_once(const NightlyConfig& cfg, FuzzState& state, const std::vector<const Entry*>& group,
                            double slice, Progress& progress, reports::Printer& out, std::string& error) {
  const SlicesAtOnce& at = *cfg.slices;
  const size_t n = group.size();
  std::string names = group[0]->name;
  for (size_t i = 1; i < n; ++i) names += std::string(" + ") + group[i]->name;
  progress.set_entry(names);
  std::vector<CampaignConfig> cc;
  for (size_t i = 0; i < n; ++i) {
    cc.push_back(slice_campaign(cfg, state, *group[i], slice, progress));
    cc[i].at_once = at.runners[i];
    cc[i].turns = at.turns;
    cc[i].packed_lane = unsigned(i);
  }
  std::vector<CampaignResult> c(n);
  std::vector<double> took(n, 0.0);
  const auto t = clock::now();
  std::vector<std::future<void>> others;
  for (size_t i = 1; i < n; ++i) {
    auto job = std::make_shared<std::packaged_task<void()>>([&, i] {
      c[i] = run_campaign(cc[i]);
      took[i] = since(t);
    });
    others.push_back(job->get_future());
    at.lane->submit([job] { (*job)(); });
  }
  try {
    c[0] = run_campaign(cc[0]);
  } catch (...) {
    for (auto& o : others) o.wait();  // the other campaigns use this frame's configs and results
    throw;
  }
  took[0] = since(t);
  for (auto& o : others) o.wait();
  for (auto& o : others) o.get();  // (an exception of another campaign's is rethrown here)
  const double wall = since(t);
  if (stop_signalled(cfg)) return SliceEnd::Interrupted;
  state.elapsed_s += wall;
  const std::vector<reports::PairedTime> parts = shared_parts(c, took);
  for (size_t i = 0; i < n; ++i)
    if (const SliceEnd end = finish_slice(cfg, state, *group[i], c[i], took[i], cc[i].budget_s, parts[i], progress,
                                          out, error);
        end != SliceEnd::Done)
      return end;
  return SliceEnd::Done;
}

// The run's end: an entry the budget never reached is not a pass; every
// entry's result; the time split.  1 when one failed.
int report_results(const NightlyConfig& cfg, FuzzState& state, reports::Printer& out) {
  int status = 0;
  out.note("");
  double fuzzed_s = 0, ran_s = 0, gpu_s = 0;
  for (const Entry* e : cfg.entries) {
    const auto& r = state.entries[e->name];
    fuzzed_s += r.seconds - r.paired.seconds;
    ran_s += r.run_s - r.paired.run_s;
    gpu_s += r.gpu_s - r.paired.gpu_s;
    out.record(r);
    if (r.failed()) status = 1;
  }
  out.note(reports::FuzzCollector::busy_line(fuzzed_s, ran_s, cfg.backend, cfg.run.policy.gpu_share,
                                             cfg.trials_at_once, gpu_s, cfg.at_once_from,
                                             cfg.slices ? cfg.slices->count : 1));
  return status;
}

}  // namespace

int run_nightly(const NightlyConfig& cfg, FuzzState& state, const std::vector<CorpusCase>& corpus,
                reports::Printer& out, std::string& error) {
  Progress progress(state.budget_s, state.elapsed_s, cfg.progress_s, cfg.label);
  for (const auto& [name, e] : state.entries) {
    progress.add(e.trials, e.ops);
    if (e.failed()) progress.add_failure();
  }
  auto save = [&] { return cfg.state_path.empty() || save_state(cfg.state_path, state, error); };
  for (const Entry* e : cfg.entries) {
    auto& r = state.entries[e->name];
    r.impl = e->name;
    r.backend = cfg.backend;
    if (e->gpu_only && cfg.backend == BackendKind::Cpu) {
      r.skipped = true;
      r.skip_why = cpu_skip_reason(*e);
    }
  }
  auto stopped = [&] { return cfg.stop_signal != nullptr && *cfg.stop_signal != 0; };
  const double slice = slice_seconds(state.budget_s, cfg.entries.size());
  if (!state.replayed) {
    // Saved before the replay, which may take a slice per case: a kill
    // during it leaves a state to resume from.
    if (!save()) return 2;
    if (!replay_corpus(cfg, state, corpus, slice, out, progress, save, error))
      return stopped() && error.empty() ? report_interrupted(cfg, state, progress, out) : 2;
    state.replayed = true;
    state.replayed_cases.clear();
    if (!save()) return 2;
  }
  auto active = [&](const Entry* e) {
    const auto& r = state.entries[e->name];
    return !r.skipped && !r.failed();
  };
  if (!plan_fits(state.plan, cfg.entries.size(), cfg.slices ? cfg.slices->count : 1, cfg.state_path, error))
    return 2;
  // A round's positions (plan_round): made as it begins, kept on --resume.
  auto positions = [&] { return state.plan.empty() ? cfg.entries.size() : state.plan.size(); };
  while (state.elapsed_s < state.budget_s && std::any_of(cfg.entries.begin(), cfg.entries.end(), active)) {
    if (state.next == 0)
      state.plan = plan_round(cfg.entries, state, cfg.slices ? cfg.slices->count : 1, cfg.pair_busy_at_most);
    // Round 0 measures each entry alone for the plan: shorter slices.
    const double this_slice = cfg.slices && state.round == 0 ? measuring_slice_seconds(slice) : slice;
    while (state.next < positions() && state.elapsed_s < state.budget_s) {
      if (stopped()) return report_interrupted(cfg, state, progress, out);
      std::vector<const Entry*> now;
      for (const size_t i : state.plan.empty() ? std::vector<size_t>{state.next} : state.plan[state.next])
        if (active(cfg.entries[i])) now.push_back(cfg.entries[i]);
      if (now.empty()) {
        ++state.next;
        continue;
      }
      const SliceEnd end = now.size() == 1 ? run_slice(cfg, state, *now[0], this_slice, progress, out, error)
                                           : run_slices_at_once(cfg, state, now, this_slice, progress, out, error);
      if (end == SliceEnd::Interrupted) return report_interrupted(cfg, state, progress, out);
      if (end == SliceEnd::Failed) return 2;
      // Logged before saved: a kill in between repeats this slice on
      // --resume rather than losing its record.
      ++state.next;
      if (!save()) return 2;
    }
    if (state.next >= positions()) {
      state.next = 0;
      ++state.round;
    }
  }
  for (const Entry* e : cfg.entries) {
    auto& r = state.entries[e->name];
    if (!r.skipped && !r.failed() && r.rounds == 0) {
      r.skipped = true;
      r.skip_why = "the time budget ended before its first slice";
    }
  }
  state.finished = true;
  if (!save()) return 2;
  progress.stop();
  return report_results(cfg, state, out);
}

}  // namespace atomstress::fuzz
