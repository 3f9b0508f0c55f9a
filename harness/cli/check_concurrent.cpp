#include "harness/cli/check_concurrent.hpp"

#include "harness/pipeline/concurrent_worker.hpp"
#include "harness/pipeline/isolated.hpp"

namespace atomstress {

void run_impls_concurrently(const CheckPlan& plan, size_t jobs,
                            const std::function<void(const Outcome&)>& each,
                            const std::function<bool(const Entry&, ImplSummary&&)>& done,
                            const std::function<size_t()>& beside) {
  std::vector<ImplTrials> planned;
  std::vector<std::vector<TrialSpec>> groups;
  std::vector<ImplTally> tallies;
  for (const Entry* impl : plan.impls) {
    const bool runs = !(impl->gpu_only && plan.backend == BackendKind::Cpu);
    planned.push_back(runs ? plan_impl(plan, *impl) : ImplTrials{});
    groups.push_back(planned.back().specs);
    tallies.emplace_back(plan, *impl, planned.back());
  }
  // A trial that comes back failed runs again alone, and a failure shrinks,
  // in this thread's isolated worker: on cuda its context is made now,
  // beside the concurrent worker's, not at the first failure.
  if (plan.backend == BackendKind::Cuda && plan.opt.run.policy.sanitize == SanitizeTool::None)
    prepare_isolated_worker(plan.backend);
  WorkerTrials runner(plan.backend, plan.opt.run, plan.opt.profile, jobs);
  const RunAlone alone = [&](const TrialSpec& spec) {
    return run_trial_isolated(spec, plan.backend, shared_gpu_run(plan.opt.run, beside ? beside() : 0),
                              plan.opt.profile);
  };
  const OrderedSink sink{[&](size_t g, Outcome&& out) {
                           if (each) each(out);
                           tallies[g].add(std::move(out));
                         },
                         [&](size_t g, bool) {
                           return done(*plan.impls[g], std::move(tallies[g]).close(planned[g]));
                         }};
  run_ordered(groups, runner, alone, sink);
}

}  // namespace atomstress
