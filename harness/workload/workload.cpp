#include "harness/workload/workload.hpp"

#include <algorithm>
#include <cmath>

#include "harness/prim/half_ops.cuh"
#include "harness/registry/bits.hpp"
#include "harness/trial/patterns.hpp"

namespace atomstress {

namespace {

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
    case VK::U16: case VK::I16: return sp(kU16Special);  // 0, 1, -1, INT16_MIN, INT16_MAX, -2 as i16
    case VK::I64: case VK::U64: return sp(kI64Special);
    default: return sp(kI32Special);
  }
}

std::optional<Workload> expand_shape(const TrialSpec& spec, std::string& error) {
  const Entry* impl = find_impl(spec.impl);
  if (!impl) {
    error = "unknown implementation '" + spec.impl + "' (see 'atomstress list')";
    return std::nullopt;
  }
  if (!validate(spec, impl->limits, error)) return std::nullopt;
  Workload w;
  w.impl = impl;
  w.spec = spec;
  w.region_elems = uint32_t(region_words(spec, impl->limits.value_bytes));
  w.regions = spec.space == Space::Shared ? spec.grid : 1;
  w.arrays_elsewhere = true;
  return w;
}

std::vector<double> zipf_table(const TrialSpec& spec) {
  if (spec.pattern != Pattern::Zipf) return {};
  return zipf_cdf(std::max<uint32_t>(spec.k, 1), spec.zipf_s);
}

expansion::Params expansion_params(const Workload& w, const uint64_t* special, const double* cdf) {
  const TrialSpec& s = w.spec;
  expansion::Params p;
  p.seed = s.seed;
  p.threads = s.threads();
  p.ops = s.ops();
  p.grid = s.grid;
  p.block = s.block;
  p.k = std::max<uint32_t>(s.k, 1);
  p.zipf_s = s.zipf_s;
  p.special_permille = s.special_permille;
  p.region = w.region_elems;
  p.bytes = w.impl->limits.value_bytes;
  p.warps = (s.block + kWarpSize - 1) / kWarpSize;
  p.line = kLineBytes / p.bytes;
  p.page = kPageBytes / p.bytes;
  p.shared = s.space == Space::Shared;
  p.zero_init = s.init == Init::Zero;
  p.half_offset = pattern_info(s.pattern).half_offset;
  p.pattern = s.pattern;
  p.dist = s.dist;
  p.kind = w.impl->kind;
  p.domain = w.impl->domain;
  p.special = special;
  p.special_count = uint32_t(special_values(p.kind, p.domain).size());
  p.cdf = cdf;
  return p;
}

void expand_arrays(Workload& w) {
  const std::vector<double> cdf = zipf_table(w.spec);
  const expansion::Params p = expansion_params(w, special_values(w.impl->kind, w.impl->domain).data(), cdf.data());
  const uint64_t n = w.spec.ops();
  w.arrays_elsewhere = false;
  w.addr.resize(n);
  w.a.resize(n);
  w.b.resize(n);
  // Op o is thread o % threads's: walked in order, without a division an op.
  uint32_t blk = 0, lane = 0;
  for (uint64_t o = 0; o < n; ++o) {
    expansion::thread_op_inputs(p, o, blk, lane, w.addr[o], w.a[o], w.b[o]);
    if (++lane == p.block) {
      lane = 0;
      if (++blk == p.grid) blk = 0;
    }
  }
  w.init.resize(w.mem_elems());
  for (uint64_t e = 0; e < w.init.size(); ++e) w.init[e] = expansion::init_value(p, e);
}

std::optional<Workload> expand(const TrialSpec& spec, std::string& error) {
  auto w = expand_shape(spec, error);
  if (w) expand_arrays(*w);
  return w;
}

}  // namespace atomstress
