// The catalogue: one list of every implementation under test.  Each backend
// and the registry expand this list once, so device code for an entry is
// instantiated in exactly one translation unit.
#pragma once

#include "atomics_under_test/buggy/buggy.cuh"
#include "atomics_under_test/emulated.cuh"
#include "atomics_under_test/native.cuh"

// clang-format off
#define ATOMSTRESS_CATALOGUE(X)                                                  \
  X(atomstress::native::AddI32) X(atomstress::native::AddU32)                   \
  X(atomstress::native::AddU64) X(atomstress::native::AddF32)                   \
  X(atomstress::native::AddF64) X(atomstress::native::SubI32)                   \
  X(atomstress::native::SubU32) X(atomstress::native::ExchI32)                  \
  X(atomstress::native::ExchU32) X(atomstress::native::ExchU64)                 \
  X(atomstress::native::ExchF32) X(atomstress::native::MinI32)                  \
  X(atomstress::native::MinU32) X(atomstress::native::MinI64)                   \
  X(atomstress::native::MinU64) X(atomstress::native::MaxI32)                   \
  X(atomstress::native::MaxU32) X(atomstress::native::MaxI64)                   \
  X(atomstress::native::MaxU64) X(atomstress::native::IncU32)                   \
  X(atomstress::native::DecU32) X(atomstress::native::CasU32)                   \
  X(atomstress::native::CasU64) X(atomstress::native::AndU32)                   \
  X(atomstress::native::OrU32) X(atomstress::native::XorU32)                    \
  X(atomstress::native::AndU64) X(atomstress::native::OrU64)                    \
  X(atomstress::native::XorU64) X(atomstress::native::AddBlockI32)              \
  X(atomstress::emulated::AddI32) X(atomstress::emulated::AddF32)               \
  X(atomstress::emulated::AddF64) X(atomstress::emulated::MulI32)               \
  X(atomstress::emulated::MulF32) X(atomstress::emulated::MaxF32)               \
  X(atomstress::emulated::MinF32) X(atomstress::emulated::MaxF64)               \
  X(atomstress::emulated::MinF64) X(atomstress::emulated::IncU32)               \
  X(atomstress::emulated::DecU32) X(atomstress::emulated::MaxNanF32)            \
  X(atomstress::emulated::IntMaxF32) X(atomstress::emulated::AddU16)            \
  X(atomstress::buggy::PlainRmw) X(atomstress::buggy::ReturnsNew)               \
  X(atomstress::buggy::FloatCompare) X(atomstress::buggy::IntMaxGeZero)         \
  X(atomstress::buggy::DropsNan) X(atomstress::buggy::NarrowedMax)              \
  X(atomstress::buggy::IncGt) X(atomstress::buggy::DecNoAbove)                  \
  X(atomstress::buggy::BlockScope) X(atomstress::buggy::ExchStore)              \
  X(atomstress::buggy::ClobberU16) X(atomstress::buggy::StaleRead)
// clang-format on
