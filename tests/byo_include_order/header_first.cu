// The library's header first, atomstress's second: the header's atomicCAS
// was never renamed to atomstress's, so the suite refuses to build.
#include "early_atomics.cuh"
#include <atomstress/atomstress.cuh>

ATOMSTRESS_ATOMIC("lib.max.f32", lib_atomic_max, "cas.max.f32");
