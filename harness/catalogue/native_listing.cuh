// The native group's listing order: its atomics register from three units
// (native.cu, native_float.cu, native_scopes.cu, so that no one unit is the
// build's long pole) and `list` shows them in this one order.
#pragma once

#include "atomics_under_test/native.cuh"
#include "atomics_under_test/native_scopes.cuh"
#include "harness/catalogue/register.cuh"

namespace atomstress::registration {
using NativeListing = Listing<
    native::AddI32, native::AddU32, native::AddI64, native::AddU64, native::AddF32, native::AddF64, native::AddF16,
    native::AddBF16, native::SubI32, native::SubU32, native::ExchI32, native::ExchU32, native::ExchU64, native::ExchF32,
    native::MinI32, native::MinU32, native::MinI64, native::MinU64, native::MaxI32, native::MaxU32, native::MaxI64,
    native::MaxU64, native::IncU32, native::DecU32, native::CasU32, native::CasU64, native::AndU32, native::OrU32,
    native::XorU32, native::AndU64, native::OrU64, native::XorU64, native::AddBlockI32, native::AddSystemU32,
    native::AddSystemF32, native::CasSystemU32, native::BuiltinAddU32, native::BuiltinAddF32, native::BuiltinMaxI32,
    native::BuiltinExchU64, native::BuiltinCasU32, native::LibcuMaxF32, native::LibcuMinF32, native::LibcuAddI64>;
}  // namespace atomstress::registration
