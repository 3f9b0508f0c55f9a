// The stream a case's buffers are filled, launched and read back on (one per
// host thread, non-blocking).  Every transfer of a guarded buffer goes on it,
// so the user's kernel, launched on it too, starts only after its inputs
// and initial values have landed: a cudaMemset or a pageable cudaMemcpy on
// the default stream may still be in flight when a kernel on a non-blocking
// stream starts (a correct hash table was reported as failing under GPU
// load that way).
#pragma once

#include <cuda_runtime.h>

#include <string>

namespace atomstress::kernel {

bool case_stream(cudaStream_t& stream, std::string& error);

}  // namespace atomstress::kernel
