// Renames the CUDA atomic intrinsics to their intercepted versions
// (intercept.cuh: atomstress_<name>) for the rest of a user's unit.  Object-like macros, so calls, addresses
// (&atomicCAS) and overload resolution all see the intercepted set.  Included
// last by <atomstress/atomstress.cuh>, after every CUDA header it needs, so
// CUDA's own headers and atomstress's are never rewritten.
#pragma once

#define atomicAdd atomstress_atomicAdd
#define atomicAdd_block atomstress_atomicAdd_block
#define atomicAdd_system atomstress_atomicAdd_system
#define atomicSub atomstress_atomicSub
#define atomicSub_block atomstress_atomicSub_block
#define atomicSub_system atomstress_atomicSub_system
#define atomicExch atomstress_atomicExch
#define atomicExch_block atomstress_atomicExch_block
#define atomicExch_system atomstress_atomicExch_system
#define atomicMin atomstress_atomicMin
#define atomicMin_block atomstress_atomicMin_block
#define atomicMin_system atomstress_atomicMin_system
#define atomicMax atomstress_atomicMax
#define atomicMax_block atomstress_atomicMax_block
#define atomicMax_system atomstress_atomicMax_system
#define atomicInc atomstress_atomicInc
#define atomicInc_block atomstress_atomicInc_block
#define atomicInc_system atomstress_atomicInc_system
#define atomicDec atomstress_atomicDec
#define atomicDec_block atomstress_atomicDec_block
#define atomicDec_system atomstress_atomicDec_system
#define atomicAnd atomstress_atomicAnd
#define atomicAnd_block atomstress_atomicAnd_block
#define atomicAnd_system atomstress_atomicAnd_system
#define atomicOr atomstress_atomicOr
#define atomicOr_block atomstress_atomicOr_block
#define atomicOr_system atomstress_atomicOr_system
#define atomicXor atomstress_atomicXor
#define atomicXor_block atomstress_atomicXor_block
#define atomicXor_system atomstress_atomicXor_system
#define atomicCAS atomstress_atomicCAS
#define atomicCAS_block atomstress_atomicCAS_block
#define atomicCAS_system atomstress_atomicCAS_system

// libcu++'s cuda::atomic_ref and cuda::std::atomic_ref (intercept_libcudacxx.cuh).
#define atomic_ref atomstress_atomic_ref
