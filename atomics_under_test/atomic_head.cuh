// The part of a built-in atomic's struct that the catalogue's macros share
// (AS_NATIVE in native.cuh, AS_CAS in emulated.cuh): its value type, name,
// operation, operand domain, written semantics, and its phi, which the host
// runs as the oracle and the GPU checker runs on the device (spec.cuh says
// what each member means).  A macro writes the struct's own operator().
#pragma once

#include "atomics_under_test/spec.cuh"

#define AS_ATOMIC_HEAD(Name, OpTag, Type, Dom, Sem, Phi) \
  using T = Type;                                        \
  static constexpr const char* name = Name;              \
  static constexpr Op op = Op::OpTag;                    \
  static constexpr Domain domain = Dom;                  \
  static constexpr Semantics sem = Sem;                  \
  static constexpr bool phi_on_device = true;            \
  AS_HD static T phi(T old, T a, T b) {                  \
    (void)a;                                             \
    (void)b;                                             \
    return Phi;                                          \
  }
