// What every primitive header needs: the function qualifiers and CCCL's one
// host/device dispatch (NV_IF_ELSE_TARGET from <nv/target>, as libcu++ uses
// it).  Outside harness/prim/ no file chooses between host and device.
#pragma once

#include <nv/target>

#if defined(__CUDACC__)
#define AS_HD __host__ __device__
#define AS_FI __forceinline__
#else
#define AS_HD
#define AS_FI inline
#endif
