#include "harness/pipeline/execute_trial.hpp"

#include <cstdio>
#include <cstdlib>

#include "harness/pipeline/isolated.hpp"

namespace atomstress {

namespace {

[[noreturn]] void stop_in_process(const std::string& why) {
  std::fflush(stdout);
  std::fprintf(stderr,
               "atomstress: error: this process's CUDA context is lost (%s), so no further trial can run in it: "
               "run with --isolate on (the default) and a fault or hang costs one verdict\n",
               why.c_str());
  // Not exit(): a kernel may still be running, and tearing the context
  // down could wait for it.
  std::_Exit(3);
}

}  // namespace

Outcome execute_trial(const TrialSpec& spec, BackendKind backend, const RunOptions& opt, size_t hotspots) {
  if (opt.isolate) return run_trial_isolated(spec, backend, opt, hotspots);
  if (std::string why; cuda_context_lost(why)) stop_in_process(why);
  return run_trial(spec, backend, opt, hotspots);
}

}  // namespace atomstress
