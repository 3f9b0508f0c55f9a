// The built-in native CUDA atomics: registered here, their kernels (and those
// of every form they fit) instantiated here and nowhere else.
#include "atomics_under_test/native.cuh"
#include "harness/catalogue/register.cuh"

namespace atomstress::registration {
namespace {
using namespace atomstress::native;
const bool registered = register_atomics<AddI32, AddU32, AddU64, AddF32, AddF64, AddF16, AddBF16, SubI32, SubU32, ExchI32, ExchU32,
                                         ExchU64, ExchF32, MinI32, MinU32, MinI64, MinU64, MaxI32, MaxU32, MaxI64,
                                         MaxU64, IncU32, DecU32, CasU32, CasU64, AndU32, OrU32, XorU32, AndU64, OrU64,
                                         XorU64, AddBlockI32>(kGroupNative);
}  // namespace
}  // namespace atomstress::registration
