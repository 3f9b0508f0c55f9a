// Where a kernel entry's trial is: in its property's host code (before its
// first launch, or after launch k) or in launch k; told to whoever watches
// the thread that runs it.  The isolated worker watches (cmd_worker.cpp)
// and tells its supervisor, one line per change: a launch is bounded by the
// watchdog (launch.cu), but nothing in the process bounds the property's
// own host code (its generation, its oracle), so when the supervisor ends a
// worker past the trial's deadline, the last phase says whose time ran out:
// a launch's (HANG, the kernel's) or the host code's (an ERROR of the
// property: the kernel had finished).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace atomstress::kernel {

enum class CasePhase : uint8_t { HostCode, Launch, Finished };
const char* to_string(CasePhase p);  // "host_code", "launch", "finished"
std::optional<CasePhase> parse_case_phase(std::string_view s);

struct PhaseNote {
  std::string entry;  // the kernel entry
  CasePhase phase = CasePhase::HostCode;
  // HostCode and Finished: the launches that ran before; Launch: this one's number, from 1.
  uint32_t launches = 0;
  bool operator==(const PhaseNote&) const = default;
};

// Where it was, in words: "in its host code after launch 2 (which had
// finished)", "in launch 3", "in its host code before its first launch".
std::string describe(const PhaseNote& n);

using PhaseWatcher = std::function<void(const PhaseNote&)>;

// Watches the phases of the kernel cases this thread runs while it lives;
// the watcher it replaces comes back after it.
class WatchCasePhases {
 public:
  explicit WatchCasePhases(PhaseWatcher watcher);
  ~WatchCasePhases();
  WatchCasePhases(const WatchCasePhases&) = delete;
  WatchCasePhases& operator=(const WatchCasePhases&) = delete;

 private:
  PhaseWatcher previous_;
};

// Tells this thread's watcher, if any.
void note_case_phase(const PhaseNote& n);

}  // namespace atomstress::kernel
