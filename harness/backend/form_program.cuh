// An algorithm's form as a trial program for the two runners: its block code
// runs as it is on the device, and block by block on the host.
#pragma once

#include <cstdint>

namespace atomstress {

template <class Alg>
struct FormProgram : Alg {
  static constexpr bool thread_scheduled = false;  // host: blocks, threads in turn
  static constexpr bool resident_capable = false;  // its oracle runs on the host
  static constexpr bool records_cycles = false;
  static constexpr uint64_t host_stream = 98;      // the CPU runner's yield stream
  static constexpr const char* name = Alg::form;
};

}  // namespace atomstress
