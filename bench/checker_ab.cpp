// A/B driver for checker changes: A is an older checker.cpp (harness/check/,
// or harness/ at revisions before the move) compiled
// with check_history renamed check_history_a, B is this tree's.  For each
// shape it alternates A and B (which goes first alternates too) on the same
// history, so both see the same machine load, and prints the medians and the
// median of the per-round time ratios B/A.  bench/checker-ab builds and runs
// it:  bench/checker-ab REV [rounds] [log2 n] [shape]
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/histories.hpp"

namespace atomstress {
CheckResult check_history_a(const CheckInput& in);
}

using namespace atomstress;
using namespace atomstress::bench;

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
  const int logn = argc > 2 ? std::atoi(argv[2]) : 24;
  const std::string only = argc > 3 ? argv[3] : "";
  if (rounds < 1 || logn < 4 || logn > 28 ||
      (!only.empty() && std::find(std::begin(kShapeNames), std::end(kShapeNames), only) == std::end(kShapeNames))) {
    std::fprintf(stderr, "usage: atomstress_checker_ab [rounds >= 1] [log2 n in 4..28] [hot_i32|hot_f32|hot_u64|spread]\n");
    return 2;
  }
  const size_t n = size_t(1) << logn;
  for (int s = 0; s < 4; ++s) {
    if (!only.empty() && only != kShapeNames[s]) continue;
    const auto h = make_history(Shape(s), n);
    const CheckInput in = h->input();
    std::vector<double> ta, tb, ratio;
    for (int r = -1; r < rounds; ++r) {  // round -1 warms both up
      double t[2];
      for (int k = 0; k < 2; ++k) {
        const bool b = (k == 0) == bool(r & 1);
        const auto t0 = std::chrono::steady_clock::now();
        const CheckResult res = b ? check_history(in) : check_history_a(in);
        t[b] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!res.ok) {
          std::printf("%s: %c rejected a valid history: %s\n", kShapeNames[s], b ? 'B' : 'A', res.explanation.c_str());
          return 1;
        }
      }
      if (r < 0) continue;
      ta.push_back(t[0]);
      tb.push_back(t[1]);
      ratio.push_back(t[1] / t[0]);
    }
    auto med = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    std::printf("%-8s 2^%d  A %8.2f ms (%5.1f M/s)  B %8.2f ms (%5.1f M/s)  B/A %.3f\n", kShapeNames[s], logn,
                med(ta) * 1e3, double(n) / med(ta) / 1e6, med(tb) * 1e3, double(n) / med(tb) / 1e6, med(ratio));
    std::fflush(stdout);
  }
}
