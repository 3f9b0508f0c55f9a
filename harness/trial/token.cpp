#include "harness/trial/token.hpp"

#include "harness/trial/validate.hpp"

#include <charconv>
#include <fmt/format.h>
#include <vector>

#ifndef ATOMSTRESS_VERSION
#define ATOMSTRESS_VERSION "unknown"
#endif

namespace atomstress {

namespace {
// FNV-1a, 32 bits: the token's checksum.
uint32_t fnv1a(std::string_view s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

// as1: the spec; as2: and the tool version and knobs; as3: and the stress
// fields.  A trial without stress is still written as2, so that builds from
// before stress replay it.
constexpr std::string_view kV1 = "as1", kV2 = "as2", kV3 = "as3";
constexpr size_t kSpecFields = 11, kKnobFields = 4, kStressFields = 8;

// The tool version as one dot-free field ("0.1.0" <-> "0_1_0").
std::string version_field(std::string v) {
  for (char& c : v)
    if (c == '.') c = '_';
  return v;
}
std::string version_from_field(std::string_view f) {
  std::string v(f);
  for (char& c : v)
    if (c == '_') c = '.';
  return v;
}

bool parse_number(std::string_view f, int base, uint64_t& out) {
  auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), out, base);
  return !f.empty() && ec == std::errc() && p == f.data() + f.size();
}
}  // namespace

const char* tool_version() { return ATOMSTRESS_VERSION; }

std::string encode_token(const TrialSpec& s, const TrialKnobs& k) {
  // No fixed buffer: a byo entry's name is free text of any length.
  std::string body = fmt::format("{}.{}.{}.{}.{}.{}.{}.{}.{}.{}.{}.{}.{}.{:x}.{}.{}.{}.{}", kV2,
                                 version_field(tool_version()), s.impl, s.grid, s.block, s.ops_per_thread,
                                 unsigned(s.space), unsigned(s.pattern), s.k, s.zipf_s, unsigned(s.dist),
                                 s.special_permille, unsigned(s.init), s.seed, k.yield_permille, k.cpu_threads,
                                 k.watchdog_ms, k.retry_budget);
  if (s.stress != Stress{}) {
    const Stress& t = s.stress;
    body.replace(0, kV2.size(), kV3);
    body += fmt::format(".{}.{}.{}.{}.{}.{}.{}.{}", t.blocks, t.mem_permille, t.lines, t.stride, unsigned(t.access),
                        unsigned(t.shuffle), t.barrier_us, unsigned(t.bank_conflicts));
  }
  return body + fmt::format(".{:08x}", fnv1a(body));
}

namespace {
// Split on '.'; the implementation's name contains dots: it is everything
// between the leading fields and the trailing numeric ones.
std::vector<std::string_view> split_fields(std::string_view token) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= token.size(); ++i) {
    if (i == token.size() || token[i] == '.') {
      parts.push_back(token.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

// Which fields a token of its version carries.
struct TokenLayout {
  bool v2 = false, v3 = false;
  size_t lead = 0;     // version [, tool version]
  size_t numeric = 0;  // the trailing numeric fields, checksum included
};

std::optional<TokenLayout> read_layout(const std::vector<std::string_view>& parts, std::string& error) {
  TokenLayout l;
  l.v3 = !parts.empty() && parts[0] == kV3;
  l.v2 = !parts.empty() && (parts[0] == kV2 || l.v3);  // as3 is as2 and the stress fields
  if (parts.empty() || (parts[0] != kV1 && !l.v2)) {
    error = "malformed reproduction token: it must start with '" + std::string(kV3) + ".' or '" + std::string(kV2) +
            ".' (or the older '" + std::string(kV1) + ".')";
    return std::nullopt;
  }
  l.lead = l.v2 ? 2 : 1;
  l.numeric = kSpecFields + (l.v2 ? kKnobFields : 0) + (l.v3 ? kStressFields : 0) + 1;  // + checksum
  if (parts.size() < l.lead + 1 + l.numeric) {
    error = "malformed reproduction token: truncated (" + std::to_string(parts.size()) +
            " fields, expected at least " + std::to_string(l.lead + 1 + l.numeric) + ")";
    return std::nullopt;
  }
  return l;
}

bool checksum_matches(std::string_view token, const std::vector<std::string_view>& parts, std::string& error) {
  const size_t body_len = token.size() - parts.back().size() - 1;
  uint64_t sum = 0;
  if (parts.back().size() != 8 || !parse_number(parts.back(), 16, sum)) {
    error = "malformed reproduction token: bad checksum field '" + std::string(parts.back()) + "'";
    return false;
  }
  if (fnv1a(token.substr(0, body_len)) != sum) {
    error = "malformed reproduction token: checksum mismatch (token altered or truncated)";
    return false;
  }
  return true;
}

// The implementation's name: the fields between the leading and the numeric ones.
std::string join_impl_name(const std::vector<std::string_view>& parts, size_t lead, size_t first_num) {
  std::string impl;
  for (size_t i = lead; i < first_num; ++i) {
    if (i > lead) impl += '.';
    impl += parts[i];
  }
  return impl;
}

std::optional<std::vector<uint64_t>> parse_numeric_fields(const std::vector<std::string_view>& parts,
                                                          size_t first_num, size_t numeric, std::string& error) {
  std::vector<uint64_t> v(numeric - 1);
  for (size_t i = 0; i + 1 < numeric; ++i) {
    const int base = (i == kSpecFields - 1) ? 16 : 10;  // the seed is hex
    if (!parse_number(parts[first_num + i], base, v[i])) {
      error = "malformed reproduction token: field " + std::to_string(i + 1) + " '" +
              std::string(parts[first_num + i]) + "' is not a number";
      return std::nullopt;
    }
  }
  return v;
}

bool fields_in_range(const std::vector<uint64_t>& v, const TokenLayout& l) {
  bool in_range = v[3] <= 1 && v[4] < kNumPatterns && v[7] <= 1 && v[9] <= 1 && v[8] <= 1000 &&
                  v[0] <= UINT32_MAX && v[1] <= UINT32_MAX && v[2] <= UINT32_MAX && v[5] <= UINT32_MAX &&
                  v[6] <= UINT32_MAX;
  // The knobs within the command line's own bounds (harness/cli/options.hpp).
  if (l.v2) in_range = in_range && v[11] <= 1000 && v[12] >= 1 && v[12] <= 256 && v[13] <= 3600000 && v[14] <= UINT32_MAX;
  if (l.v3)
    for (size_t i = 15; i < 23; ++i) in_range = in_range && v[i] <= UINT32_MAX;
  return in_range;
}

void read_spec_fields(TrialSpec& s, const std::vector<uint64_t>& v) {
  s.grid = uint32_t(v[0]);
  s.block = uint32_t(v[1]);
  s.ops_per_thread = uint32_t(v[2]);
  s.space = Space(v[3]);
  s.pattern = Pattern(v[4]);
  s.k = uint32_t(v[5]);
  s.zipf_s = uint32_t(v[6]);
  s.dist = Dist(v[7]);
  s.special_permille = uint32_t(v[8]);
  s.init = Init(v[9]);
  s.seed = v[10];
}

bool read_stress_fields(Stress& t, const std::vector<uint64_t>& v, std::string& error) {
  t.blocks = uint32_t(v[15]);
  t.mem_permille = uint32_t(v[16]);
  t.lines = uint32_t(v[17]);
  t.stride = uint32_t(v[18]);
  const bool in_range = v[19] < uint64_t(kNumStressAccesses) && v[20] <= 1 && v[22] <= 1;
  t.access = StressAccess(v[19] < uint64_t(kNumStressAccesses) ? v[19] : 0);
  t.shuffle = v[20] != 0;
  t.barrier_us = uint32_t(v[21]);
  t.bank_conflicts = v[22] != 0;
  std::string why;
  if (!in_range || !validate_stress(t, why)) {
    error = "malformed reproduction token: a stress field is out of range" + (why.empty() ? "" : " (" + why + ")");
    return false;
  }
  return true;
}
}  // namespace

std::optional<ReproToken> decode_repro_token(std::string_view token, std::string& error) {
  // A token is one line of printable text: a control character is damage
  // (a pasted newline), never part of a name.
  for (size_t i = 0; i < token.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(token[i]);
    if (c < 0x20 || c == 0x7F) {
      error = fmt::format("malformed reproduction token: character {} is a control character (0x{:02x})", i + 1, c);
      return std::nullopt;
    }
  }
  const std::vector<std::string_view> parts = split_fields(token);
  const std::optional<TokenLayout> layout = read_layout(parts, error);
  if (!layout) return std::nullopt;
  if (!checksum_matches(token, parts, error)) return std::nullopt;
  const size_t first_num = parts.size() - layout->numeric;
  std::string impl = join_impl_name(parts, layout->lead, first_num);
  const auto v = parse_numeric_fields(parts, first_num, layout->numeric, error);
  if (!v) return std::nullopt;
  if (!fields_in_range(*v, *layout)) {
    error = "malformed reproduction token: a field is out of range";
    return std::nullopt;
  }
  ReproToken r;
  r.spec.impl = impl;
  read_spec_fields(r.spec, *v);
  if (layout->v2) {
    r.tool_version = version_from_field(parts[1]);
    r.knobs = TrialKnobs{uint32_t((*v)[11]), uint32_t((*v)[12]), (*v)[13], uint32_t((*v)[14])};
  }
  if (layout->v3 && !read_stress_fields(r.spec.stress, *v, error)) return std::nullopt;
  return r;
}

std::optional<TrialSpec> decode_token(std::string_view token, std::string& error) {
  auto r = decode_repro_token(token, error);
  if (!r) return std::nullopt;
  return std::move(r->spec);
}

}  // namespace atomstress
