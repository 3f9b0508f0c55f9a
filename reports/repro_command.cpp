#include "reports/repro_command.hpp"

namespace atomstress::reports {

namespace {
std::string& name_slot() {
  static std::string name = "atomstress";
  return name;
}
}  // namespace

void set_program_name(const std::string& argv0) {
  const auto slash = argv0.find_last_of('/');
  std::string base = slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
  if (!base.empty()) name_slot() = base;
}

const std::string& program_name() { return name_slot(); }

std::string repro_command(const std::string& token, BackendKind backend) {
  return program_name() + " repro " + token + " --backend " + to_string(backend);
}

}  // namespace atomstress::reports
