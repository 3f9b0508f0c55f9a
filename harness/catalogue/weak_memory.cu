// The fence-dependent idioms (atomics_under_test/algorithms/weak_memory.cuh)
// and their weak-memory bugs (atomics_under_test/buggy/weak_memory.cuh),
// each correct twin listed beside its bug: registered here, their kernels
// instantiated here and nowhere else.  Each is bound to the one atomic it is
// written with.
#include "atomics_under_test/buggy/weak_memory.cuh"
#include "atomics_under_test/native.cuh"
#include "harness/catalogue/register.cuh"

namespace atomstress::registration {
namespace {
namespace native = atomstress::native;
using algo::WeakLockShape;
// After buggy.cu's broken forms (kExplicitFormRank + 0..5).
constexpr uint64_t kWeakMemoryRank = kExplicitFormRank + 20;
const bool registered = register_algorithms<
    algo::WeakLock<native::CasU32, WeakLockShape::Textbook>, buggy::LockTextbook<native::CasU32>,
    algo::WeakLock<native::CasU32, WeakLockShape::L1Cached>, buggy::LockL1Stale<native::CasU32>,
    algo::WeakLock<native::AddU32, WeakLockShape::Ticket>, buggy::TicketLockNoReleaseFence<native::AddU32>,
    algo::MessagePassing<native::ExchU32>, buggy::MessageNoFence<native::ExchU32>,
    algo::LastBlockSum<native::IncU32>, buggy::LastBlockNoFence<native::IncU32>>(kWeakMemoryRank);
}  // namespace
}  // namespace atomstress::registration
