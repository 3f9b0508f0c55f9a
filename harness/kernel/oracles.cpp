#include "harness/kernel/oracles.hpp"

#include <fmt/format.h>

#include "harness/check/float_sum.hpp"

#include <algorithm>
#include <unordered_map>

#include <cmath>
#include <cstring>
#include <cstdio>
#include <map>
#include <vector>

namespace atomstress::kernel {

namespace {

bool is_nan(VK k, uint64_t bits) {
  if (k == VK::F32) return (bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu) != 0;
  if (k == VK::F64) return (bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (bits & 0xfffffffffffffull) != 0;
  if (k == VK::F16) return (bits & 0x7fffu) > 0x7c00u;
  if (k == VK::BF16) return (bits & 0x7fffu) > 0x7f80u;
  return false;
}
// Multiset keys: every NaN is one value (each kind's quiet NaN).
uint64_t canon(VK k, uint64_t bits) {
  if (!is_nan(k, bits)) return bits;
  switch (k) {
    case VK::F32: return 0x7fc00000u;
    case VK::F16: return 0x7e00u;
    case VK::BF16: return 0x7fc0u;
    default: return 0x7ff8000000000000ull;
  }
}
std::string at(std::string_view buffer, int64_t i) { return std::string(buffer) + "[" + std::to_string(i) + "]"; }

KernelFailure make(std::string_view buffer, int64_t index, std::string expected, std::string got, std::string message) {
  return KernelFailure{std::string(buffer), index, std::move(expected), std::move(got), std::move(message),
                       FailureClass::None, {}};
}

// The rows of an element-wise comparison around index `first`: a few
// before, the rest after, each expected value from `want_at`.
template <class Want>
std::vector<DiffRow> window_around(std::string_view buffer, VK kind, std::span<const uint64_t> got, size_t first,
                                   Want want_at) {
  std::vector<DiffRow> rows;
  const size_t from = first >= 2 ? first - 2 : 0, to = std::min(got.size(), from + kWindowRows);
  for (size_t j = from; j < to; ++j) {
    const uint64_t w = want_at(j);
    rows.push_back({at(buffer, int64_t(j)), format_value(kind, w), format_value(kind, got[j]),
                    canon(kind, w) != canon(kind, got[j])});
  }
  return rows;
}

}  // namespace

std::optional<KernelFailure> check_equal(std::string_view buffer, VK kind, std::span<const uint64_t> got,
                                         std::span<const uint64_t> want) {
  if (got.size() != want.size())
    return make(buffer, -1, std::to_string(want.size()), std::to_string(got.size()),
                std::string(buffer) + " has " + std::to_string(got.size()) + " elements, the reference " +
                    std::to_string(want.size()));
  for (size_t i = 0; i < got.size(); ++i) {
    if (canon(kind, got[i]) == canon(kind, want[i])) continue;
    size_t wrong = 0;
    for (size_t j = i; j < got.size(); ++j) wrong += canon(kind, got[j]) != canon(kind, want[j]);
    const std::string e = format_value(kind, want[i]), g = format_value(kind, got[i]);
    KernelFailure f = make(buffer, int64_t(i), e, g,
                           at(buffer, int64_t(i)) + " holds " + g + ", the reference " + e + " (" +
                               std::to_string(wrong) + " of " + std::to_string(got.size()) + " elements differ)");
    f.window = window_around(buffer, kind, got, i, [&](size_t j) { return want[j]; });
    return f;
  }
  return std::nullopt;
}

std::optional<KernelFailure> check_permutation(std::string_view buffer, VK kind, std::span<const uint64_t> got,
                                               std::span<const uint64_t> want) {
  std::map<uint64_t, int64_t> balance;  // expected count minus seen count
  for (uint64_t w : want) ++balance[canon(kind, w)];
  for (uint64_t g : got) --balance[canon(kind, g)];
  for (const auto& [value, diff] : balance) {
    if (diff == 0) continue;
    int64_t expected = 0, seen = 0, first = -1;
    for (uint64_t w : want) expected += canon(kind, w) == value;
    for (size_t i = 0; i < got.size(); ++i)
      if (canon(kind, got[i]) == value) {
        if (first < 0) first = int64_t(i);
        ++seen;
      }
    const std::string v = format_value(kind, value);
    std::string msg = std::string(buffer) + " is not a permutation of the expected values: " + v + " appears " +
                      std::to_string(seen) + " times, expected " + std::to_string(expected) +
                      (diff > 0 ? " (lost)" : " (duplicated or invented)");
    if (first >= 0) msg += "; first at " + at(buffer, first);
    if (got.size() != want.size())
      msg += "; " + std::to_string(got.size()) + " elements, expected " + std::to_string(want.size());
    KernelFailure f = make(buffer, first, std::to_string(expected) + " x " + v, std::to_string(seen) + " x " + v, msg);
    // The values whose counts differ, as rows (order-free: no index).
    for (const auto& [other, d] : balance) {
      if (d == 0 || f.window.size() == kWindowRows) continue;
      int64_t e = 0, g = 0;
      for (uint64_t w : want) e += canon(kind, w) == other;
      for (uint64_t x : got) g += canon(kind, x) == other;
      f.window.push_back({"count of " + format_value(kind, other), std::to_string(e), std::to_string(g), true});
    }
    return f;
  }
  return std::nullopt;
}

std::optional<KernelFailure> check_counts(std::string_view buffer, VK bin_kind, std::span<const uint64_t> bins,
                                          std::span<const uint64_t> keys, std::span<const uint64_t> init) {
  const unsigned bytes = vk_bytes(bin_kind);
  const uint64_t mask = bytes == 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
  std::vector<uint64_t> count(bins.size(), 0);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] >= bins.size())
      return make(buffer, int64_t(keys[i]), "", "",
                  "key #" + std::to_string(i) + " is " + std::to_string(keys[i]) + ", outside the " +
                      std::to_string(bins.size()) + " bins of " + std::string(buffer) + " (the case's own input)");
    ++count[keys[i]];
  }
  for (size_t b = 0; b < bins.size(); ++b) {
    const uint64_t base = b < init.size() ? init[b] : 0, want = (base + count[b]) & mask, got = bins[b] & mask;
    if (got == want) continue;
    const int64_t lost = int64_t((want - got) & mask);
    std::string msg = at(buffer, int64_t(b)) + " holds " + format_value(bin_kind, got) + " but " +
                      std::to_string(count[b]) + " keys are " + std::to_string(b) +
                      (base ? " (initial " + format_value(bin_kind, base) + ")" : "") + ": expected " +
                      format_value(bin_kind, want);
    if (lost > 0 && uint64_t(lost) <= count[b])
      msg += " (" + std::to_string(lost) + (lost == 1 ? " increment lost)" : " increments lost)");
    else msg += " (" + std::to_string(int64_t((got - want) & mask)) + " too many)";
    KernelFailure f = make(buffer, int64_t(b), format_value(bin_kind, want), format_value(bin_kind, got), msg);
    std::vector<uint64_t> masked(bins.begin(), bins.end());
    for (uint64_t& x : masked) x &= mask;
    f.window = window_around(buffer, bin_kind, masked, b, [&](size_t j) {
      return ((j < init.size() ? init[j] : 0) + count[j]) & mask;
    });
    return f;
  }
  return std::nullopt;
}

std::optional<KernelFailure> check_sum(std::string_view buffer, VK kind, uint64_t got_bits, uint64_t init,
                                       std::span<const uint64_t> values, std::optional<double> bound,
                                       FloatAdds adds) {
  FloatSum sum(kind, init, {adds});
  for (uint64_t v : values) sum.add(v);
  const SumJudgement j = sum.judge(got_bits, bound);
  if (j.ok) return std::nullopt;
  const std::string g = format_value(kind, got_bits);
  return make(buffer, 0, j.expected, g,
              std::string(buffer) + "[0] holds " + g + " for init + the sum of " + std::to_string(values.size()) +
                  " values" + j.why);
}

namespace {
// Each element's contributors (indices into the scattered values), by a
// counting sort: O(n + elements).
struct Contributors {
  std::vector<size_t> start, order;  // element j's are order[start[j] .. start[j+1])
  size_t count(size_t j) const { return start[j + 1] - start[j]; }
};
Contributors contributors_of(std::span<const uint64_t> keys, size_t elements) {
  Contributors c;
  c.start.assign(elements + 1, 0);
  for (uint64_t k : keys) ++c.start[k + 1];
  for (size_t j = 0; j < elements; ++j) c.start[j + 1] += c.start[j];
  c.order.resize(keys.size());
  std::vector<size_t> next(c.start.begin(), c.start.end() - 1);
  for (size_t i = 0; i < keys.size(); ++i) c.order[next[keys[i]]++] = i;
  return c;
}
// "src[0] = 0.25 (0x3400), src[4] = -1 (0xbc00), src[9] = 2 (0x4000), ..."
std::string first_contributors(const Contributors& c, size_t j, VK kind, const Scattered& in) {
  constexpr size_t kShown = 3;
  std::string s;
  for (size_t x = c.start[j]; x < c.start[j + 1] && x < c.start[j] + kShown; ++x)
    s += (s.empty() ? "" : ", ") + at(in.values_name, int64_t(c.order[x])) + " = " +
         format_value(kind, in.values[c.order[x]]);
  if (c.count(j) > kShown) s += ", ...";
  return s;
}
FloatSum element_sum(const Contributors& c, size_t j, VK kind, uint64_t init, const Scattered& in, FloatAdds adds) {
  FloatSum sum(kind, init, {adds});
  for (size_t x = c.start[j]; x < c.start[j + 1]; ++x) sum.add(in.values[c.order[x]]);
  return sum;
}
}  // namespace

std::optional<KernelFailure> check_scatter_sums(std::string_view buffer, VK kind, std::span<const uint64_t> got,
                                                std::span<const uint64_t> init, const Scattered& in,
                                                std::optional<double> bound, FloatAdds adds) {
  for (size_t i = 0; i < in.keys.size(); ++i)
    if (in.keys[i] >= got.size())
      return make(buffer, -1, "", "",
                  "key #" + std::to_string(i) + " is " + format_value(in.key_kind, in.keys[i]) + ", outside the " +
                      std::to_string(got.size()) + " elements of " + std::string(buffer) + " (the case's own input)");
  if (in.values.size() < in.keys.size())
    return make(buffer, -1, "", "", fmt::format("{} keys but {} values scattered into {}", in.keys.size(),
                                                in.values.size(), buffer));
  const Contributors c = contributors_of(in.keys, got.size());
  auto init_at = [&](size_t j) { return j < init.size() ? init[j] : 0; };
  auto sum_at = [&](size_t j) { return element_sum(c, j, kind, init_at(j), in, adds); };
  size_t wrong = 0, first = got.size();
  for (size_t j = 0; j < got.size(); ++j) {
    if (sum_at(j).accepts(got[j], bound)) continue;
    ++wrong;
    first = std::min(first, j);
  }
  if (wrong == 0) return std::nullopt;
  const SumJudgement judged = sum_at(first).judge(got[first], bound);
  const std::string g = format_value(kind, got[first]);
  const size_t n = c.count(first);
  const std::string terms =
      n == 0 ? fmt::format("its initial value {}, and no value is scattered to it", format_value(kind, init_at(first)))
             : fmt::format("its initial value {} plus the sum of the {} value{} scattered to it ({})",
                           format_value(kind, init_at(first)), n, n == 1 ? "" : "s",
                           first_contributors(c, first, kind, in));
  KernelFailure f = make(buffer, int64_t(first), judged.expected, g,
                         fmt::format("{} holds {}, {}{} ({} of {} elements wrong)", at(buffer, int64_t(first)), g,
                                     terms, judged.why, wrong, got.size()));
  const size_t from = first >= 2 ? first - 2 : 0, to = std::min(got.size(), from + kWindowRows);
  for (size_t j = from; j < to; ++j) {
    const SumJudgement row = sum_at(j).judge(got[j], bound);
    f.window.push_back({at(buffer, int64_t(j)), row.cell, format_value(kind, got[j]), !row.ok});
  }
  return f;
}

std::optional<KernelFailure> check_map(std::string_view buffer, VK kind, std::span<const uint64_t> seen_keys,
                                       std::span<const uint64_t> seen_values, std::span<const uint64_t> inserted_keys,
                                       std::span<const uint64_t> inserted_values, std::optional<uint64_t> empty_key,
                                       bool each_once) {
  // Each key's inserted values, sorted: a slot or answer is judged in
  // O(log n), so a large case with few hot keys costs n log n, not n^2 (a
  // quadratic oracle inside the trial's deadline read as the kernel's HANG).
  std::unordered_map<uint64_t, std::vector<uint64_t>> inserted;
  for (size_t i = 0; i < inserted_keys.size(); ++i)
    inserted[inserted_keys[i]].push_back(i < inserted_values.size() ? inserted_values[i] : 0);
  for (auto& [k, values] : inserted) std::sort(values.begin(), values.end());
  std::unordered_map<uint64_t, int64_t> first_slot;
  for (size_t i = 0; i < seen_keys.size(); ++i) {
    const uint64_t k = seen_keys[i], v = i < seen_values.size() ? seen_values[i] : 0;
    if (empty_key && k == *empty_key) continue;
    const auto it = inserted.find(k);
    if (it == inserted.end()) {
      const std::string key = format_value(kind, k);
      return make(buffer, int64_t(i), "an inserted key", key,
                  at(buffer, int64_t(i)) + " holds key " + key + ", which was never inserted");
    }
    if (!std::binary_search(it->second.begin(), it->second.end(), v)) {
      const std::string key = format_value(kind, k), val = format_value(kind, v);
      std::string allowed;
      for (uint64_t w : it->second) {
        if (allowed.size() >= 80) break;
        allowed += (allowed.empty() ? "" : ", ") + format_value(kind, w);
      }
      return make(buffer, int64_t(i), allowed, val,
                  at(buffer, int64_t(i)) + ": key " + key + " holds value " + val + ", but it was inserted only with {" +
                      allowed + "}" + (empty_key && v == *empty_key ? " (the empty sentinel: a payload not yet published)" : ""));
    }
    if (each_once) {
      const auto [slot, fresh] = first_slot.emplace(k, int64_t(i));
      if (!fresh) {
        const std::string key = format_value(kind, k);
        return make(buffer, int64_t(i), "one slot", "two",
                    "key " + key + " is in two slots, " + at(buffer, slot->second) + " and " + at(buffer, int64_t(i)));
      }
    }
  }
  if (each_once) {
    // The smallest missing key, so the message does not depend on hash order.
    std::optional<uint64_t> missing;
    for (const auto& [k, values] : inserted)
      if (!first_slot.count(k) && (!missing || k < *missing)) missing = k;
    if (missing)
      return make(buffer, -1, "present", "missing",
                  "key " + format_value(kind, *missing) + " was inserted but is in no slot of " + std::string(buffer));
  }
  return std::nullopt;
}

std::vector<DiffRow> window_of(const KernelFailure& f) {
  if (!f.window.empty() || (f.expected.empty() && f.got.empty())) return f.window;
  return {{f.index >= 0 ? at(f.buffer, f.index) : f.buffer, f.expected, f.got, true}};
}

Finding to_finding(const KernelFailure& f) {
  Finding out = make_finding(FindingKind::WrongOutput, f.message, -1, f.index);
  if (f.cls != FailureClass::None) out.cls = f.cls;
  return out;
}

}  // namespace atomstress::kernel
