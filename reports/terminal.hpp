// What the terminal printers share: the hottest-address table, and the
// check that standard output kept everything written to it.
#pragma once

#include <string>
#include <vector>

#include "harness/pipeline/run_trial.hpp"

namespace atomstress::reports {

// address, ops, retries, cycles per op; each row indented by `indent` spaces.
void print_hotspot_table(const std::vector<Hotspot>& hotspots, int indent);

// Flushes stdout; false with a one-line `error` when it lost something (a
// full disk, a closed pipe).
bool flush_stdout(std::string& error);

}  // namespace atomstress::reports
