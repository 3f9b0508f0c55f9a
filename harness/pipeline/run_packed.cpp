#include "harness/pipeline/run_packed.hpp"

#include <algorithm>
#include <atomic>
#include <latch>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "harness/backend/gpu_checked.hpp"
#include "harness/backend/packed.hpp"
#include "harness/check/gpu_checker.hpp"
#include "harness/pipeline/pack_judging.hpp"
#include "harness/pipeline/trial_threads.hpp"

namespace atomstress {

namespace {

// Kept threads beside the caller's for the host's share of a pack
// (expansion, host judging): started once, never joined (a thread created
// per call cost more than the work of a small pack).
TrialThreads& host_pool() {
  static TrialThreads* pool = new TrialThreads(std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), 16) - 1);
  return *pool;
}

// fn() on the calling thread and on `helpers` threads of `pool` at once,
// back when every call has returned.
template <class Fn>
void run_beside(TrialThreads& pool, size_t helpers, const Fn& fn) {
  std::latch helpers_done{std::ptrdiff_t(helpers)};
  for (size_t t = 0; t < helpers; ++t)
    pool.submit([&] {
      fn();
      helpers_done.count_down();
    });
  fn();
  helpers_done.wait();
}

// fn(i) for i in [0, n) over the host's cores (at most 16 threads), in
// batches: expanding and judging small trials is host work that scales.
template <class Fn>
void parallel_for(size_t n, Fn&& fn) {
  const size_t hw = std::max(1u, std::thread::hardware_concurrency());
  const size_t threads = std::min<size_t>({hw, 16, n / 32 + 1});
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (;;) {
      const size_t first = next.fetch_add(16);
      if (first >= n) return;
      for (size_t i = first; i < std::min(n, first + 16); ++i) fn(i);
    }
  };
  if (threads > 1) run_beside(host_pool(), threads - 1, work);
  else work();
}

// Whether the device can judge launches of the entry (gpu_checked.hpp: its
// device oracle agrees with its host phi, and the device is usable with the
// free memory of a kPackLaunchOps-op check), asked once per entry and
// process: the limit asks the device for its free memory, about 0.1 ms a
// call on the H100 before any launch could start.  (A launch's judging
// needs a few MB; one that cannot allocate them fails with a CUDA error and
// leaves its instances to the host.)
bool device_judging_supported(const Entry& entry) {
  static std::mutex mu;
  static std::map<const Entry*, bool> known;
  std::lock_guard lock(mu);
  const auto [it, fresh] = known.try_emplace(&entry, false);
  if (fresh)
    it->second = !entry.algo && entry.device_edges && gpu_checkable(entry, kPackLaunchOps, gpu_check::device_judge());
  return it->second;
}

// A pack allocates a few MB a call (a PackedTrial and an Outcome an instance,
// about 1 KB); glibc hands blocks that large back to the kernel when they are
// freed, and every call faulted them in afresh: 1.3 ms of 4096 instances on
// the build machine, before any launch could start.  Freed memory is kept
// for reuse from the first pack of the process on.
void keep_freed_memory() {
#if defined(__GLIBC__)
  static std::once_flag once;
  std::call_once(once, [] {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's most
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
  });
#endif
}

// Whether a loop of the launch of `members` gave up (its budget or the
// deadline): read right after the run, before its judging frees the arrays.
bool launch_gave_up(const std::vector<size_t>& members, const std::vector<PackedTrial>& trials) {
  for (const size_t i : members) {
    const PackedTrial& t = trials[i];
    if (t.device_judged && (t.device.flags & kPackGaveUp) != 0) return true;
    for (const uint8_t g : t.h.gave_up)
      if ((g & ~kBlockScopeBit) != 0) return true;
  }
  return false;
}

// Threads that run a pack's launches at once: each its own stream and
// buffers (the cuda backend's are per thread).  A launch's plan, its
// device judging and its instances' outcomes are host work of about a
// microsecond an instance (docs/speed.md), which one thread did while the
// GPU waited.  Two at least, so that one launch is judged while another runs.
std::atomic<size_t> launch_threads_setting{0};
size_t launch_threads() {
  if (const size_t set = launch_threads_setting.load(); set != 0) return set;
  const size_t hw = std::max(1u, std::thread::hardware_concurrency());
  return std::clamp<size_t>(hw / 2, 2, kPackLaunchThreads);
}

// The threads beside the caller's, started once and kept for the process
// (never joined: their device buffers are allocated once, and are not freed
// while the CUDA runtime shuts down at exit).
TrialThreads& launch_pool() {
  static TrialThreads* pool = new TrialThreads(kPackLaunchThreads - 1);
  return *pool;
}

// Every spec's shape where it packs (over the host's cores); the others
// keep no workload.
std::vector<PackedTrial> expand_shapes(std::span<const TrialSpec> specs) {
  std::vector<PackedTrial> trials(specs.size());
  parallel_for(specs.size(), [&](size_t i) {
    std::string error;
    auto w = expand_shape(specs[i], error);
    if (w && packable(*w)) trials[i].w = std::move(w);
  });
  return trials;
}

// For each entry of the pack, whether the device judges its launches
// (packs_judged_on_device), decided before anything runs.
std::map<const Entry*, bool> decide_device_judging(const std::vector<PackedTrial>& trials, const RunOptions& opt) {
  std::map<const Entry*, bool> on_device;
  for (const PackedTrial& t : trials)
    if (t.w && !on_device.count(t.w->impl))
      on_device[t.w->impl] =
          packs_judged_on_device(opt.policy.checker, [&] { return device_judging_supported(*t.w->impl); });
  return on_device;
}

// The instances of an entry the device judges stay shapes: the packed
// runner expands their inputs on the device (PackItem), and copies them back
// only for an instance the host judges.  The others are expanded here, over
// the host's cores, with their family's setup; one whose setup fails keeps
// no workload (it runs alone and says why).
void expand_host_judged(std::vector<PackedTrial>& trials, const std::map<const Entry*, bool>& on_device) {
  if (std::all_of(on_device.begin(), on_device.end(), [](const auto& e) { return e.second; })) return;
  parallel_for(trials.size(), [&](size_t i) {
    PackedTrial& t = trials[i];
    if (!t.w || on_device.at(t.w->impl)) return;
    expand_arrays(*t.w);
    std::string error;
    t.s = t.w->impl->family->setup(*t.w, error);
    if (!t.s) t.w.reset();
  });
}

// One call's launches, run by several threads at once (run_launches on
// each): what they share, and each launch's steps.
struct PackRun {
  PackRun(std::span<const TrialSpec> specs_, BackendKind backend_, const RunOptions& opt_, uint64_t seed_,
          const std::function<void(size_t, size_t)>& launched_, std::string* launch_error_,
          std::vector<std::optional<Outcome>>& results_, std::vector<PackedTrial> trials_,
          std::map<const Entry*, bool> device_judging_)
      : specs(specs_), backend(backend_), opt(opt_), seed(seed_), launched(launched_), launch_error(launch_error_),
        results(results_), trials(std::move(trials_)), device_judging(std::move(device_judging_)) {}

  std::span<const TrialSpec> specs;
  BackendKind backend;
  const RunOptions& opt;
  uint64_t seed;
  const std::function<void(size_t, size_t)>& launched;
  std::string* launch_error;
  std::vector<std::optional<Outcome>>& results;
  std::vector<PackedTrial> trials;
  std::vector<std::vector<size_t>> launches;
  const std::map<const Entry*, bool> device_judging;  // per entry: whether the device judges (and expands) its packs

  std::mutex mu;  // guards the members below
  std::set<const Entry*> gave_up;  // entries a launch of which had a loop give up
  size_t done = 0;
  bool context_lost = false;
  std::atomic<size_t> next{0};

  void run_launches() {
    std::vector<PackItem> items;
    for (size_t l = next.fetch_add(1); l < launches.size(); l = next.fetch_add(1)) {
      const auto& members = launches[l];
      const Entry& entry = *trials[members.front()].w->impl;
      bool on_device = false;
      const Start start = may_start(entry, on_device);
      if (start == Start::Stop) return;  // the context was lost: nothing more runs here
      if (start == Start::Skip) continue;  // left to run alone
      items.clear();
      for (size_t i : members) {
        trials[i].device_judged = on_device;
        items.push_back(PackItem{&*trials[i].w, trials[i].s ? &*trials[i].s : nullptr, &trials[i].h,
                                 on_device ? &trials[i].device : nullptr});
      }
      std::string error;
      const bool ran = entry.run_cuda_packed(items.data(), items.size(), opt, seed + l, error);
      if (ended(entry, members, ran, error)) judge(members);
    }
  }

  // Whether a launch of `entry` may start (not after the context was lost,
  // nor after a launch of the entry gave up), and whether the device judges it.
  enum class Start { Run, Skip, Stop };
  Start may_start(const Entry& entry, bool& on_device) {
    std::lock_guard lock(mu);
    if (context_lost) return Start::Stop;
    if (gave_up.count(&entry)) {
      if (launched) launched(++done, launches.size());
      return Start::Skip;
    }
    on_device = device_judging.at(&entry);
    return Start::Run;
  }

  // A launch ended: whether its instances are to be judged (a launch that
  // failed as a whole judges nothing: they run alone).
  bool ended(const Entry& entry, const std::vector<size_t>& members, bool ran, const std::string& error) {
    std::lock_guard lock(mu);
    if (launched) launched(++done, launches.size());
    if (!ran) {
      if (launch_error && launch_error->empty()) *launch_error = error;
      std::string lost;
      if (cuda_context_lost(lost)) context_lost = true;
      return false;
    }
    // A launch where a loop gave up is its entry's last to start: the same
    // bug would hold every later launch of the entry to its deadline too (a
    // loop that never ends stops only there), so the instances of its
    // launches not yet started are left to run alone, as a pack that
    // trapped leaves all of its instances.
    if (launch_gave_up(members, trials)) gave_up.insert(&entry);
    return true;
  }

  // An instance the device passed takes a moment: only those the host
  // judges are spread over its cores.
  void judge(const std::vector<size_t>& members) {
    auto judge_one = [&](size_t i) {
      results[i] = judge_packed_trial(specs[i], trials[i], backend, opt);
      trials[i] = PackedTrial{};  // its arrays are no longer needed
    };
    std::vector<size_t> on_host;
    for (const size_t i : members) {
      if (host_judges(trials[i].device_judged ? &trials[i].device : nullptr, opt.policy.checker)) on_host.push_back(i);
      else judge_one(i);
    }
    parallel_for(on_host.size(), [&](size_t j) { judge_one(on_host[j]); });
  }
};

}  // namespace

std::vector<std::vector<size_t>> group_launches(const std::vector<PackedTrial>& trials, size_t spread) {
  std::map<const Entry*, std::vector<size_t>> by_entry;
  std::map<const Entry*, uint64_t> entry_ops;
  for (size_t i = 0; i < trials.size(); ++i)
    if (trials[i].w) {
      by_entry[trials[i].w->impl].push_back(i);
      entry_ops[trials[i].w->impl] += trials[i].w->ops();
    }
  std::vector<std::vector<size_t>> launches;
  for (const auto& [entry, members] : by_entry) {
    const uint64_t share = (entry_ops[entry] + std::max<size_t>(spread, 1) - 1) / std::max<size_t>(spread, 1);
    const uint64_t cap = std::clamp<uint64_t>(share, kPackMinLaunchOps, kPackLaunchOps);
    uint64_t ops = cap;
    for (size_t i : members) {
      if (ops + trials[i].w->ops() > cap) {
        launches.emplace_back();
        ops = 0;
      }
      launches.back().push_back(i);
      ops += trials[i].w->ops();
    }
  }
  return launches;
}

void set_pack_launch_threads(size_t threads) {
  launch_threads_setting.store(std::min<size_t>(threads, kPackLaunchThreads));
}

uint64_t packed_launch_deadline_ms(const RunOptions& opt) { return effective_watchdog_ms(opt, kPackLaunchOps); }

bool packs(const TrialSpec& spec, BackendKind backend) {
  if (backend != BackendKind::Cuda) return false;
  std::string error;
  const auto w = expand_shape(spec, error);
  return w && packable(*w);
}

std::vector<std::optional<Outcome>> run_packed_trials(std::span<const TrialSpec> specs, BackendKind backend,
                                                      const RunOptions& opt, uint64_t seed,
                                                      const std::function<void(size_t, size_t)>& launched,
                                                      std::string* launch_error) {
  keep_freed_memory();
  std::vector<std::optional<Outcome>> results(specs.size());
  if (backend != BackendKind::Cuda || specs.empty()) return results;
  std::vector<PackedTrial> trials = expand_shapes(specs);
  std::map<const Entry*, bool> device_judging = decide_device_judging(trials, opt);
  expand_host_judged(trials, device_judging);
  PackRun run{specs, backend, opt, seed, launched, launch_error, results, std::move(trials), std::move(device_judging)};
  const size_t threads = launch_threads();
  run.launches = group_launches(run.trials, threads);
  // Each thread takes the next launch, runs it and judges it; the launches
  // of the other threads run meanwhile (the GPU and the host's cores
  // overlap).
  const size_t helpers = std::min(threads, run.launches.size()) - (run.launches.empty() ? 0 : 1);
  run_beside(launch_pool(), helpers, [&] { run.run_launches(); });
  return results;
}

}  // namespace atomstress
