// `profile --json FILE`: Google Benchmark's JSON format, so that its
// tools/compare.py can compare two profiles.  One benchmark per point
// ("native.add.i32/k:1024/pattern:uniform/..."), real_time and cpu_time in
// nanoseconds per op (or element), counters items_per_second, retries_*,
// noise, and the ratio to the bare kernel where there is one.  A kernel
// entry's point: microseconds per launch (time_unit "us"), items_per_second
// its launches per second, no retries_* (its atomics are its own).
#pragma once

#include <nlohmann/json.hpp>

#include "reports/profile_collector.hpp"

namespace atomstress::reports {

// The "context" object: date, host_name, executable, num_cpus,
// mhz_per_cpu, library_build_type, and atomstress's backend and device.
nlohmann::json gbench_context(const RunHeader& run);
// One entry of "benchmarks".
nlohmann::json gbench_benchmark(const ProfilePoint& p, size_t family_index);

class GbenchJsonPrinter final : public ProfileCollector {
 public:
  using ProfileCollector::ProfileCollector;

 protected:
  std::string render() const override;
};

}  // namespace atomstress::reports
