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

// Whether a loop of a launch gave up (its budget or the deadline): read
// right after the run, from its instances' verdicts and histories.
bool launch_gave_up(const std::vector<PackedTrial>& trials) {
  for (const PackedTrial& t : trials) {
    if (!t.w) continue;
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

// For each entry of the pack, whether the device judges its launches
// (packs_judged_on_device), decided before anything runs.
std::map<const Entry*, bool> decide_device_judging(const std::vector<const Entry*>& entries, const RunOptions& opt) {
  std::map<const Entry*, bool> on_device;
  for (const Entry* entry : entries)
    if (!on_device.count(entry))
      on_device[entry] = packs_judged_on_device(opt.policy.checker, [&] { return device_judging_supported(*entry); });
  return on_device;
}

// A launch's instances, made ready to run, one per member: the spec's
// shape where it packs (else no workload: it runs alone).  An instance the
// device judges stays a shape (the packed runner expands its inputs on the
// device, PackItem); one the host judges is expanded here with its family's
// setup, and keeps no workload where the setup fails (it runs alone and
// says why).
void make_instance(const TrialSpec& spec, bool on_device, PackedTrial& t) {
  std::string error;
  auto w = expand_shape(spec, error);
  if (!w || !packable(*w)) return;
  t.w = std::move(w);
  if (on_device) return;
  expand_arrays(*t.w);
  t.s = t.w->impl->family->setup(*t.w, error);
  if (!t.s) t.w.reset();
}

// One call's launches, run by several threads at once (run_launches on
// each): what they share, and each launch's steps.  A launch's instances
// live with it (PackRun::trials[l]): its thread makes them (a shape each,
// about a tenth of a microsecond) right before it runs them, so the first
// launch starts without waiting for the whole call's shapes, and no
// call-wide array of instances is built.  The instances the host judges are expanded before
// any launch, over the host's cores (their arrays take a few microseconds
// each: a launch's thread making its own made it wait for them).
struct PackRun {
  PackRun(std::span<const TrialSpec> specs_, BackendKind backend_, const RunOptions& opt_, uint64_t seed_,
          const std::function<void(size_t, size_t)>& launched_, std::string* launch_error_,
          std::vector<LaunchSpan>* spans_, std::vector<std::optional<Outcome>>& results_)
      : specs(specs_), backend(backend_), opt(opt_), seed(seed_), launched(launched_), launch_error(launch_error_),
        spans(spans_), results(results_) {}

  std::span<const TrialSpec> specs;
  BackendKind backend;
  const RunOptions& opt;
  uint64_t seed;
  const std::function<void(size_t, size_t)>& launched;
  std::string* launch_error;
  std::vector<LaunchSpan>* spans;  // guarded by mu
  std::vector<std::optional<Outcome>>& results;
  std::vector<std::vector<size_t>> launches;       // spec indices, one entry each (group_launches)
  std::vector<const Entry*> launch_entry;          // per launch
  std::vector<std::vector<PackedTrial>> trials;    // per launch: its members' instances, in order
  std::map<const Entry*, bool> device_judging;     // per entry: whether the device judges (and expands) its packs

  std::mutex mu;  // guards the members below
  std::set<const Entry*> gave_up;  // entries a launch of which had a loop give up
  size_t done = 0;
  bool context_lost = false;
  std::atomic<size_t> next{0};

  void plan(size_t spread) {
    launches = group_launches(specs, spread);
    for (const auto& members : launches) launch_entry.push_back(find_impl(specs[members.front()].impl));
    device_judging = decide_device_judging(launch_entry, opt);
    trials.resize(launches.size());
  }

  // The instances of the launches the host judges, over the host's cores.
  void expand_host_judged() {
    std::vector<std::pair<size_t, size_t>> todo;  // (launch, member)
    for (size_t l = 0; l < launches.size(); ++l) {
      if (device_judging.at(launch_entry[l])) continue;
      trials[l].resize(launches[l].size());
      for (size_t j = 0; j < launches[l].size(); ++j) todo.emplace_back(l, j);
    }
    parallel_for(todo.size(), [&](size_t k) {
      const auto [l, j] = todo[k];
      make_instance(specs[launches[l][j]], false, trials[l][j]);
    });
  }

  void run_launches() {
    std::vector<PackItem> items;
    for (size_t l = next.fetch_add(1); l < launches.size(); l = next.fetch_add(1)) {
      const Entry& entry = *launch_entry[l];
      bool on_device = false;
      const Start start = may_start(entry, on_device);
      if (start == Start::Stop) return;  // the context was lost: nothing more runs here
      if (start == Start::Skip) continue;  // left to run alone
      std::vector<PackedTrial>& mine = trials[l];
      if (on_device) {
        mine.resize(launches[l].size());
        for (size_t j = 0; j < mine.size(); ++j) make_instance(specs[launches[l][j]], true, mine[j]);
      }
      items.clear();
      for (PackedTrial& t : mine) {
        if (!t.w) continue;  // runs alone
        t.device_judged = on_device;
        items.push_back(PackItem{&*t.w, t.s ? &*t.s : nullptr, &t.h, on_device ? &t.device : nullptr});
      }
      std::string error;
      const bool ran = items.empty() || entry.run_cuda_packed(items.data(), items.size(), opt, seed + l, error);
      if (ran && !items.empty()) took(items);
      if (ended(entry, mine, ran, error)) judge(l);
      mine = {};  // its arrays are no longer needed
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

  // A launch that ran: its kernel's span (each instance's history holds its
  // share of the time and the launch's end), and its judging's on the
  // device (each instance's device verdict holds its share).
  void took(const std::vector<PackItem>& items) {
    if (spans == nullptr) return;
    const double n = double(items.size());
    std::lock_guard lock(mu);
    spans->push_back({items[0].h->kernel_end_s, items[0].h->kernel_ms * n});
    if (const PackDeviceVerdict* judged = items[0].device; judged != nullptr && judged->device_ms > 0)
      spans->push_back({judged->end_s, judged->device_ms * n, true});
  }

  // A launch ended: whether its instances are to be judged (a launch that
  // failed as a whole judges nothing: they run alone).
  bool ended(const Entry& entry, const std::vector<PackedTrial>& mine, bool ran, const std::string& error) {
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
    if (launch_gave_up(mine)) gave_up.insert(&entry);
    return true;
  }

  // An instance the device passed takes a moment: only those the host
  // judges are spread over its cores.
  void judge(size_t l) {
    std::vector<PackedTrial>& mine = trials[l];
    auto judge_one = [&](size_t j) { results[launches[l][j]] = judge_packed_trial(specs[launches[l][j]], mine[j], backend, opt); };
    std::vector<size_t> on_host;
    for (size_t j = 0; j < mine.size(); ++j) {
      if (!mine[j].w) continue;
      if (host_judges(mine[j].device_judged ? &mine[j].device : nullptr, opt.policy.checker)) on_host.push_back(j);
      else judge_one(j);
    }
    parallel_for(on_host.size(), [&](size_t k) { judge_one(on_host[k]); });
  }
};

}  // namespace

std::vector<std::vector<size_t>> group_launches(std::span<const TrialSpec> specs, size_t spread) {
  // The entries in the order of their first instance (a pack has few: a
  // linear search, the last one found tried first).
  struct EntryInstances {
    const Entry* entry;
    std::vector<size_t> members;
    uint64_t ops = 0;
  };
  std::vector<EntryInstances> by_entry;
  size_t last = 0;
  const Entry* named = nullptr;  // the entry specs[i - 1] names (most specs of a pack name the one before's)
  for (size_t i = 0; i < specs.size(); ++i) {
    if (i == 0 || specs[i].impl != specs[i - 1].impl) named = find_impl(specs[i].impl);
    const Entry* entry = packable_spec(named, specs[i]) ? named : nullptr;
    if (entry == nullptr) continue;
    if (last >= by_entry.size() || by_entry[last].entry != entry) {
      last = size_t(std::find_if(by_entry.begin(), by_entry.end(), [&](const auto& e) { return e.entry == entry; }) -
                    by_entry.begin());
      if (last == by_entry.size()) by_entry.push_back({entry, {}, 0});
    }
    by_entry[last].members.push_back(i);
    by_entry[last].ops += specs[i].ops();
  }
  // The entries in the catalogue's order (their addresses in its table):
  // a launch's seed is its place in the list.
  std::sort(by_entry.begin(), by_entry.end(),
            [](const auto& x, const auto& y) { return std::less<const Entry*>()(x.entry, y.entry); });
  std::vector<std::vector<size_t>> launches;
  for (const auto& [entry, members, entry_ops] : by_entry) {
    const uint64_t share = (entry_ops + std::max<size_t>(spread, 1) - 1) / std::max<size_t>(spread, 1);
    const uint64_t cap = std::clamp<uint64_t>(share, kPackMinLaunchOps, kPackLaunchOps);
    uint64_t ops = cap;
    for (size_t i : members) {
      if (ops + specs[i].ops() > cap) {
        launches.emplace_back();
        ops = 0;
      }
      launches.back().push_back(i);
      ops += specs[i].ops();
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
                                                      std::string* launch_error, std::vector<LaunchSpan>* spans) {
  keep_freed_memory();
  std::vector<std::optional<Outcome>> results(specs.size());
  if (backend != BackendKind::Cuda || specs.empty()) return results;
  PackRun run{specs, backend, opt, seed, launched, launch_error, spans, results};
  const size_t threads = launch_threads();
  run.plan(threads);
  run.expand_host_judged();
  // Each thread takes the next launch, makes its instances, runs it and
  // judges it; the launches of the other threads run meanwhile (the GPU and
  // the host's cores overlap).
  const size_t helpers = std::min(threads, run.launches.size()) - (run.launches.empty() ? 0 : 1);
  run_beside(launch_pool(), helpers, [&] { run.run_launches(); });
  return results;
}

}  // namespace atomstress
