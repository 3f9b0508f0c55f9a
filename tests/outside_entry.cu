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

const bool registered = atomstress::registration::register_atomics<CasAddU32>(atomstress::kGroupUser);

}  // namespace outside
