// One function per command (each in its own cmd_*.cpp); main dispatches.
// `args` are the command's arguments (after its name); `command_line` is the
// whole invocation, for the reports.
#pragma once

#include <string>
#include <vector>

namespace atomstress::cli {

int cmd_list(const std::vector<std::string>& args);
int cmd_check(const std::vector<std::string>& args, const std::string& command_line);
int cmd_repro(const std::vector<std::string>& args, const std::string& command_line);
int cmd_selftest(const std::vector<std::string>& args, const std::string& command_line);
int cmd_fuzz(const std::vector<std::string>& args, const std::string& command_line);
int cmd_merge(const std::vector<std::string>& args, const std::string& command_line);
int cmd_profile(const std::vector<std::string>& args, const std::string& command_line);
// Hidden: the worker process of isolated trials (harness/pipeline/isolated.hpp).
int cmd_worker(const std::vector<std::string>& args);

}  // namespace atomstress::cli
