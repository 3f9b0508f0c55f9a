// The one repro line every report prints.  It names the program that ran
// (a user's suite built with atomstress_add_suite, or atomstress itself):
// a user entry's token means nothing to a program that lacks that entry.
#pragma once

#include <string>

#include "harness/backend/backend.hpp"

namespace atomstress::reports {

// Set once by main from argv[0] (its file name); "atomstress" until then.
void set_program_name(const std::string& argv0);
const std::string& program_name();

// "<program> repro TOKEN --backend B"
std::string repro_command(const std::string& token, BackendKind backend);

}  // namespace atomstress::reports
