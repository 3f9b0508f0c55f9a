#include "fuzz/aggregate.hpp"

#include <algorithm>

namespace atomstress::fuzz {

void add_slice(reports::FuzzEntryResult& e, const reports::FuzzSliceRecord& s) {
  e.impl = s.impl;
  e.backend = s.backend;
  e.trials += s.trials;
  e.ops += s.ops;
  e.seconds += s.seconds;
  e.run_s += s.run_s;
  e.gpu_s += s.gpu_s;
  e.paired.seconds += s.paired.seconds;
  e.paired.run_s += s.paired.run_s;
  e.paired.gpu_s += s.paired.gpu_s;
  e.rounds = std::max(e.rounds, s.round + 1);
  if (s.verdict == Verdict::Pass || e.failed()) return;
  e.verdict = s.verdict;
  e.origin = "fuzz";
  e.why = s.why;
  e.token = s.token;
  e.spec = s.spec;
  e.time_to_catch_s = s.time_to_catch_s;
  e.rate_failures = s.rate_failures;
  e.rate_runs = s.rate_runs;
  e.bare_failures = s.bare_failures;
  e.bare_runs = s.bare_runs;
  e.flaky = s.flaky;
  e.cls = s.cls;
}

void add_replay(reports::FuzzEntryResult& e, const reports::ReplayRecord& r) {
  e.impl = r.impl;
  e.backend = r.backend;
  e.trials += r.runs;
  e.ops += r.ops;
  if (!r.still_failing || e.failed()) return;
  e.verdict = r.verdict;
  e.origin = "corpus";
  e.why = r.why;
  e.token = r.token;
  e.spec = r.spec;
  e.rate_failures = r.failures;
  e.rate_runs = r.runs;
  e.cls = r.cls;
}

}  // namespace atomstress::fuzz
