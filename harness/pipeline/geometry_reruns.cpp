#include "harness/pipeline/geometry_reruns.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <set>
#include <string>

#include "harness/pipeline/execute_trial.hpp"

namespace atomstress {

namespace {

std::string list_of(const std::vector<uint32_t>& v) {
  std::string s;
  for (uint32_t x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

// What the failing and passing block sizes have in common, in words, or "".
std::string geometry_rule(const GeometryReruns& g) {
  if (g.failing_blocks.empty() || g.passing_blocks.empty()) return "";
  auto all = [](const std::vector<uint32_t>& v, auto pred) { return std::all_of(v.begin(), v.end(), pred); };
  const auto pow2 = [](uint32_t b) { return std::has_single_bit(b); };
  const auto whole_warps = [](uint32_t b) { return b % 32 == 0; };
  // Every failing block breaks the assumption and some block that keeps it
  // passed (others that break it may pass too: the case's data decides).
  auto some = [](const std::vector<uint32_t>& v, auto pred) { return std::any_of(v.begin(), v.end(), pred); };
  if (all(g.failing_blocks, [&](uint32_t b) { return !pow2(b); }) && some(g.passing_blocks, pow2))
    return "every failing block is not a power of two and every power of two passed: the kernel assumes a "
           "power-of-two block";
  if (all(g.failing_blocks, [&](uint32_t b) { return !whole_warps(b); }) && some(g.passing_blocks, whole_warps))
    return "every failing block is not a multiple of 32 and every multiple passed: the kernel assumes whole warps";
  const uint32_t smallest_failing = *std::min_element(g.failing_blocks.begin(), g.failing_blocks.end());
  if (all(g.passing_blocks, [&](uint32_t b) { return b < smallest_failing; }))
    return fmt::format("it fails from a block of {} threads up", smallest_failing);
  return "";
}

}  // namespace

const std::vector<uint32_t>& rerun_blocks() {
  static const std::vector<uint32_t> blocks{1, 3, 32, 33, 64, 96, 128, 160, 256, 1000, 1024};
  return blocks;
}

GeometryReruns rerun_across_geometries(const TrialSpec& failing, BackendKind backend, const RunOptions& opt) {
  GeometryReruns g;
  for (uint32_t block : rerun_blocks()) {
    TrialSpec s = failing;
    s.block = block;
    const Outcome o = execute_trial(s, backend, opt);
    if (o.verdict == Verdict::Fail) g.failing_blocks.push_back(block);
    else if (o.verdict == Verdict::Pass) g.passing_blocks.push_back(block);
  }
  std::set<std::string> failures;
  for (uint32_t i = 0; i < kGeometryReruns; ++i) {
    const Outcome o = execute_trial(failing, backend, opt);
    ++g.runs;
    if (o.verdict != Verdict::Fail) continue;
    ++g.failed;
    failures.insert(o.why());
  }
  g.distinct = uint32_t(failures.size());
  // The case's own block among the others, as its reruns found it.
  auto& own = g.failed > 0 ? g.failing_blocks : g.passing_blocks;
  if (std::find(rerun_blocks().begin(), rerun_blocks().end(), failing.block) == rerun_blocks().end()) {
    own.push_back(failing.block);
    std::sort(own.begin(), own.end());
  }
  return g;
}

void tell_geometry_reruns(const GeometryReruns& g, const TrialSpec& failing, Diagnosis& d) {
  d.trace.push_back(std::string(kSeenMark) + "the case passes alone (one block of one thread), a replay that changes the case");
  if (!g.failing_blocks.empty() || !g.passing_blocks.empty()) {
    std::string seen = std::string(kSeenMark) + "at other block sizes: ";
    if (!g.failing_blocks.empty()) seen += "fails at blocks " + list_of(g.failing_blocks);
    if (!g.failing_blocks.empty() && !g.passing_blocks.empty()) seen += "; ";
    if (!g.passing_blocks.empty()) seen += "passes at " + list_of(g.passing_blocks);
    if (const std::string rule = geometry_rule(g); !rule.empty()) seen += ": " + rule;
    d.trace.push_back(seen);
  }
  const std::string here = fmt::format("grid {} x block {}", failing.grid, failing.block);
  if (g.runs > 0 && g.failed == g.runs && g.distinct == 1) {
    d.cls = FailureClass::Semantics;
    d.trace.push_back(std::string(kSeenMark) + fmt::format("the same wrong output in {} of {} runs at {}: deterministic, not a race", g.failed,
                                  g.runs, here));
  } else if (g.failed > 0) {
    d.cls = FailureClass::Atomicity;
    d.trace.push_back(std::string(kSeenMark) + fmt::format("at {} it failed {} of {} runs with {} different wrong outputs: the output varies "
                                  "between runs, a race",
                                  here, g.failed, g.runs, g.distinct));
  } else {
    d.cls = FailureClass::Atomicity;
    d.trace.push_back(std::string(kSeenMark) + fmt::format("it did not fail again in {} runs at {}: a rare failure, taken for a race", g.runs,
                                  here));
  }
}

}  // namespace atomstress
