// The built-in CAS-emulated atomics: registered here, their kernels (and
// those of every form they fit) instantiated here and nowhere else.
#include "atomics_under_test/emulated.cuh"
#include "harness/catalogue/register.cuh"

namespace atomstress::registration {
namespace {
using namespace atomstress::emulated;
const bool registered = register_atomics<AddI32, AddF32, AddF64, MulI32, MulF32, MaxF32, MinF32, MaxF64, MinF64,
                                         IncU32, DecU32, IncU64, DecU64, MaxNanF32, IntMaxF32, AddU16, AddF16,
                                         AddBF16>(kGroupEmulated);
}  // namespace
}  // namespace atomstress::registration
