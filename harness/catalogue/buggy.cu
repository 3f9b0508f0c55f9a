// The deliberately wrong atomics and algorithms (atomics_under_test/buggy/):
// registered here, their kernels instantiated here and nowhere else.  Buggy
// atomics are never paired with forms (forms fit correct atomics only); each
// broken form is bound to the one atomic it misuses.
#include "atomics_under_test/buggy/buggy.cuh"
#include "atomics_under_test/buggy/forms.cuh"
#include "harness/catalogue/register.cuh"

namespace atomstress::registration {
namespace {
using namespace atomstress::buggy;
namespace native = atomstress::native;
const bool registered_atomics =
    register_atomics<PlainRmw, ReturnsNew, FloatCompare, IntMaxGeZero, DropsNan, NarrowedMax, IncGt, DecNoAbove,
                     BlockScope, ExchStore, ClobberU16, StaleRead>(kGroupBuggy);
const bool registered_forms =
    register_algorithms<AppendWriteFirst<native::AddU32>, AppendWarpAggLane0<native::AddU32>,
                        SumBlockNoSync<native::AddI32>, HistSharedNoSync<native::AddU32>,
                        ArgMaxTieLast<native::CasU64>, LockUnfenced<native::CasU32>>();
}  // namespace
}  // namespace atomstress::registration
