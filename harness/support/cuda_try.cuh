// A checked CUDA runtime call, for every layer that launches or copies (the
// backends, the device half of an oracle): the failure becomes one line.
#pragma once

#include <cuda_runtime.h>

#include <string>

// Returns false from the enclosing function with a one-line `error`.
#define AS_CUDA_TRY(call)                                                                    \
  do {                                                                                       \
    const cudaError_t e_ = (call);                                                           \
    if (e_ != cudaSuccess) {                                                                 \
      error = std::string("cuda: ") + #call + " failed: " + cudaGetErrorString(e_);          \
      return false;                                                                          \
    }                                                                                        \
  } while (0)
