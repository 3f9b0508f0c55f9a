#include "harness/backend/run_settings.hpp"

#include <array>

namespace atomstress {

namespace {

constexpr uint64_t kMaxWatchdogMs = 3'600'000;  // one hour
constexpr uint64_t kMaxCpuThreads = 256;
constexpr uint32_t kRunCommands = kCommandCheck | kCommandFuzz | kCommandRepro | kCommandProfile;
constexpr uint32_t kTrialCommands = kRunCommands | kCommandSelftest;

const std::array<RunSetting, 6> kSettings = {{
    {"budget", "retry_budget", "retries per op before a hang", SettingForm::Count, 0, UINT32_MAX, kRunCommands, true,
     [](const RunOptions& o) -> uint64_t { return o.knobs.retry_budget; },
     [](RunOptions& o, uint64_t v) { o.knobs.retry_budget = uint32_t(v); }},
    {"watchdog-ms", "watchdog_ms", "per-trial watchdog in ms, at most 3600000 (0: 1 s + 20 us per op, and the GPU's stall watch)",
     SettingForm::Count, 0, kMaxWatchdogMs, kTrialCommands, true,
     [](const RunOptions& o) -> uint64_t { return o.knobs.watchdog_ms; },
     [](RunOptions& o, uint64_t v) { o.knobs.watchdog_ms = v; }},
    {"cpu-threads", "cpu_threads", "host threads of the cpu backend (1 to 256)", SettingForm::Count, 1,
     kMaxCpuThreads, kRunCommands, true, [](const RunOptions& o) -> uint64_t { return o.knobs.cpu_threads; },
     [](RunOptions& o, uint64_t v) { o.knobs.cpu_threads = uint32_t(v); }},
    {"yield", "yield_permille", "cpu backend: per mille chance of yielding at an interleaving point (0 to 1000)",
     SettingForm::Count, 0, 1000, kRunCommands, true,
     [](const RunOptions& o) -> uint64_t { return o.knobs.yield_permille; },
     [](RunOptions& o, uint64_t v) { o.knobs.yield_permille = uint32_t(v); }},
    {"isolate", "isolate",
     "on, off or auto (on): run each trial in a worker process, so that a hang, trap or fault costs one verdict "
     "(HANG, CRASH) and the run goes on; off runs them in this process (for debugging)",
     SettingForm::OnOffAuto, 0, 1, kTrialCommands & ~kCommandProfile, false,
     [](const RunOptions& o) -> uint64_t { return o.policy.isolate; },
     [](RunOptions& o, uint64_t v) { o.policy.isolate = v != 0; }},
    {"checker", "checker",
     "auto, cpu, gpu or both (auto): which checker judges a single atomic's trial on the cuda backend. gpu expands, "
     "runs and checks it on the device and copies back only a trial it cannot pass (the host's checker explains "
     "it); cpu copies every history back; both checks every history with each and makes a disagreement an "
     "error; auto is gpu for trials of 2048 ops or more where the entry's device oracle agrees with its host phi "
     "and the history fits the GPU checker. Packed small trials (campaigns) are judged on the device under auto, gpu "
     "and both wherever the entry's device oracle agrees; only cpu judges them on the host. An algorithm's chain "
     "of atomics (their returned values) follows the same rule (auto: 2048 atomics or more), the device passing it "
     "or the host's checker explaining it; its other properties, and the cpu backend, use the host's",
     SettingForm::Checker, 0, 3, kTrialCommands & ~kCommandProfile, false,
     [](const RunOptions& o) -> uint64_t { return uint64_t(o.policy.checker); },
     [](RunOptions& o, uint64_t v) { o.policy.checker = CheckerKind(v); }},
}};

}  // namespace

std::span<const RunSetting> run_settings() { return kSettings; }

const RunSetting* find_run_setting(std::string_view option) {
  for (const auto& s : kSettings)
    if (option == s.option) return &s;
  return nullptr;
}

std::string setting_text(const RunSetting& s, uint64_t value) {
  switch (s.form) {
    case SettingForm::OnOffAuto: return value ? "on" : "off";
    case SettingForm::Checker: return to_string(CheckerKind(value));
    case SettingForm::Count: break;
  }
  return std::to_string(value);
}

}  // namespace atomstress
