// Helpers shared by the tests: build a workload from explicit values.
#pragma once

#include <vector>

#include "harness/backend/backend.hpp"
#include "harness/workload/workload.hpp"

namespace atomstress::testing {

// One block of `threads` threads, one op each, all on element `target` of a
// memory of `elems` elements initialised to `init`.
inline Workload explicit_workload(const ImplInfo& impl, std::vector<uint64_t> a, std::vector<uint64_t> b,
                                  std::vector<uint64_t> init, std::vector<uint32_t> addr,
                                  Space space = Space::Global) {
  Workload w;
  w.impl = &impl;
  w.spec.impl = impl.name;
  w.spec.grid = 1;
  w.spec.block = uint32_t(a.size());
  w.spec.ops_per_thread = 1;
  w.spec.space = space;
  w.region_elems = uint32_t(init.size());
  w.regions = 1;
  w.addr = std::move(addr);
  w.a = std::move(a);
  w.b = b.empty() ? std::vector<uint64_t>(w.a.size(), 0) : std::move(b);
  w.init = std::move(init);
  return w;
}

}  // namespace atomstress::testing
