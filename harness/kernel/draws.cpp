#include "harness/kernel/draws.hpp"

#include "harness/support/hash.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "harness/workload/draw.hpp"
#include "harness/workload/workload.hpp"

namespace atomstress::kernel {

namespace {
// Sub-streams of one name's stream.
enum : uint64_t { kSize = 0, kKeys = 1, kHot = 2, kValues = 3, kSpecial = 4, kOffset = 5 };
constexpr uint64_t kMaxSize = uint64_t(1) << 26;

uint64_t rng(const TrialSpec& s, std::string_view name, uint64_t sub, uint64_t index) {
  return counter_rng(s.seed, name_stream(name) * 8 + sub, index);
}
double unit(uint64_t r) { return double(r >> 11) * 0x1.0p-53; }
}  // namespace

const char* to_string(SizeClass c) {
  static const char* const names[] = {"zero", "one", "odd-small", "around-warp", "around-block", "around-grid", "large"};
  return names[unsigned(c)];
}

KeyShape key_shape(Pattern p) {
  switch (p) {
    case Pattern::Single: return KeyShape::AllEqual;
    case Pattern::Uniform: return KeyShape::Uniform;
    case Pattern::Zipf: return KeyShape::Zipf;
    case Pattern::SameLine: return KeyShape::FewHot;
    case Pattern::PerLine: return KeyShape::Sorted;
    case Pattern::PerPage: return KeyShape::Reversed;
    case Pattern::PerWarp: return KeyShape::PerWarp;
    case Pattern::PerBlock: return KeyShape::PerBlock;
  }
  return KeyShape::Uniform;
}

const char* to_string(KeyShape k) {
  static const char* const names[] = {"all-equal", "uniform", "zipf", "few-hot", "sorted", "reversed", "per-warp", "per-block"};
  return names[unsigned(k)];
}

uint64_t name_stream(std::string_view name) { return fnv1a64(name) & 0xffffffffffffull; }

SizeClass size_class(const TrialSpec& s, std::string_view name) {
  static constexpr SizeClass table[8] = {SizeClass::Zero,        SizeClass::One,          SizeClass::OddSmall,
                                         SizeClass::AroundWarp,  SizeClass::AroundBlock,  SizeClass::AroundThreads,
                                         SizeClass::Large,       SizeClass::Large};
  // The seed's low bits pick the class directly (mixed with the name), so
  // any 8 consecutive seeds cover every class: the shrinker's few small
  // seeds then reach every edge size of a small geometry.
  return table[(s.seed + name_stream(name)) % 8];
}

uint64_t draw_size(const TrialSpec& s, std::string_view name) {
  const uint64_t r = rng(s, name, kSize, 1);
  const int64_t delta = int64_t((s.seed / 8 + (name_stream(name) >> 8)) % 3) - 1;  // -1, 0, +1: seeds 0..23 cover all
  auto around = [&](uint64_t base) { return uint64_t(std::max<int64_t>(0, int64_t(base) + delta)); };
  uint64_t n = 0;
  switch (size_class(s, name)) {
    case SizeClass::Zero: n = 0; break;
    case SizeClass::One: n = 1; break;
    case SizeClass::OddSmall: n = 2 * ((r >> 8) % 8) + 3; break;
    case SizeClass::AroundWarp: n = around(32); break;
    case SizeClass::AroundBlock: n = around(s.block); break;
    case SizeClass::AroundThreads: n = around(s.threads()); break;
    case SizeClass::Large: n = around(s.ops()); break;
  }
  return std::min(n, kMaxSize);
}

uint64_t whole_size(const TrialSpec& s) { return std::min(s.ops(), kMaxSize); }

uint64_t draw_range(const TrialSpec& s, std::string_view) { return std::max<uint64_t>(1, s.k); }

namespace {
std::vector<double> zipf_cdf(uint64_t range, uint32_t zipf_s) {
  const uint64_t m = std::min<uint64_t>(range, 1u << 16);  // beyond: the tail is uniform enough
  std::vector<double> cdf(m);
  double acc = 0;
  for (uint64_t i = 0; i < m; ++i) cdf[i] = acc += std::pow(double(i + 1), -double(zipf_s) / 2.0);
  for (double& c : cdf) c /= acc;
  return cdf;
}
}  // namespace

std::vector<uint64_t> draw_keys(const TrialSpec& s, std::string_view name, uint64_t n, uint64_t range) {
  range = std::max<uint64_t>(1, range);
  std::vector<uint64_t> keys(n);
  auto r = [&](uint64_t i) { return rng(s, name, kKeys, i); };
  const KeyShape shape = key_shape(s.pattern);
  switch (shape) {
    case KeyShape::AllEqual:
      std::fill(keys.begin(), keys.end(), r(0) % range);
      break;
    case KeyShape::Zipf: {
      const std::vector<double> cdf = zipf_cdf(range, std::max<uint32_t>(1, s.zipf_s));
      for (uint64_t i = 0; i < n; ++i)
        keys[i] = uint64_t(std::lower_bound(cdf.begin(), cdf.end(), unit(r(i))) - cdf.begin()) % range;
      break;
    }
    case KeyShape::FewHot: {
      // Up to four hot keys take nine in ten elements; the rest uniform.
      const uint64_t hot = std::min<uint64_t>(range, 4);
      for (uint64_t i = 0; i < n; ++i)
        keys[i] = r(i) % 10 != 0 ? rng(s, name, kHot, r(i) % hot) % range : (r(i) >> 8) % range;
      break;
    }
    case KeyShape::PerWarp:
    case KeyShape::PerBlock: {
      const uint64_t run = shape == KeyShape::PerWarp ? 32 : std::max<uint32_t>(1, s.block);
      for (uint64_t i = 0; i < n; ++i) keys[i] = r(i / run) % range;
      break;
    }
    default:
      for (uint64_t i = 0; i < n; ++i) keys[i] = r(i) % range;
  }
  if (shape == KeyShape::Sorted) std::sort(keys.begin(), keys.end());
  if (shape == KeyShape::Reversed) std::sort(keys.begin(), keys.end(), std::greater<>());
  return keys;
}

namespace {
// An ordinary value: small (integers 0..15, signed -8..7; floats k/4 in
// [-8, 8), exact in every float kind, bfloat16's 8 bits included) or full
// range (any bit pattern of the width: for the 16-bit floats every
// exponent, NaNs and infinities among them).
uint64_t ordinary_bits(VK kind, Dist dist, uint64_t r) {
  const unsigned bytes = vk_bytes(kind);
  const uint64_t mask = bytes == 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
  if (dist == Dist::Full) return r & mask;
  const int64_t small = int64_t(r % 16) - (kind == VK::I16 || kind == VK::I32 || kind == VK::I64 ? 8 : 0);
  if (kind == VK::F16 || kind == VK::BF16) return expansion::half_bits(kind, double(int64_t(r % 64) - 32) / 4.0);
  if (kind == VK::F32) {
    const float f = float(int64_t(r % 64) - 32) / 4.0f;
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  }
  if (kind == VK::F64) {
    const double d = double(int64_t(r % 64) - 32) / 4.0;
    uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
  }
  return uint64_t(small) & mask;
}
}  // namespace

std::vector<uint64_t> draw_value_bits(const TrialSpec& s, std::string_view name, uint64_t n, VK kind) {
  const auto special = special_values(kind, vk_is_float(kind) ? Domain::Float : Domain::Int);
  std::vector<uint64_t> v(n);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t pick = rng(s, name, kSpecial, i);
    if (!special.empty() && pick % 1000 < s.special_permille) v[i] = special[(pick >> 16) % special.size()];
    else v[i] = ordinary_bits(kind, s.dist, rng(s, name, kValues, i));
  }
  return v;
}

uint32_t draw_offset_elems(const TrialSpec& s, std::string_view name) {
  static constexpr uint32_t offsets[4] = {0, 0, 1, 3};
  return offsets[rng(s, name, kOffset, 0) % 4];
}

const char* to_string(SharedClass c) {
  static const char* const names[] = {"none", "little", "few-blocks-per-sm", "most-opt-in"};
  return names[unsigned(c)];
}

SharedClass shared_class(const TrialSpec& s) { return SharedClass((s.seed >> 3) % 4); }

namespace {
// A block's shared memory (with the system's reserved share) just above
// 1/(kFewBlocksPerSm + 1) of an SM's: kFewBlocksPerSm blocks fit, one more
// does not (rounded up to the 128-byte allocation unit).
uint32_t few_blocks_bytes(const SharedLimits& l) {
  if (l.per_sm == 0) return 0;
  const uint64_t share = l.per_sm / (kFewBlocksPerSm + 1) + 128;
  const uint64_t bytes = share > l.reserved_per_block ? share - l.reserved_per_block : 0;
  return uint32_t((bytes + 127) / 128 * 128);
}
// The most a generated extra takes: the opt-in limit, less room on the SM
// for one more block without shared memory (a stress's hammering block,
// launch.cu, started first: were the user's block to need the whole SM, it
// would wait for the hammering to give up, and read as a hang).
uint64_t generated_limit(const SharedLimits& l) {
  uint64_t most = l.per_block_optin;
  if (l.per_sm > 2 * uint64_t(l.reserved_per_block))
    most = std::min<uint64_t>(most, l.per_sm - 2 * uint64_t(l.reserved_per_block));
  return most;
}
}  // namespace

std::optional<uint32_t> draw_shared_bytes(const TrialSpec& s, uint32_t at_least, uint32_t static_bytes,
                                          const SharedLimits& limits, std::string& error) {
  return shared_bytes_of(shared_class(s), at_least, static_bytes, limits, error);
}

std::optional<uint32_t> shared_bytes_of(SharedClass c, uint32_t at_least, uint32_t static_bytes,
                                        const SharedLimits& limits, std::string& error) {
  const uint64_t most = limits.per_block_optin > static_bytes ? limits.per_block_optin - static_bytes : 0;
  if (limits.per_block_optin != 0 && at_least > most) {
    error = "the property asks for " + std::to_string(at_least) + " bytes of dynamic shared memory per block" +
            (static_bytes ? " beside the kernel's " + std::to_string(static_bytes) + " static bytes" : "") +
            ", more than a block may have on this device (" + std::to_string(limits.per_block_optin) + " bytes)";
    return std::nullopt;
  }
  const uint64_t block_limit = generated_limit(limits);
  const uint64_t room = block_limit > static_bytes ? block_limit - static_bytes : 0;
  uint64_t bytes = at_least;
  switch (c) {
    case SharedClass::None: break;
    case SharedClass::Little: bytes = uint64_t(at_least) + kLittleShared; break;
    case SharedClass::FewBlocksPerSm: {
      const uint64_t block_total = few_blocks_bytes(limits);  // static and dynamic together
      bytes = block_total > static_bytes ? block_total - static_bytes : 0;
      break;
    }
    case SharedClass::MostOptIn: bytes = room; break;
  }
  if (limits.per_block_optin != 0) bytes = std::min(bytes, room);
  return uint32_t(std::max<uint64_t>(bytes, at_least));  // the need itself, up to the device's limit
}

}  // namespace atomstress::kernel
