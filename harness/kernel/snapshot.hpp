// Profile's timing of a kernel case (KernelCase in timing mode): the device
// contents of the case's buffers copied aside just before a launch, and
// copied back before each timed launch, so that every launch of a histogram
// or a hash table starts from the same state.  Device-to-device, on the
// case's stream (case_stream.cuh), so ordered with the launches; the copy
// lives in grow-only device memory of the host thread, reused by the next
// case (no allocation per launch).
#pragma once

#include <string>
#include <vector>

#include "harness/kernel/guarded.hpp"

namespace atomstress::kernel {

// Copies each buffer's whole allocation (guard zones and offset included)
// aside; replaces this thread's previous snapshot.
bool snapshot_buffers(const std::vector<const GuardedBuffer*>& buffers, std::string& error);
// Copies the snapshot back into the same buffers (the same list, in the same
// order, as the last snapshot_buffers on this thread).
bool restore_buffers(const std::vector<const GuardedBuffer*>& buffers, std::string& error);

}  // namespace atomstress::kernel
