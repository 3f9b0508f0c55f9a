// The library's atomics as atomstress entries: one line each.
#include <atomstress/atomstress.cuh>  // first: before any header with atomics

#include <mylib/atomics.cuh>

// A built-in spec: cas.max.f32 is fmaxf's max (`atomstress list -v --impl cas.max.f32`).
ATOMSTRESS_ATOMIC("mylib.max.f32", mylib::atomic_max, "cas.max.f32");

// A spec of its own, in full: no built-in min keeps a NaN for ever.
constexpr atomstress::UserSpec<float> kNanStickyMin{
    atomstress::Op::Min,    // the operation: the call shape (Cas: compare and val) and the forms it fits
    atomstress::Domain::Float,  // how operands are drawn: floats, special values among them
    atomstress::float_sem_any_nan("min(old, a); a NaN operand is stored and a stored NaN stays",  // phi, in words
                                  "a NaN wins and stays; all NaNs one state",                   // NaN
                                  "a tie keeps old: -0 and +0 compare equal",                  // signed zero
                                  "kept"),                                                     // subnormals
    [](float old, float a, float) -> float {  // phi on the host: the oracle
      if (old != old) return old;
      return a != a || a < old ? a : old;
    }};
ATOMSTRESS_ATOMIC_SPEC("mylib.min_nan_sticky.f32", mylib::atomic_min_nan_sticky, kNanStickyMin);

// A void update: its final memory is checked, and alone every state.
ATOMSTRESS_ATOMIC("mylib.add_noret.f64", mylib::add_noret, "native.add.f64");
