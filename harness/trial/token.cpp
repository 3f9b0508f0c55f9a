#include "harness/trial/token.hpp"

#include <charconv>
#include <cstdio>
#include <vector>

namespace atomstress {

namespace {
// FNV-1a, 32 bits: the token's checksum.
uint32_t fnv1a(std::string_view s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

constexpr std::string_view kTokenVersion = "as1";
}  // namespace

std::string encode_token(const TrialSpec& s) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.*s.%s.%u.%u.%u.%u.%u.%u.%u.%u.%u.%u.%llx",
                static_cast<int>(kTokenVersion.size()), kTokenVersion.data(), s.impl.c_str(),
                s.grid, s.block, s.ops_per_thread, unsigned(s.space), unsigned(s.pattern), s.k,
                s.zipf_s, unsigned(s.dist), s.special_permille, unsigned(s.init),
                static_cast<unsigned long long>(s.seed));
  std::string body = buf;
  std::snprintf(buf, sizeof buf, ".%08x", fnv1a(body));
  return body + buf;
}

std::optional<TrialSpec> decode_token(std::string_view token, std::string& error) {
  // Split on '.', but the implementation's name contains dots: the name is
  // everything between the version and the last 12 numeric fields.
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= token.size(); ++i) {
    if (i == token.size() || token[i] == '.') {
      parts.push_back(token.substr(start, i - start));
      start = i + 1;
    }
  }
  constexpr size_t kNumeric = 12;  // 11 fields + checksum
  if (parts.empty() || parts[0] != kTokenVersion) {
    error = "malformed reproduction token: it must start with '" + std::string(kTokenVersion) + ".'";
    return std::nullopt;
  }
  if (parts.size() < 2 + kNumeric) {
    error = "malformed reproduction token: truncated (" + std::to_string(parts.size()) +
            " fields, expected at least " + std::to_string(2 + kNumeric) + ")";
    return std::nullopt;
  }
  const size_t body_len = token.size() - parts.back().size() - 1;
  uint32_t sum = 0;
  {
    auto cs = parts.back();
    auto [p, ec] = std::from_chars(cs.data(), cs.data() + cs.size(), sum, 16);
    if (ec != std::errc() || p != cs.data() + cs.size() || cs.size() != 8) {
      error = "malformed reproduction token: bad checksum field '" + std::string(cs) + "'";
      return std::nullopt;
    }
  }
  if (fnv1a(token.substr(0, body_len)) != sum) {
    error = "malformed reproduction token: checksum mismatch (token altered or truncated)";
    return std::nullopt;
  }
  const size_t first_num = parts.size() - kNumeric;
  std::string impl;
  for (size_t i = 1; i < first_num; ++i) {
    if (i > 1) impl += '.';
    impl += parts[i];
  }
  uint64_t v[kNumeric - 1];
  for (size_t i = 0; i + 1 < kNumeric; ++i) {
    auto f = parts[first_num + i];
    const int base = (i == kNumeric - 2) ? 16 : 10;
    auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v[i], base);
    if (ec != std::errc() || p != f.data() + f.size() || f.empty()) {
      error = "malformed reproduction token: field " + std::to_string(i + 1) + " '" + std::string(f) +
              "' is not a number";
      return std::nullopt;
    }
  }
  if (v[3] > 1 || v[4] >= kNumPatterns || v[7] > 1 || v[9] > 1 || v[8] > 1000 ||
      v[0] > UINT32_MAX || v[1] > UINT32_MAX || v[2] > UINT32_MAX || v[5] > UINT32_MAX ||
      v[6] > UINT32_MAX) {
    error = "malformed reproduction token: a field is out of range";
    return std::nullopt;
  }
  TrialSpec s;
  s.impl = impl;
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
  return s;
}

}  // namespace atomstress
