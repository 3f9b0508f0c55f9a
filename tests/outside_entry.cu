// An entry registered from a translation unit outside atomics_under_test/
// and outside the built-in catalogue's units, with the same calls those use:
// a CAS-emulated 32-bit add written here.  Built into atomstress_outside_entry
// (the whole command line plus this unit); CTest checks that it joins `list`
// and `check`, with the forms it fits paired automatically.
#include "atomics_under_test/spec.cuh"
#include "harness/catalogue/register.cuh"

namespace outside {

using atomstress::Domain;
using atomstress::Op;

struct CasAddU32 {
  using T = uint32_t;
  static constexpr const char* name = "outside.add.u32";
  static constexpr Op op = Op::Add;
  static constexpr Domain domain = Domain::Int;
  static constexpr atomstress::Semantics sem = atomstress::int_sem("old + a (CAS loop written outside the tree)");
  static T phi(T old, T a, T) { return old + a; }
  AS_HD T operator()(T* p, T a, T, prim::Retry& r) const {
    return prim::cas_loop(p, r, [a](T old) { return old + a; });
  }
};

// The same add, slow on purpose: each call first reads its word kReads
// times (a bounded loop), so that one trial costs seconds of CPU with little
// memory and without yields.  Tests that must catch a worker in the middle
// of its trial use it: yields cost a whole time slice each on a loaded host
// (a trial of yields took 500 s there, 18 s on an idle one), reads do not.
struct SlowCasAddU32 : CasAddU32 {
  static constexpr const char* name = "outside.slow_add.u32";
  static constexpr atomstress::Semantics sem = atomstress::int_sem("old + a (slowly: 20,000 reads of its word first)");
  static constexpr int kReads = 20000;
  AS_HD T operator()(T* p, T a, T b, prim::Retry& r) const {
    for (int i = 0; i < kReads; ++i) (void)prim::plain_load(p);
    return CasAddU32::operator()(p, a, b, r);
  }
};

const bool registered =
    atomstress::registration::register_atomics<CasAddU32, SlowCasAddU32>(atomstress::kGroupUser);

}  // namespace outside
