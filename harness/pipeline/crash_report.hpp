// A worker that dies of a signal in the host's code (a fault of atomstress,
// or of a user's host-side code) says where before it goes: one line on
// stderr with the signal and the call stack as offsets into the executable,
// which the supervisor quotes in the trial's CRASH ("its last lines on
// stderr") and `addr2line -f -C -e atomstress <offsets>` turns into names.
#pragma once

namespace atomstress {

// Installs the handler for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT
// (with an alternate stack for the calling thread, so that its stack
// overflowing is reported too).  The process still dies of the signal, as
// before.
void report_fatal_signals();

}  // namespace atomstress
