// The algorithm catalogue: every algorithm form, paired automatically with
// every catalogue atomic it fits (Alg<A>::fits()).  Backends and the registry
// walk the pairs in the same order with for_each_algorithm(), so an
// algorithm's device code is instantiated in exactly one translation unit.
#pragma once

#include <type_traits>

#include "atomics_under_test/algorithms/forms.cuh"
#include "atomics_under_test/buggy/forms.cuh"
#include "atomics_under_test/catalogue.cuh"

namespace atomstress::algo {

template <class A> using AppendPlain = Append<A>;
template <class A> using AppendAgg = AppendWarpAgg<A>;
template <class A> using SumElement = Sum<A, SumForm::Element>;
template <class A> using SumThread = Sum<A, SumForm::Thread>;
template <class A> using SumBlock = Sum<A, SumForm::Block>;
template <class A> using SumWarpDown = Sum<A, SumForm::WarpDown>;
template <class A> using SumWarpXor = Sum<A, SumForm::WarpXor>;
template <class A> using HistGlobal = Histogram<A, false>;
template <class A> using HistShared = Histogram<A, true>;
template <class A> using ArgMaxCas = ArgBest<A, true, true>;
template <class A> using ArgMinCas = ArgBest<A, false, true>;
template <class A> using ArgMaxMax = ArgBest<A, true, false>;
template <class A> using ArgMinMin = ArgBest<A, false, false>;
template <class A> using LockDevice = Lock<A, false>;
template <class A> using LockBlock = Lock<A, true>;

// clang-format off
#define ATOMSTRESS_ALGORITHMS(X)                                                   \
  X(atomstress::algo::AppendPlain) X(atomstress::algo::AppendAgg)                   \
  X(atomstress::algo::SumElement) X(atomstress::algo::SumThread)                    \
  X(atomstress::algo::SumBlock) X(atomstress::algo::SumWarpDown)                    \
  X(atomstress::algo::SumWarpXor) X(atomstress::algo::HistGlobal)                   \
  X(atomstress::algo::HistShared) X(atomstress::algo::ArgMaxCas)                    \
  X(atomstress::algo::ArgMinCas) X(atomstress::algo::ArgMaxMax)                     \
  X(atomstress::algo::ArgMinMin) X(atomstress::algo::LockDevice)                    \
  X(atomstress::algo::LockBlock)                                                    \
  X(atomstress::buggy::AppendWriteFirst) X(atomstress::buggy::AppendWarpAggLane0)   \
  X(atomstress::buggy::SumBlockNoSync) X(atomstress::buggy::HistSharedNoSync)       \
  X(atomstress::buggy::ArgMaxTieLast) X(atomstress::buggy::LockUnfenced)
// clang-format on

template <class... Is>
struct TypeList {};
#define AS_ALGO_TYPE(I) I,
using CatalogueTypes = TypeList<ATOMSTRESS_CATALOGUE(AS_ALGO_TYPE) void>;
#undef AS_ALGO_TYPE

template <template <class> class Alg, class F, class... Is>
void for_each_fit(F& f, TypeList<Is...>) {
  (
      [&] {
        if constexpr (!std::is_void_v<Is>) {
          if constexpr (Alg<Is>::fits()) f.template operator()<Alg<Is>>();
        }
      }(),
      ...);
}

// Calls f.template operator()<Alg<A>>() for every fitting pair, in catalogue
// order (algorithms outer, atomics inner).
template <class F>
void for_each_algorithm(F&& f) {
#define AS_ALGO_VISIT(Alg) for_each_fit<Alg>(f, CatalogueTypes{});
  ATOMSTRESS_ALGORITHMS(AS_ALGO_VISIT)
#undef AS_ALGO_VISIT
}

// Optional traits of an algorithm (buggy ones set them).
template <class Alg>
constexpr const char* bug_of() {
  if constexpr (requires { Alg::bug; }) return Alg::bug;
  return nullptr;
}
template <class Alg>
constexpr bool needs_gpu_of() {
  if constexpr (requires { Alg::needs_gpu; }) return Alg::needs_gpu;
  return Alg::gpu_only;
}
template <class Alg>
constexpr bool rate_only_of() {
  if constexpr (requires { Alg::rate_only; }) return Alg::rate_only;
  return false;
}

}  // namespace atomstress::algo
