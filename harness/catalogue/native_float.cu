// The built-in native CUDA atomics on floats (32, 64 and 16 bits):
// registered here, their kernels (and those of every form they fit)
// instantiated here and nowhere else.
#include "harness/catalogue/native_listing.cuh"

namespace atomstress::registration {
namespace {
using namespace atomstress::native;
const bool registered = register_listed_atomics<NativeListing, AddF32, AddF64, AddF16, AddBF16, ExchF32>(kGroupNative);
}  // namespace
}  // namespace atomstress::registration
