// Workers started ahead of need.  Every hang or crash of a CUDA trial ends
// its worker, and the next trial waits for a new one: the process and a CUDA
// context take about 0.3 s to start on an H100, and a trapped worker as long
// again to exit.  Shrinking a hang or a crash, and the reruns that confirm
// it, pay that for every failing run.  So once a worker has had to be
// replaced, a few spares are kept started for the same command line, a
// replacement takes one that is already up, and a worker that is ending is
// left to exit in the background (reaped later, never waited for).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "harness/pipeline/worker_process.hpp"

namespace atomstress::spare_workers {

// How many spares are kept per command line once replacements began.
inline constexpr size_t kSpares = 2;

// Moves a started spare for `program` and `argv` into `worker` (which must
// not be running) and starts another in its place; false when this command
// line gets no spares.  `replacing`: `worker` ran before and ended, so
// spares are wanted from now on for this command line.  The caller still
// awaits the spare's ready line (a spare that died while it waited says so
// there: start a fresh one then).
bool take(const std::string& program, const std::vector<std::string>& argv, bool replacing, WorkerProcess& worker);

// Lets `worker`, which is ending (it said it exits, or it is killed with
// `kill`), go without waiting for its exit; it is reaped on a later call.
void retire(WorkerProcess& worker, bool kill);

// Spares waiting now (for tests).
size_t waiting();

// Every spare killed and every retired worker reaped (end of a run, tests).
void clear();

}  // namespace atomstress::spare_workers
