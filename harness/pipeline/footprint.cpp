#include "harness/pipeline/footprint.hpp"

#include <fmt/format.h>

#include "harness/trial/patterns.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "harness/registry/registry.hpp"
#include "harness/trial/validate.hpp"

namespace atomstress {

namespace {

// Per op, host: addr 4, a 8, b 8 (workload); old 8, retries 4, cycles 4,
// gave_up 1 (history); an output slot 4 (append).  The checker needs about
// 24 B per op more for values up to 4 bytes, twice that for 8-byte values,
// and an algorithm's oracle about 48 more (estimates from the peak memory
// per op, docs/performance.md: an overestimate refuses a trial that fits,
// an underestimate lets one in that does not).
constexpr uint64_t kHostBytesPerOp = 4 + 8 + 8 + 8 + 4 + 4 + 1 + 4;
constexpr uint64_t kCheckerBytesPerOp = 24;
constexpr uint64_t kOracleBytesPerOp = 48;
// Per op, device: the same arrays less the checker's.
constexpr uint64_t kDeviceBytesPerOp = 4 + 8 + 8 + 8 + 4 + 4 + 1;
// Per memory element, host: init and final as 64-bit patterns, plus the
// backend's own copy in the element's width.
constexpr uint64_t kHostBytesPerElem = 8 + 8;
// A profile point's further copies per memory word (FootprintOf): 40 B
// over a trial's estimate covers the 61 B measured (37 B over it for
// 4-byte values, 29 B for 8-byte ones).
constexpr uint64_t kProfileBytesPerElem = 40;

uint64_t saturate(unsigned __int128 v) { return v > ~uint64_t(0) ? ~uint64_t(0) : uint64_t(v); }

std::string gib(uint64_t bytes) {
  return fmt::format("{:.2f} GiB", double(bytes) / double(1ull << 30));
}

// A number from a file such as /proc/meminfo's "MemAvailable:  123 kB".
std::optional<uint64_t> meminfo_available_bytes() {
  std::ifstream f("/proc/meminfo");
  std::string key, unit;
  uint64_t value = 0;
  while (f >> key >> value >> unit)
    if (key == "MemAvailable:") return value * 1024;
  return std::nullopt;
}

std::optional<uint64_t> read_number(const char* path) {
  std::ifstream f(path);
  uint64_t v = 0;
  if (f >> v) return v;  // "max" fails here: no limit
  return std::nullopt;
}

// The address space already mapped (VmSize), for RLIMIT_AS.
uint64_t address_space_in_use() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmSize:", 0) == 0) {
      std::istringstream ss(line.substr(7));
      uint64_t kb = 0;
      ss >> kb;
      return kb * 1024;
    }
  return 0;
}

}  // namespace

std::string decimal(unsigned __int128 v) {
  std::string digits;
  do digits.insert(digits.begin(), char('0' + int(v % 10)));
  while ((v /= 10) != 0);
  return digits;
}

std::optional<Footprint> estimate_footprint(const TrialSpec& spec, BackendKind backend, FootprintOf use) {
  const Entry* impl = find_impl(spec.impl);
  if (!impl) return std::nullopt;
  const unsigned bytes = vk_bytes(impl->kind);
  Footprint f;
  // Checked: in 128 bits, each size saturating at 2^64 - 1 (never wrapping
  // to a small count that would pass).
  using u128 = unsigned __int128;
  const u128 ops = u128(spec.grid) * spec.block * spec.ops_per_thread;
  const u128 regions = spec.space == Space::Shared ? spec.grid : 1;
  const u128 elems = u128(region_words(spec, bytes)) * regions;
  const uint64_t checker = kCheckerBytesPerOp * (bytes == 8 ? 2 : 1) + (impl->algo ? kOracleBytesPerOp : 0);
  // The memory: init and final patterns, the backend's copy and (algorithms)
  // a pristine copy.  On the device, the memory and its pristine copy, and
  // the 64-bit initial values of a trial expanded there (resident, or of
  // kDeviceExpansionMinOps ops or more: its pristine copy then 8 wide).
  const u128 host = ops * (kHostBytesPerOp + checker) + elems * (kHostBytesPerElem + 2 * bytes) +
                    (use == FootprintOf::ProfilePoint ? elems * kProfileBytesPerElem : 0);
  const u128 device = backend == BackendKind::Cuda ? ops * (kDeviceBytesPerOp + 4) + elems * (bytes + 16) : 0;
  f.ops = saturate(ops);
  f.mem_elems = saturate(elems);
  f.host_bytes = saturate(host);
  f.device_bytes = saturate(device);
  f.ops_exact = ops;
  return f;
}

uint64_t host_memory_available() {
  uint64_t avail = 0;
  if (auto m = meminfo_available_bytes()) avail = *m;
  else avail = uint64_t(sysconf(_SC_AVPHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
  const auto limit = read_number("/sys/fs/cgroup/memory.max");
  const auto usage = read_number("/sys/fs/cgroup/memory.current");
  if (limit && usage) avail = std::min(avail, *limit > *usage ? *limit - *usage : 0);
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    const uint64_t used = address_space_in_use();
    avail = std::min<uint64_t>(avail, as.rlim_cur > used ? as.rlim_cur - used : 0);
  }
  return avail;
}

MemoryBudget memory_budget(BackendKind backend) {
  MemoryBudget b;
  b.host = host_memory_available();
  size_t free = 0, total = 0;
  if (backend == BackendKind::Cuda && cuda_memory(free, total)) b.device_free = free;
  return b;
}

bool footprint_fits(const TrialSpec& spec, BackendKind backend, std::string& error) {
  return footprint_fits(spec, backend, memory_budget(backend), error);
}

bool footprint_fits(const TrialSpec& spec, BackendKind backend, const MemoryBudget& budget, std::string& error,
                    FootprintOf use) {
  const auto f = estimate_footprint(spec, backend, use);
  if (!f) return true;  // expand() reports what is wrong with the spec
  // Headroom: the process, the allocator's slack and the rest of the machine.
  const uint64_t host = budget.host;
  if (f->ops_exact > kMaxTrialOps) {
    // Before anything is allocated, with the true size (2^64 and more included).
    error = "trial too large: " + spec.impl + " with grid " + std::to_string(spec.grid) + " x block " +
            std::to_string(spec.block) + " x ops-per-thread " + std::to_string(spec.ops_per_thread) + " = " +
            decimal(f->ops_exact) + " ops, more than a trial's limit of 2^28";
    return false;
  }
  if (f->host_bytes > host / 4 * 3) {
    error = "trial too large for this machine: " + spec.impl + " with " + std::to_string(f->ops) + " ops on " +
            std::to_string(f->mem_elems) + " elements needs about " + gib(f->host_bytes) +
            " of host memory, more than the " + gib(host / 4 * 3) + " it may use (3/4 of the " + gib(host) +
            " available)";
    return false;
  }
  const uint64_t free = budget.device_free.value_or(0);
  if (backend == BackendKind::Cuda && budget.device_free && f->device_bytes > free / 10 * 9) {
    error = "trial too large for the GPU: " + spec.impl + " needs about " + gib(f->device_bytes) +
            " of device memory, more than the " + gib(free / 10 * 9) + " it may use (9/10 of the " + gib(free) +
            " free)";
    return false;
  }
  return true;
}

}  // namespace atomstress
