#include "harness/workload/workload.hpp"

#include <algorithm>
#include <cmath>

#include "harness/prim/half_ops.cuh"
#include "harness/registry/bits.hpp"
#include "harness/trial/patterns.hpp"

namespace atomstress {

uint64_t counter_rng(uint64_t seed, uint64_t stream, uint64_t index) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ull * (index + 1) + 0xd1b54a32d192ed03ull * (stream + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  // A second round decorrelates neighbouring (stream, index) pairs fully.
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

namespace {

enum Stream : uint64_t { kAddr = 1, kA = 2, kB = 3, kInit = 4, kSpecialA = 5, kSpecialB = 6, kSpecialInit = 7 };

constexpr uint64_t kF32Special[] = {
    0x00000000, 0x80000000,              // +0, -0
    0x7f800000, 0xff800000,              // +inf, -inf
    0x7fc00000, 0xffc00000,              // quiet NaN, both signs
    0x7fffffff, 0x7fa00001, 0xff812345,  // NaN payloads (0x7fa00001 signalling)
    0x00000001, 0x80000001,              // smallest subnormals
    0x007fffff, 0x807fffff,              // largest subnormals
    0x00800000, 0x80800000,              // smallest normals
    0x7f7fffff, 0xff7fffff,              // largest normals
    0x3f800000, 0xbf800000, 0x3f800001,  // 1, -1, 1 + ulp
};
constexpr uint64_t kF64Special[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
    0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7fffffffffffffffull, 0x7ff4000000000001ull,
    0x0000000000000001ull, 0x8000000000000001ull, 0x000fffffffffffffull, 0x0010000000000000ull,
    0x7fefffffffffffffull, 0xffefffffffffffffull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
    0x3ff0000000000001ull,  // 1 + 2^-52: differs from 1 only below float precision
    0x3ff0000010000000ull,  // 1 + 2^-24
    0x3ff0000000100000ull,  // 1 + 2^-32
    0x36a0000000000000ull,  // 2^-149 as a double: a float subnormal, a double normal
};
// The same classes in the 16-bit formats, plus sums that round: a tie
// (1 + 2^-11 in half, 1 + 2^-8 in bfloat16, 2048 + 1 or 256 + 1), its
// round-up twin next to 1 + ulp, and a sum that overflows to infinity.
constexpr uint64_t kF16Special[] = {
    0x0000, 0x8000,                  // +0, -0
    0x7c00, 0xfc00,                  // +inf, -inf
    0x7e00, 0xfe00,                  // quiet NaN, both signs
    0x7fff, 0x7d01, 0xfe45,          // NaN payloads (0x7d01 signalling)
    0x0001, 0x8001,                  // smallest subnormals
    0x03ff, 0x83ff,                  // largest subnormals
    0x0400, 0x8400,                  // smallest normals
    0x7bff, 0xfbff,                  // largest finite (65504)
    0x3c00, 0xbc00, 0x3c01,          // 1, -1, 1 + ulp
    0x1000, 0x6800, 0x7800,          // 2^-11 (half an ulp of 1), 2048, 32768
};
constexpr uint64_t kBF16Special[] = {
    0x0000, 0x8000, 0x7f80, 0xff80,  // +0, -0, +inf, -inf
    0x7fc0, 0xffc0,                  // quiet NaN, both signs
    0x7fff, 0x7fa1, 0xff81,          // NaN payloads (0x7fa1 signalling)
    0x0001, 0x8001, 0x007f, 0x807f,  // smallest and largest subnormals
    0x0080, 0x8080,                  // smallest normals
    0x7f7f, 0xff7f,                  // largest finite
    0x3f80, 0xbf80, 0x3f81,          // 1, -1, 1 + ulp
    0x3b80, 0x4380, 0x7f00,          // 2^-8 (half an ulp of 1), 256, 2^127
};
constexpr uint64_t kI32Special[] = {0, 1, 0xffffffff, 0x80000000, 0x7fffffff, 0x80000001, 0x7ffffffe, 2};
constexpr uint64_t kI64Special[] = {0, 1, ~0ull, 0x8000000000000000ull, 0x7fffffffffffffffull,
                                    0x8000000000000001ull, 0x00000000ffffffffull, 0x0000000100000000ull};
constexpr uint64_t kU16Special[] = {0, 1, 0xffff, 0x8000, 0x7fff, 0xfffe};
constexpr uint64_t kIncDecSpecial[] = {0, 1, 2, 0xffffffff, 0xfffffffe, 0x80000000};
// 64-bit limits (cas.inc.u64, cas.dec.u64): the 32-bit ones, and the edges of
// 64 bits, where old + 1 and the limit itself wrap.
constexpr uint64_t kIncDec64Special[] = {0, 1, 2, 0xffffffff, 0x100000000ull, 0x8000000000000000ull,
                                         ~0ull - 1, ~0ull};
constexpr uint64_t kCasSpecial[] = {0, 1, 0xffffffff, 0x80000000};

template <size_t N>
std::span<const uint64_t> sp(const uint64_t (&a)[N]) {
  return std::span<const uint64_t>(a, N);
}

bool is_signed(VK k) { return k == VK::I32 || k == VK::I64; }

uint64_t mask_of(VK k) {
  const unsigned bytes = vk_bytes(k);
  return bytes == 8 ? ~0ull : ((1ull << (8 * bytes)) - 1);
}

// sign * (1 + m) * 2^e, m of `frac` random bits, e in [-span, span]: values
// whose sums round.
double rounding_value(uint64_t r, int frac, int span) {
  const int e = int((r >> 8) % uint64_t(2 * span + 1)) - span;
  const double m = 1.0 + std::ldexp(double((r >> 32) & ((1ull << frac) - 1)), -frac);
  return ((r & 1) ? -1.0 : 1.0) * std::ldexp(m, e);
}

// A 16-bit float of the kind (the value is exact in it).
uint64_t half_bits(VK k, double v) {
  return k == VK::F16 ? to_bits(prim::narrow<__half>(v)) : to_bits(prim::narrow<__nv_bfloat16>(v));
}

// An ordinary (non-special) value.  `r` is a fresh random word.
uint64_t ordinary(const ImplInfo& impl, Dist dist, uint64_t r, bool is_init) {
  const VK k = impl.kind;
  switch (impl.domain) {
    case Domain::Float:
      if (k == VK::F16 || k == VK::BF16) {
        if (dist == Dist::Small) return half_bits(k, double(int(r % 17) - 8));
        // Exponents within [-6, 6] keep long half sums finite for a while;
        // bfloat16 spans f32's [-10, 10].
        return k == VK::F16 ? half_bits(k, rounding_value(r, 10, 6)) : half_bits(k, rounding_value(r, 7, 10));
      }
      if (k == VK::F32) {
        if (dist == Dist::Small) return to_bits<float>(float(int(r % 17) - 8));
        // sign * (1 + m) * 2^e with e in [-10, 10]: sums round.
        const int e = int((r >> 8) % 21) - 10;
        const float m = 1.0f + float((r >> 32) & 0x7fffff) * 0x1p-23f;
        return to_bits<float>(((r & 1) ? -1.0f : 1.0f) * std::ldexp(m, e));
      } else {
        if (dist == Dist::Small) return to_bits<double>(double(int(r % 17) - 8));
        const int e = int((r >> 8) % 41) - 20;
        const double m = 1.0 + double(r >> 12) * 0x1p-52;
        return to_bits<double>(((r & 1) ? -1.0 : 1.0) * std::ldexp(m, e));
      }
    case Domain::IncDec:
      if (is_init) return dist == Dist::Small ? r % 12 : r % 70000;
      return dist == Dist::Small ? r % 9 : r % 65536;
    case Domain::Cas:
      return r % 4;
    case Domain::Bits:
      return dist == Dist::Small ? (r & 0xf) : (r & mask_of(k));
    case Domain::Int:
    case Domain::Exch:
      if (dist == Dist::Full) return r & mask_of(k);
      if (is_signed(k)) return uint64_t(int64_t(r % 9) - 4) & mask_of(k);
      return r % 9;
  }
  return 0;
}

uint64_t draw(const Workload& w, uint64_t stream, uint64_t special_stream, uint64_t i, bool is_init) {
  const auto& s = w.spec;
  const uint64_t r = counter_rng(s.seed, stream, i);
  if (s.special_permille != 0) {
    const uint64_t rs = counter_rng(s.seed, special_stream, i);
    if (rs % 1000 < s.special_permille) {
      auto sv = special_values(w.impl->kind, w.impl->domain);
      return sv[(rs >> 16) % sv.size()];
    }
  }
  return ordinary(*w.impl, s.dist, r, is_init);
}

// Zipf over k addresses with exponent s/2 (s in 1..4): weights computed with
// sqrt and division only, which IEEE rounds exactly, so every machine builds
// the same table.
std::vector<double> zipf_cdf(uint32_t k, uint32_t s) {
  std::vector<double> cdf(k);
  double acc = 0;
  for (uint32_t i = 0; i < k; ++i) {
    const double r = double(i + 1);
    double w;
    switch (s) {
      case 1: w = 1.0 / std::sqrt(r); break;
      case 2: w = 1.0 / r; break;
      case 3: w = 1.0 / (r * std::sqrt(r)); break;
      default: w = 1.0 / (r * r); break;
    }
    acc += w;
    cdf[i] = acc;
  }
  for (auto& c : cdf) c /= acc;
  return cdf;
}

}  // namespace

std::span<const uint64_t> special_values(VK kind, Domain domain) {
  if (domain == Domain::IncDec) return vk_bytes(kind) == 8 ? sp(kIncDec64Special) : sp(kIncDecSpecial);
  if (domain == Domain::Cas) return sp(kCasSpecial);
  switch (kind) {
    case VK::F32: return sp(kF32Special);
    case VK::F64: return sp(kF64Special);
    case VK::F16: return sp(kF16Special);
    case VK::BF16: return sp(kBF16Special);
    case VK::U16: return sp(kU16Special);
    case VK::I64: case VK::U64: return sp(kI64Special);
    default: return sp(kI32Special);
  }
}

std::optional<Workload> expand(const TrialSpec& spec, std::string& error) {
  const Entry* impl = find_impl(spec.impl);
  if (!impl) {
    error = "unknown implementation '" + spec.impl + "' (see 'atomstress list')";
    return std::nullopt;
  }
  if (!validate(spec, impl->limits, error)) return std::nullopt;
  const unsigned bytes = impl->limits.value_bytes;
  const bool shared = spec.space == Space::Shared;
  const uint64_t region = region_words(spec, bytes);

  Workload w;
  w.impl = impl;
  w.spec = spec;
  w.region_elems = uint32_t(region);
  w.regions = shared ? spec.grid : 1;
  const uint64_t n = spec.ops(), threads = spec.threads();
  w.addr.resize(n);
  w.a.resize(n);
  w.b.resize(n);
  std::vector<double> cdf;
  if (spec.pattern == Pattern::Zipf) cdf = zipf_cdf(std::max<uint32_t>(spec.k, 1), spec.zipf_s);
  for (uint64_t o = 0; o < n; ++o) {
    const uint64_t t = o % threads;
    const uint32_t blk = uint32_t(t / spec.block), lane = uint32_t(t % spec.block);
    const uint64_t r = counter_rng(spec.seed, kAddr, o);
    const uint64_t idx = pattern_word(spec, bytes, blk, lane, r, cdf.data());
    w.addr[o] = uint32_t((shared ? uint64_t(blk) * region : 0) + idx);
    w.a[o] = draw(w, kA, kSpecialA, o, false);
    w.b[o] = draw(w, kB, kSpecialB, o, false);
  }
  w.init.resize(w.mem_elems());
  for (uint64_t e = 0; e < w.init.size(); ++e)
    w.init[e] = spec.init == Init::Zero ? 0 : draw(w, kInit, kSpecialInit, e, true);
  return w;
}

}  // namespace atomstress
