#include "harness/kernel/case_phase.hpp"

#include <utility>

namespace atomstress::kernel {

namespace {
PhaseWatcher& watcher() {
  thread_local PhaseWatcher w;
  return w;
}
}  // namespace

const char* to_string(CasePhase p) {
  switch (p) {
    case CasePhase::HostCode: return "host_code";
    case CasePhase::Launch: return "launch";
    case CasePhase::Finished: return "finished";
  }
  return "host_code";
}

std::optional<CasePhase> parse_case_phase(std::string_view s) {
  for (CasePhase p : {CasePhase::HostCode, CasePhase::Launch, CasePhase::Finished})
    if (s == to_string(p)) return p;
  return std::nullopt;
}

std::string describe(const PhaseNote& n) {
  switch (n.phase) {
    case CasePhase::Launch: return "in launch " + std::to_string(n.launches);
    case CasePhase::Finished: return "past its property (which had returned)";
    case CasePhase::HostCode: break;
  }
  if (n.launches == 0) return "in its host code before its first launch";
  return "in its host code after launch " + std::to_string(n.launches) + " (which had finished)";
}

WatchCasePhases::WatchCasePhases(PhaseWatcher w) : previous_(std::exchange(watcher(), std::move(w))) {}

WatchCasePhases::~WatchCasePhases() { watcher() = std::move(previous_); }

void note_case_phase(const PhaseNote& n) {
  if (watcher()) watcher()(n);
}

}  // namespace atomstress::kernel
