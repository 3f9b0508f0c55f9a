// Two entries that are not correct and not bounded, registered (like
// outside_entry.cu's) from a unit outside the catalogue into
// atomstress_outside_entry only.  They show that with isolated trials a
// trial that never ends or that kills its process costs one verdict (HANG,
// CRASH) and the run goes on.  Each has a `bug` text, so `all` never
// selects them (name them, or `test.*`), and no form is paired with them.
#include <cstdint>

#include "atomics_under_test/spec.cuh"
#include "harness/catalogue/register.cuh"

namespace unbounded {

using atomstress::Domain;
using atomstress::Op;

// A loop on plain loads that never asks prim::Retry: no watchdog inside the
// trial can stop it.  On the CPU backend it spins on host threads; on the
// GPU its kernel outlives the watchdog.
struct SpinForever {
  using T = uint32_t;
  static constexpr const char* name = "test.spin.forever.u32";
  static constexpr Op op = Op::Add;
  static constexpr Domain domain = Domain::Int;
  static constexpr atomstress::Semantics sem = atomstress::int_sem("old + a (claimed: it never returns)");
  static constexpr const char* bug = "spins for ever on plain loads without asking prim::Retry (a test of isolation)";
  static T phi(T old, T a, T) { return old + a; }
  AS_HD T operator()(T* p, T, T, prim::Retry&) const {
    // Volatile loads on the device, atomic ones on the host: a loop with
    // side effects, which no compiler may assume to end.
    for (;;) (void)prim::plain_load(p);
  }
};

// A store to the null page: an illegal address on the GPU, SIGSEGV on the
// host (the page is never mapped: Linux's mmap_min_addr).
struct FaultNullPage {
  using T = uint32_t;
  static constexpr const char* name = "test.fault.u32";
  static constexpr Op op = Op::Add;
  static constexpr Domain domain = Domain::Int;
  static constexpr atomstress::Semantics sem = atomstress::int_sem("old + a (claimed: it faults)");
  static constexpr const char* bug = "stores to the null page: kills its process (a test of isolation)";
  static T phi(T old, T a, T) { return old + a; }
  AS_HD T operator()(T* p, T a, T, prim::Retry&) const {
    // Read through a volatile, so that no compiler reasons (or warns)
    // about the constant address.
    volatile uintptr_t null_page = 256;
    prim::plain_store(reinterpret_cast<T*>(uintptr_t{null_page}), a);
    return prim::plain_load(p);
  }
};

const bool registered = atomstress::registration::register_atomics<SpinForever, FaultNullPage>(atomstress::kGroupUser);

}  // namespace unbounded
