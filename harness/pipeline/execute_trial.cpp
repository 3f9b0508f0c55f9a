#include "harness/pipeline/execute_trial.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "harness/pipeline/isolated.hpp"
#include "harness/pipeline/run_packed.hpp"

namespace atomstress {

namespace {

[[noreturn]] void stop_in_process(const std::string& why) {
  std::fflush(stdout);
  std::fputs(fmt::format("atomstress: error: this process's CUDA context is lost ({}), so no further trial can run "
                         "in it: run with --isolate on (the default) and a fault or hang costs one verdict\n",
                         why)
                 .c_str(),
             stderr);
  // Not exit(): a kernel may still be running, and tearing the context
  // down could wait for it.
  std::_Exit(3);
}

}  // namespace

Outcome execute_trial(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, size_t hotspots) {
  if (opt.policy.isolate) return run_trial_isolated(spec, backend, opt, hotspots);
  if (std::string why; cuda_context_lost(why)) stop_in_process(why);
  return run_trial(spec, backend, opt, hotspots);
}

SequenceStats execute_sequence(std::span<const TrialSpec> specs, const SequenceConfig& cfg,
                               const std::function<void(Outcome&&)>& each) {
  if (cfg.run.policy.isolate) return run_sequence_isolated(specs, cfg, each);
  const SequenceStats stats = run_trial_sequence(specs, cfg, each);
  // The trials after one that lost the context did not run (execute_trial
  // would stop before the next one too).
  if (std::string why; stats.context_lost && cuda_context_lost(why)) stop_in_process(why);
  return stats;
}

std::vector<std::optional<Outcome>> execute_packed(std::span<const TrialSpec> specs, BackendKind backend,
                                                   const RunOptions& opt, uint64_t seed, bool until_failure,
                                                   std::vector<LaunchSpan>* spans) {
  std::vector<std::optional<Outcome>> results;
  if (opt.policy.isolate) {
    results = run_packed_isolated(specs, backend, opt, seed, spans);
  } else {
    if (std::string why; cuda_context_lost(why)) stop_in_process(why);
    results = run_packed_trials(specs, backend, opt, seed, {}, nullptr, spans);
  }
  auto failed = [](const std::optional<Outcome>& r) { return r && r->verdict != Verdict::Pass; };
  if (until_failure && std::any_of(results.begin(), results.end(), failed)) return results;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (results[i]) continue;
    results[i] = execute_trial(specs[i], backend, opt);
    if (spans) {
      const Outcome& o = *results[i];
      spans->push_back({o.run_end_s, o.run_ms});
      if (o.device_check_ms > 0) spans->push_back({o.device_check_end_s, o.device_check_ms, true});  // cuda only
    }
    if (until_failure && failed(results[i])) break;
  }
  return results;
}

}  // namespace atomstress
