// The run settings, declared once: the options of every command that runs
// trials, the isolated worker's request, the fuzz run record and repro's
// overrides of a token all read this table.  A new run setting is its field
// in RunOptions (backend.hpp: the policy or the timing; TrialKnobs when a
// token carries it) and one row in run_settings.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "harness/backend/backend.hpp"

namespace atomstress {

// How a setting is spelled: a bounded whole number, on|off|auto, or a checker name.
enum class SettingForm : uint8_t { Count, OnOffAuto, Checker };

// The commands that offer a setting, one bit each.
enum RunCommand : uint32_t {
  kCommandCheck = 1u << 0,
  kCommandFuzz = 1u << 1,
  kCommandRepro = 1u << 2,
  kCommandSelftest = 1u << 3,
  kCommandProfile = 1u << 4,
};

struct RunSetting {
  const char* option;  // on the command line, without "--"
  const char* key;     // in the worker's request and the fuzz run record
  const char* help;
  SettingForm form = SettingForm::Count;
  uint64_t lo = 0, hi = 0;  // Count: the accepted range
  uint32_t commands = 0;    // RunCommand bits
  // Carried by a reproduction token: repro runs the token's value unless
  // the command line gives one.
  bool in_token = false;
  uint64_t (*get)(const RunOptions&) = nullptr;
  void (*set)(RunOptions&, uint64_t) = nullptr;
};

std::span<const RunSetting> run_settings();
const RunSetting* find_run_setting(std::string_view option);

// A value as the command line spells it ("on", "auto", "20").
std::string setting_text(const RunSetting& s, uint64_t value);

}  // namespace atomstress
