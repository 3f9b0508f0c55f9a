// Helpers shared by the tests: build a workload from explicit values.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "harness/check/checker.hpp"

#include "harness/backend/backend.hpp"
#include "harness/pipeline/run_trial.hpp"
#include "harness/workload/workload.hpp"

namespace atomstress::testing {

// One block of `threads` threads, one op each, all on element `target` of a
// memory of `elems` elements initialised to `init`.
inline Workload explicit_workload(const Entry& impl, std::vector<uint64_t> a, std::vector<uint64_t> b,
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

// A trial expanded, set up and run on the cpu backend, its history kept for
// an oracle to judge (or for a test to corrupt first).
struct CpuRun {
  Workload w;
  Setup s;
  History h;
};
inline CpuRun run_on_cpu(const TrialSpec& spec, const RunOptions& opt = {}) {
  std::string err;
  auto w = expand(spec, err);
  EXPECT_TRUE(w.has_value()) << err;
  auto s = setup_trial(*w, err);
  EXPECT_TRUE(s.has_value()) << err;
  CpuRun r{*w, *s, {}};
  EXPECT_NE(r.w.impl->run_cpu, nullptr);
  EXPECT_TRUE(run_workload(r.w, r.s, BackendKind::Cpu, opt, r.h, err)) << err;
  return r;
}

// A history as plain arrays (the checkers' tests build and corrupt these).
struct ArrayHistory {
  const Entry* impl = nullptr;
  std::vector<uint32_t> addr;
  std::vector<uint64_t> a, b, old, init, fin;
};

inline CheckInput input_of(const ArrayHistory& h) {
  CheckInput in;
  in.impl = h.impl;
  in.addr = h.addr;
  in.a = h.a;
  in.b = h.b;
  in.old = h.old;
  in.init = h.init;
  in.final_mem = h.fin;
  return in;
}

// Is there an order of each address's ops that reads the initial value,
// chains through every returned value and ends at the final value?  Tries
// every order: the reference for the checkers on tiny histories.
inline bool brute_force_explains(const CheckInput& in) {
  const Entry& impl = *in.impl;
  for (size_t e = 0; e < in.init.size(); ++e) {
    std::vector<size_t> ops;
    for (size_t o = 0; o < in.addr.size(); ++o)
      if (in.addr[o] == e) ops.push_back(o);
    bool found = false;
    do {
      uint64_t state = in.init[e];
      bool ok = true;
      for (size_t o : ops) {
        if (impl.canon(in.old[o]) != impl.canon(state)) {
          ok = false;
          break;
        }
        state = impl.phi(in.old[o], in.a[o], in.b[o]);
      }
      if (ok && impl.canon(state) == impl.canon(in.final_mem[e])) found = true;
    } while (!found && std::next_permutation(ops.begin(), ops.end()));
    if (!found) return false;
  }
  return true;
}

// A 16-bit float from a small pool: sums that round differently in
// different orders (2048 + 1 + 1 in f16, 256 + 1 + 1 in bf16), signed zeros,
// 1/3, a subnormal, +inf, a NaN with a payload.
inline uint64_t half_pool_value(VK k, uint64_t r) {
  static const uint16_t f16[] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x3555, 0x6800, 0x0001, 0x7c00, 0x7d01};
  static const uint16_t bf16[] = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x3f00, 0x3eab, 0x4380, 0x0001, 0x7f80, 0x7fa1};
  return k == VK::F16 ? f16[r % 10] : bf16[r % 10];
}

}  // namespace atomstress::testing
