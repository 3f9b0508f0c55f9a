#include "harness/backend/backend.hpp"

#include "harness/registry/family.hpp"

#include <algorithm>
#include <sstream>

namespace atomstress {

const char* to_string(BackendKind b) { return b == BackendKind::Cuda ? "cuda" : "cpu"; }

std::optional<BackendKind> parse_backend(std::string_view s) {
  for (BackendKind b : {BackendKind::Cpu, BackendKind::Cuda})
    if (s == to_string(b)) return b;
  return std::nullopt;
}

const char* to_string(CheckerKind c) {
  switch (c) {
    case CheckerKind::Auto: return "auto";
    case CheckerKind::Cpu: return "cpu";
    case CheckerKind::Gpu: return "gpu";
    case CheckerKind::Both: return "both";
  }
  return "auto";
}

std::optional<CheckerKind> parse_checker(std::string_view s) {
  for (CheckerKind c : {CheckerKind::Auto, CheckerKind::Cpu, CheckerKind::Gpu, CheckerKind::Both})
    if (s == to_string(c)) return c;
  return std::nullopt;
}

std::string nvidia_module_version(const std::string& line) {
  // The first word after "Kernel Module" made of digits and dots, with a
  // dot: the proprietary module's line has it next, the open module's after
  // "for x86_64".
  const std::string marker = "Kernel Module";
  const auto at = line.find(marker);
  if (at == std::string::npos) return "";
  std::istringstream words(line.substr(at + marker.size()));
  for (std::string w; words >> w;)
    if (w.find('.') != std::string::npos && w.find_first_not_of("0123456789.") == std::string::npos) return w;
  return "";
}

uint64_t effective_watchdog_ms(const RunOptions& o, uint64_t ops) {
  const uint64_t share = std::max<uint32_t>(o.policy.gpu_share, 1);
  if (o.knobs.watchdog_ms != 0) return o.knobs.watchdog_ms * share;
  const uint64_t plain = 1000 + ops / 50;
  return (o.policy.sanitize == SanitizeTool::None ? plain : plain * kSanitizeSlowdown) * share;
}

bool gave_up_by_itself(uint8_t recorded) {
  const auto why = static_cast<GaveUp>(recorded & ~kBlockScopeBit);
  return why == GaveUp::Budget || why == GaveUp::Watchdog || why == GaveUp::QueueTooSlow ||
         why == GaveUp::WordKeptMoving || why == GaveUp::Stalled;
}

uint64_t effective_stall_ms(const RunOptions& o, const Workload& w) {
  const Entry* e = w.impl;
  if (e == nullptr || !e->user_code || e->algo != nullptr || is_kernel_entry(*e)) return 0;
  if (o.knobs.watchdog_ms != 0 || o.policy.sanitize != SanitizeTool::None || o.timing.bench_reps != 0) return 0;
  return kStallMs * std::max<uint32_t>(o.policy.gpu_share, 1);
}

uint64_t effective_queue_wait_ms(const RunOptions& o, const Workload& w) {
  if (w.impl == nullptr || w.impl->family == nullptr) return 0;
  return w.impl->family->queue_wait_ms(*w.impl, effective_watchdog_ms(o, w.ops()));
}

uint32_t effective_retry_budget(const RunOptions& o, const TrialSpec& spec) {
  const bool lone_thread = spec.threads() == 1 || o.policy.sequential;
  return lone_thread ? std::min(o.knobs.retry_budget, kLoneThreadRetryBudget) : o.knobs.retry_budget;
}

const char* to_string(SanitizeTool t) {
  switch (t) {
    case SanitizeTool::None: return "none";
    case SanitizeTool::Memcheck: return "memcheck";
    case SanitizeTool::Racecheck: return "racecheck";
    case SanitizeTool::Synccheck: return "synccheck";
  }
  return "none";
}

std::optional<SanitizeTool> parse_sanitize_tool(std::string_view s) {
  for (SanitizeTool t : {SanitizeTool::None, SanitizeTool::Memcheck, SanitizeTool::Racecheck, SanitizeTool::Synccheck})
    if (s == to_string(t)) return t;
  return std::nullopt;
}

}  // namespace atomstress
