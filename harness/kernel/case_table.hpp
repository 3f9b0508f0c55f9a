// A kernel case as a table (repro --trace): what it drew (sizes, ranges),
// the geometry of each launch, each buffer's first elements as the case
// wrote them, and the failing oracle's window of index / expected / got
// around the first difference.  Data in, lines out: tested on the CPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/kernel/launch.hpp"
#include "harness/kernel/oracles.hpp"

namespace atomstress::kernel {

struct Drawn {
  std::string name;
  uint64_t value = 0;
};

struct TracedBuffer {
  std::string name;
  VK kind = VK::U32;
  std::vector<uint64_t> initial;  // bit patterns before any launch
};

struct CaseRecord {
  std::vector<Drawn> draws;        // in the order drawn
  std::vector<Geometry> launches;  // in the order launched
  std::vector<TracedBuffer> buffers;
  std::optional<KernelFailure> failure;  // the first failure, if any
};

// The table's lines; each buffer shows at most `rows_per_buffer` elements.
std::vector<std::string> case_table(const CaseRecord& r, size_t rows_per_buffer);

}  // namespace atomstress::kernel
