// A trial's device arrays set before its launch (zeroed, filled with a
// byte, restored from a copy) by one kernel on the thread's stream, in
// place of a cudaMemsetAsync or cudaMemcpyAsync each: those take the CUDA
// context's lock for writing, a launch only for reading, and a worker's
// trial threads queued on that lock (cuda-gdb samples of a host-bound fuzz
// slice, H200).
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace atomstress::cuda {

// `bytes` at `dst`: copied from `src`, or every byte `value` where `src` is
// null.  The arrays of one call must not overlap.
struct ArrayFill {
  void* dst;
  const void* src;
  size_t bytes;
  unsigned char value;
};
inline constexpr size_t kMostArrayFills = 8;

// Queues the fills (at most kMostArrayFills) on the thread's stream: work
// queued after them sees the bytes.  False with `error` set when the launch
// could not be queued.
bool queue_array_fills(std::span<const ArrayFill> fills, std::string& error);

}  // namespace atomstress::cuda
