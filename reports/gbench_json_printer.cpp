#include "reports/gbench_json_printer.hpp"

#include <unistd.h>

#include <fstream>
#include <thread>

#include "harness/support/timestamp.hpp"

namespace atomstress::reports {

namespace {

std::string host_name() {
  char b[256] = {};
  if (gethostname(b, sizeof b - 1) != 0) return "unknown";
  return b;
}

std::string executable() {
  char b[4096];
  const ssize_t n = readlink("/proc/self/exe", b, sizeof b - 1);
  return n > 0 ? std::string(b, size_t(n)) : std::string("atomstress");
}

// The first "cpu MHz" of /proc/cpuinfo; 0 where there is none.
long mhz_per_cpu() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("cpu MHz", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return std::lround(std::atof(line.c_str() + colon + 1));
    }
  return 0;
}

}  // namespace

nlohmann::json gbench_context(const RunHeader& run) {
  return {
      {"date", local_timestamp()},
      {"host_name", host_name()},
      {"executable", executable()},
      {"num_cpus", std::max(1u, std::thread::hardware_concurrency())},
      {"mhz_per_cpu", mhz_per_cpu()},
      {"cpu_scaling_enabled", false},
      {"caches", nlohmann::json::array()},
      {"load_avg", nlohmann::json::array()},
#ifdef NDEBUG
      {"library_build_type", "release"},
#else
      {"library_build_type", "debug"},
#endif
      {"atomstress_backend", to_string(run.backend)},
      {"atomstress_device", run.device},
      {"atomstress_command_line", run.command_line},
  };
}

nlohmann::json gbench_benchmark(const ProfilePoint& p, size_t family_index) {
  // Time per op (or element) in ns; a kernel entry's per launch in us.
  const double time = p.per_launch ? p.us_per_launch() : p.items_per_second > 0 ? 1e9 / p.items_per_second : 0;
  nlohmann::json b = {
      {"name", p.name()},
      {"family_index", family_index},
      {"per_family_instance_index", 0},
      {"run_name", p.name()},
      {"run_type", "iteration"},
      {"repetitions", 1},
      {"repetition_index", 0},
      {"threads", 1},
      {"iterations", p.timing.launches},
      // GPU time is not host CPU time, but compare.py wants both: the same.
      {"real_time", time},
      {"cpu_time", time},
      {"time_unit", p.per_launch ? "us" : "ns"},
      {"items_per_second", p.items_per_second},  // a kernel entry: launches per second
      {"items_per_launch", p.items},
      {"noise", p.timing.noise},
      {"batches", p.timing.batches},
      {"converged", p.timing.converged ? 1 : 0},
      {"cold", p.cold ? 1 : 0},  // L2 flushed before each timed launch
      {"label", to_string(p.verdict)},  // Google Benchmark's free-text field
  };
  if (!p.per_launch) {  // a kernel entry's atomics are its own: no retries counted
    b["retries_p50"] = p.retries_p50;
    b["retries_p99"] = p.retries_p99;
    b["retries_max"] = p.retries_max;
    b["retries_mean"] = p.retries_mean;
  }
  if (p.cycles_per_op) b["cycles_per_op"] = *p.cycles_per_op;
  if (p.ratio_to_baseline) {
    b["baseline_items_per_second"] = *p.baseline_items_per_second;
    b["ratio_to_baseline"] = *p.ratio_to_baseline;
    b["baseline_noise"] = p.baseline->noise;
  }
  return b;
}

std::string GbenchJsonPrinter::render() const {
  nlohmann::json doc = {{"context", gbench_context(run_)}, {"benchmarks", nlohmann::json::array()}};
  for (size_t i = 0; i < points_.size(); ++i) doc["benchmarks"].push_back(gbench_benchmark(points_[i], i));
  return doc.dump(2) + "\n";
}

}  // namespace atomstress::reports
