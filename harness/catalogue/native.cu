// The built-in native CUDA atomics on integers: registered here, their
// kernels (and those of every form they fit) instantiated here and nowhere
// else.  The float ones are native_float.cu's (two units, so that neither
// is the build's long pole).
#include "harness/catalogue/native_listing.cuh"

namespace atomstress::registration {
namespace {
using namespace atomstress::native;
const bool registered =
    register_listed_atomics<NativeListing, AddI32, AddU32, AddI64, AddU64, SubI32, SubU32, ExchI32, ExchU32, ExchU64,
                            MinI32, MinU32, MinI64, MinU64, MaxI32, MaxU32, MaxI64, MaxU64, IncU32, DecU32, CasU32,
                            CasU64, AndU32, OrU32, XorU32, AndU64, OrU64, XorU64, AddBlockI32>(kGroupNative);
}  // namespace
}  // namespace atomstress::registration
