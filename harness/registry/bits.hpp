// Typed values and their zero-extended 64-bit carriers, on the host (the
// primitive layer's to_bits/from_bits, named in this namespace).
#pragma once

#include "harness/prim/bits.cuh"
#include "harness/registry/value_kind.hpp"

namespace atomstress {
using prim::from_bits;
using prim::to_bits;
}  // namespace atomstress
