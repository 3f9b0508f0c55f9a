#include "harness/pipeline/profile.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "harness/backend/bare_kernel.hpp"
#include "harness/registry/family.hpp"
#include "harness/registry/registry.hpp"

namespace atomstress {

std::string point_name(const TrialSpec& spec) {
  return spec.impl + "/k:" + std::to_string(spec.k) +
         "/pattern:" + to_string(spec.pattern) + "/grid:" + std::to_string(spec.grid) +
         "/block:" + std::to_string(spec.block) + "/ops:" + std::to_string(spec.ops_per_thread) +
         "/space:" + to_string(spec.space) + "/dist:" + to_string(spec.dist);
}

std::string ProfilePoint::name() const { return point_name(spec); }

const char* ProfilePoint::item_unit() const {
  return per_launch ? "launch" : impl && impl->algo ? "element" : "op";
}

const ProfilePoint* most_contended(const std::vector<ProfilePoint>& points) {
  const ProfilePoint* best = nullptr;
  for (const auto& p : points) {
    const bool spread = p.hotspots.size() > 1;
    if (best && spread != (best->hotspots.size() > 1)) {
      if (spread) best = &p;  // more than one address beats any single one
      continue;
    }
    if (!best) {
      best = &p;
      continue;
    }
    const double c = p.cycles_per_op.value_or(0), bc = best->cycles_per_op.value_or(0);
    if (p.retries_mean != best->retries_mean ? p.retries_mean > best->retries_mean
        : c != bc                            ? c > bc
                                             : p.items_per_second < best->items_per_second)
      best = &p;
  }
  return best;
}

uint32_t percentile(std::vector<uint32_t>& v, double q) {
  if (v.empty()) return 0;
  const size_t rank = size_t(std::ceil(q * double(v.size())));
  const size_t i = std::min(v.size() - 1, rank == 0 ? 0 : rank - 1);
  std::nth_element(v.begin(), v.begin() + ptrdiff_t(i), v.end());
  return v[i];
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double relative_noise(const std::vector<double>& xs) {
  if (xs.size() < 2) return 0;
  double mean = 0;
  for (double x : xs) mean += x;
  mean /= double(xs.size());
  double var = 0;
  for (double x : xs) var += (x - mean) * (x - mean);
  var /= double(xs.size() - 1);
  return mean > 0 ? std::sqrt(var) / mean : 0;
}


}  // namespace

bool measure(const ProfileSettings& settings,
             const std::function<bool(uint32_t reps, double& s_per_launch, std::string& error)>& batch,
             Timing& out, std::string& error) {
  out = {};
  const auto t0 = Clock::now();
  // Calibration: one launch says how many make a batch of target_batch_s.
  double one = 0;
  if (!batch(1, one, error)) return false;
  if (seconds_since(t0) >= settings.max_time_s) {
    // One launch already spent the cap (a CAS loop with the whole grid on
    // one word can take seconds): that launch is the measurement.
    out.launches = out.batches = 1;
    out.s_per_launch = one;
    return true;
  }
  const uint32_t reps =
      one > 0 ? uint32_t(std::clamp(settings.target_batch_s / one, 1.0, 1000.0)) : 1000u;
  std::vector<double> samples;
  for (;;) {
    double s = 0;
    if (!batch(reps, s, error)) return false;
    samples.push_back(s);
    out.launches += reps;
    out.noise = relative_noise(samples);
    out.converged = samples.size() >= settings.min_batches && out.noise <= settings.max_noise;
    if (out.converged || seconds_since(t0) >= settings.max_time_s) break;
  }
  out.batches = uint32_t(samples.size());
  double sum = 0;
  for (double s : samples) sum += s;
  out.s_per_launch = sum / double(samples.size());
  return true;
}

namespace {
// A kernel entry's timed run, judged: KernelCase's timing mode leaves the
// buffers as one launch from the property's state, so its oracle judges a
// real run.  The first failure (the oracle's, a write outside a buffer, a
// fault or a hang: h.fault) is the point's, and ends its timing.  `ran`:
// run_workload's answer.
void judge_kernel_run(const Workload& w, const Setup& setup, const History& h, bool ran, const std::string& why,
                      ProfilePoint& out) {
  if (out.verdict != Verdict::Pass) return;
  if (!ran) {
    if (h.fault == RunFault::None) return;  // no fault of the kernel: the caller's error
    out.verdict = h.fault == RunFault::Hang ? Verdict::Hang : Verdict::Crash;
    out.why = why;
  } else if (Finding f = check_trial(w, setup, h); !f.ok()) {
    out.verdict = Verdict::Fail;
    out.why = f.explanation;
  }
}

// One run of the timing pass: on cuda the runner times its launches itself
// (events, memory restored before each, nothing recorded; a kernel entry:
// each of its property's launches, summed), on cpu the whole run.
bool timed_run(const Workload& w, const Setup& setup, const ProfileSettings& settings, uint32_t reps,
               ProfilePoint& out, double& ms, std::string& error) {
  RunOptions opt = settings.run;
  if (settings.backend == BackendKind::Cuda) {
    opt.timing.bench_reps = reps;
    opt.timing.flush_l2 = out.cold;
  }
  History h;
  const bool ran = run_workload(w, setup, settings.backend, opt, h, error);
  if (out.per_launch) judge_kernel_run(w, setup, h, ran, error, out);
  ms = h.kernel_ms;
  return ran;
}

// (a) Timing.
bool time_point(const Workload& w, const Setup& setup, const ProfileSettings& settings, ProfilePoint& out,
                std::string& error) {
  const bool cuda = settings.backend == BackendKind::Cuda;
  auto timed_batch = [&](uint32_t reps, double& s_per_launch, std::string& err) {
    double ms = 0;
    // A kernel entry's first failure ends its point's timing (false, no error).
    if (cuda) {
      if (!timed_run(w, setup, settings, reps, out, ms, err) || out.verdict != Verdict::Pass) return false;
      s_per_launch = ms / 1e3;
      return true;
    }
    const auto t0 = Clock::now();
    for (uint32_t r = 0; r < reps; ++r)
      if (!timed_run(w, setup, settings, reps, out, ms, err) || out.verdict != Verdict::Pass) return false;
    s_per_launch = seconds_since(t0) / reps;
    return true;
  };
  if (!measure(settings, timed_batch, out.timing, error)) {
    // A kernel that failed, hung or faulted: its point's verdict, not the
    // sweep's error, and no time (a launch its guard check or a fault
    // stopped was not timed; a wrong kernel's time is not what is asked).
    if (!out.per_launch || out.verdict == Verdict::Pass) return false;
    error.clear();
    out.timing = {};
    return true;
  }
  out.items_per_second = out.timing.s_per_launch > 0 ? double(out.items) / out.timing.s_per_launch : 0;
  return true;
}

// The instrumented run's retries and cycles per op.
void record_contention(const History& h, ProfilePoint& out) {
  std::vector<uint32_t> retries = h.retries;
  uint64_t total = 0;
  for (uint32_t r : retries) total += r;
  out.retries_mean = retries.empty() ? 0 : double(total) / double(retries.size());
  out.retries_max = retries.empty() ? 0 : *std::max_element(retries.begin(), retries.end());
  out.retries_p50 = percentile(retries, 0.50);
  out.retries_p99 = percentile(retries, 0.99);
  if (!h.cycles.empty()) {
    uint64_t cycles = 0;
    for (uint32_t c : h.cycles) cycles += c;
    out.cycles_per_op = double(cycles) / double(h.cycles.size());
  }
}

// (b) One instrumented run, checked.
bool run_checked(const Workload& w, const Setup& setup, const ProfileSettings& settings, ProfilePoint& out,
                 std::string& error) {
  History h;
  if (!run_workload(w, setup, settings.backend, settings.run, h, error)) return false;
  record_contention(h, out);
  if (w.impl->family->profiles_addresses()) out.hotspots = hottest_addresses(w, h, settings.hotspots);
  const bool gave_up = std::any_of(h.gave_up.begin(), h.gave_up.end(), gave_up_by_itself);
  if (gave_up) {
    out.verdict = Verdict::Hang;
    out.why = "an operation gave up (retry budget or watchdog): run 'atomstress check' on this spec";
  } else if (Finding f = check_trial(w, setup, h); !f.ok()) {
    out.verdict = Verdict::Fail;
    out.why = f.explanation;
  }
  return true;
}

// The bare kernel, timed by the same rule.
bool time_baseline(const Workload& w, const ProfileSettings& settings, ProfilePoint& out, std::string& error) {
  const uint64_t watchdog_ms = effective_watchdog_ms(settings.run, w.ops());
  Timing bare;
  auto bare_batch = [&](uint32_t reps, double& s_per_launch, std::string& err) {
    return time_bare_kernel(w, reps, watchdog_ms, out.cold, s_per_launch, err);
  };
  if (!measure(settings, bare_batch, bare, error)) return false;
  out.baseline = bare;
  if (bare.s_per_launch > 0) {
    out.baseline_items_per_second = double(out.items) / bare.s_per_launch;
    out.ratio_to_baseline = out.items_per_second / *out.baseline_items_per_second;
  }
  return true;
}
}  // namespace

bool profile_point(const TrialSpec& spec, const ProfileSettings& settings, ProfilePoint& out, std::string& error) {
  out = {};
  out.spec = spec;
  out.backend = settings.backend;
  auto w = expand(spec, error);
  if (!w) return false;
  out.impl = w->impl;
  out.per_launch = is_kernel_entry(*w->impl);
  out.items = out.per_launch ? 1 : w->ops();
  std::string why;
  const auto setup = setup_trial(*w, why);
  if (!setup) {
    out.not_applicable = why;  // the family's own limit, not a failure
    return true;
  }
  const bool cuda = settings.backend == BackendKind::Cuda;
  out.cold = cuda && settings.cold;  // the cpu backend has no L2 of ours to flush
  if (!time_point(*w, *setup, settings, out, error)) return false;
  if (out.per_launch) return true;  // judged on its timed runs; no instrumented pass
  if (!run_checked(*w, *setup, settings, out, error)) return false;
  if (settings.baseline && cuda && has_bare_kernel(*w->impl, spec)) return time_baseline(*w, settings, out, error);
  return true;
}

}  // namespace atomstress
