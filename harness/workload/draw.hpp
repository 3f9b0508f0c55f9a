// One trial's inputs as pure functions of (spec, index): the word an op
// targets, its operands, an element's initial value.  Compiled for the host
// (workload.cpp) and for the device (backend/cuda/resident.cu) from this one source,
// so both sides expand the same bytes; every step is exact in IEEE
// arithmetic (integer ops, scaling by powers of two, comparisons).
#pragma once

#include <cmath>
#include <cstdint>

#include "atomics_under_test/spec.cuh"
#include "harness/prim/bits.cuh"
#include "harness/prim/config.cuh"
#include "harness/prim/half_ops.cuh"
#include "harness/registry/value_kind.hpp"
#include "harness/trial/spec.hpp"

namespace atomstress {

// Counter-based generator: the value for (seed, stream, index) is a pure
// function of the three (SplitMix64's finaliser over a Weyl sequence).
AS_HD inline uint64_t counter_rng(uint64_t seed, uint64_t stream, uint64_t index) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ull * (index + 1) + 0xd1b54a32d192ed03ull * (stream + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  // A second round decorrelates neighbouring (stream, index) pairs fully.
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

namespace expansion {

enum Stream : uint64_t { kAddr = 1, kA = 2, kB = 3, kInit = 4, kSpecialA = 5, kSpecialB = 6, kSpecialInit = 7 };

// What the expansion reads of a spec and its entry, as plain values a kernel
// can take by value (workload.cpp's expansion_params builds it).
struct Params {
  uint64_t seed = 0, threads = 0, ops = 0;
  uint32_t grid = 1, block = 1, k = 1, zipf_s = 2, special_permille = 0;
  uint64_t region = 1;              // words of one region
  uint64_t warps = 1, line = 1, page = 1;
  bool shared = false, zero_init = false, half_offset = false;
  Pattern pattern = Pattern::Single;
  Dist dist = Dist::Small;
  VK kind = VK::U32;
  Domain domain = Domain::Int;
  unsigned bytes = 4;
  const uint64_t* special = nullptr;  // the kind's special values (special_values)
  uint32_t special_count = 0;
  const double* cdf = nullptr;        // Zipf: k cumulative weights
};

// The word, within the op's region, that an op of thread lane `lane` of
// block `blk` targets; `r` is the op's address draw.
AS_HD inline uint64_t pattern_word(const Params& p, uint32_t blk, uint32_t lane, uint64_t r) {
  constexpr uint32_t kWarp = 32;
  uint64_t idx = 0;
  switch (p.pattern) {
    case Pattern::Single: idx = 0; break;
    case Pattern::Uniform: idx = r % p.k; break;
    case Pattern::Zipf: {  // the first weight above u (std::upper_bound)
      const double u = double(r >> 11) * 0x1p-53;
      uint64_t lo = 0, hi = p.k;
      while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (u < p.cdf[mid]) hi = mid;
        else lo = mid + 1;
      }
      idx = lo >= p.k ? p.k - 1 : lo;
      break;
    }
    case Pattern::SameLine: idx = r % p.k; break;
    case Pattern::PerLine: idx = (r % p.k) * p.line; break;
    case Pattern::PerPage: idx = (r % p.k) * p.page; break;
    case Pattern::PerWarp: idx = (p.shared ? 0 : uint64_t(blk) * p.warps) + lane / kWarp; break;
    case Pattern::PerBlock: idx = p.shared ? 0 : blk; break;
  }
  if (p.bytes == 2 && p.half_offset) {
    if (p.pattern == Pattern::PerWarp || p.pattern == Pattern::PerBlock) idx *= 2;
    idx += (r >> 40) & 1;
  }
  return idx;
}

AS_HD inline uint64_t value_mask(unsigned bytes) { return bytes == 8 ? ~0ull : ((1ull << (8 * bytes)) - 1); }

// 2^e, e within the format's normal exponents, made from its bits: scaling
// by it is exact, so it gives ldexp's result without ldexp's library call
// (a quarter of an algorithm trial's host work, before).
AS_HD inline float pow2f(int e) { return prim::from_bits<float>(uint64_t(127 + e) << 23); }
AS_HD inline double pow2(int e) { return prim::from_bits<double>(uint64_t(1023 + e) << 52); }

// sign * (1 + m) * 2^e, m of `frac` random bits, e in [-span, span]: values
// whose sums round.
AS_HD inline double rounding_value(uint64_t r, int frac, int span) {
  const int e = int((r >> 8) % uint64_t(2 * span + 1)) - span;
  const double m = 1.0 + double((r >> 32) & ((1ull << frac) - 1)) * pow2(-frac);
  return ((r & 1) ? -1.0 : 1.0) * (m * pow2(e));
}

// A 16-bit float of the kind (the value is exact in it).
AS_HD inline uint64_t half_bits(VK k, double v) {
  return k == VK::F16 ? prim::to_bits(prim::narrow<__half>(v)) : prim::to_bits(prim::narrow<__nv_bfloat16>(v));
}

// An ordinary (non-special) value.  `r` is a fresh random word.
AS_HD inline uint64_t ordinary(const Params& p, uint64_t r, bool is_init) {
  const VK k = p.kind;
  switch (p.domain) {
    case Domain::Float:
      if (k == VK::F16 || k == VK::BF16) {
        if (p.dist == Dist::Small) return half_bits(k, double(int(r % 17) - 8));
        // Exponents within [-6, 6] keep long half sums finite for a while;
        // bfloat16 spans f32's [-10, 10].
        return k == VK::F16 ? half_bits(k, rounding_value(r, 10, 6)) : half_bits(k, rounding_value(r, 7, 10));
      }
      if (k == VK::F32) {
        if (p.dist == Dist::Small) return prim::to_bits<float>(float(int(r % 17) - 8));
        // sign * (1 + m) * 2^e with e in [-10, 10]: sums round.
        const int e = int((r >> 8) % 21) - 10;
        const float m = 1.0f + float((r >> 32) & 0x7fffff) * 0x1p-23f;
        return prim::to_bits<float>(((r & 1) ? -1.0f : 1.0f) * (m * pow2f(e)));
      } else {
        if (p.dist == Dist::Small) return prim::to_bits<double>(double(int(r % 17) - 8));
        const int e = int((r >> 8) % 41) - 20;
        const double m = 1.0 + double(r >> 12) * 0x1p-52;
        return prim::to_bits<double>(((r & 1) ? -1.0 : 1.0) * (m * pow2(e)));
      }
    case Domain::IncDec:
      if (is_init) return p.dist == Dist::Small ? r % 12 : r % 70000;
      return p.dist == Dist::Small ? r % 9 : r % 65536;
    case Domain::Cas:
      return r % 4;
    case Domain::Bits:
      return p.dist == Dist::Small ? (r & 0xf) : (r & value_mask(p.bytes));
    case Domain::Int:
    case Domain::Exch:
      if (p.dist == Dist::Full) return r & value_mask(p.bytes);
      if (k == VK::I32 || k == VK::I64 || k == VK::I16) return uint64_t(int64_t(r % 9) - 4) & value_mask(p.bytes);
      return r % 9;
  }
  return 0;
}

AS_HD inline uint64_t draw(const Params& p, uint64_t stream, uint64_t special_stream, uint64_t i, bool is_init) {
  const uint64_t r = counter_rng(p.seed, stream, i);
  if (p.special_permille != 0) {
    const uint64_t rs = counter_rng(p.seed, special_stream, i);
    if (rs % 1000 < p.special_permille) return p.special[(rs >> 16) % p.special_count];
  }
  return ordinary(p, r, is_init);
}

// Op o, issued by thread `lane` of block `blk` (o % threads is that
// thread): the element it targets (a flat index over every region) and its
// operands.
AS_HD inline void thread_op_inputs(const Params& p, uint64_t o, uint32_t blk, uint32_t lane, uint32_t& addr,
                                   uint64_t& a, uint64_t& b) {
  const uint64_t idx = pattern_word(p, blk, lane, counter_rng(p.seed, kAddr, o));
  addr = uint32_t((p.shared ? uint64_t(blk) * p.region : 0) + idx);
  a = draw(p, kA, kSpecialA, o, false);
  b = draw(p, kB, kSpecialB, o, false);
}

// Op o alone (a kernel's thread per op).
AS_HD inline void op_inputs(const Params& p, uint64_t o, uint32_t& addr, uint64_t& a, uint64_t& b) {
  const uint64_t t = o % p.threads;
  thread_op_inputs(p, o, uint32_t(t / p.block), uint32_t(t % p.block), addr, a, b);
}

AS_HD inline uint64_t init_value(const Params& p, uint64_t e) {
  return p.zero_init ? 0 : draw(p, kInit, kSpecialInit, e, true);
}

}  // namespace expansion
}  // namespace atomstress
