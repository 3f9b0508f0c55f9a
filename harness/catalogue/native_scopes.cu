// The built-in native atomics of other scopes and calls than the plain
// device-scope intrinsics (atomics_under_test/native_scopes.cuh): system
// scope, the __nv_atomic_* builtins, libcu++'s atomic_ref.  Registered here,
// their kernels (and those of every form they fit) instantiated here and
// nowhere else: a unit of its own, beside native.cu, so that neither is the
// build's long pole.
#include "harness/catalogue/native_listing.cuh"

namespace atomstress::registration {
namespace {
using namespace atomstress::native;
const bool registered =
    register_listed_atomics<NativeListing, AddSystemU32, AddSystemF32, CasSystemU32, BuiltinAddU32, BuiltinAddF32,
                            BuiltinMaxI32, BuiltinExchU64, BuiltinCasU32, LibcuMaxF32, LibcuMinF32, LibcuAddI64>(
        kGroupNative);
}  // namespace
}  // namespace atomstress::registration
