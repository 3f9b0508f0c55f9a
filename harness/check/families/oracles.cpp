#include "harness/check/families/family.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "atomics_under_test/algorithms/forms.cuh"
#include "harness/check/checker.hpp"
#include "harness/registry/bits.hpp"

namespace atomstress {

bool algo_pattern_ok(Family f, Pattern p) {
  switch (f) {
    case Family::Sum: return p == Pattern::Single || p == Pattern::Uniform || p == Pattern::PerBlock;
    case Family::Append:
    case Family::ArgMax: return p == Pattern::Single;
    default: return true;
  }
}

namespace {

constexpr uint64_t kKeepStream = 40;
constexpr uint32_t kMaxLockOps = 1u << 14;  // serialised critical sections per generated trial

uint64_t width_mask(VK k) {
  const unsigned b = vk_bytes(k);
  return b == 8 ? ~0ull : (1ull << (8 * b)) - 1;
}

// The region a pattern gives, as expand() computes it (for capping k).
uint64_t region_of(const TrialSpec& s, unsigned bytes) {
  const uint64_t k = std::max<uint32_t>(s.k, 1), warps = (s.block + 31) / 32;
  switch (s.pattern) {
    case Pattern::Single: return 1;
    case Pattern::SameLine: return 128 / bytes;
    case Pattern::PerLine: return k * (128 / bytes);
    case Pattern::PerPage: return k * (4096 / bytes);
    case Pattern::PerWarp: return uint64_t(s.grid) * warps;
    case Pattern::PerBlock: return s.grid;
    default: return k;
  }
}

std::string fmt(VK k, uint64_t bits) { return format_value(k, bits); }

}  // namespace

void algo_normalise(const ImplInfo& impl, TrialSpec& s) {
  const AlgoInfo& a = *impl.algo;
  s.space = Space::Global;
  if (!algo_pattern_ok(a.family, s.pattern)) {
    if (a.family == Family::Sum)
      s.pattern = s.pattern == Pattern::PerWarp ? Pattern::PerBlock : Pattern::Uniform;
    else
      s.pattern = Pattern::Single;
  }
  if (a.family == Family::Histogram && a.shared_bins) {
    // Privatised bins within 32 KiB of shared memory.
    const unsigned bytes = vk_bytes(a.mem_kind);
    if (s.pattern == Pattern::PerWarp || s.pattern == Pattern::PerBlock)
      while (region_of(s, bytes) * bytes > 32768 && s.grid > 1) s.grid /= 2;
    while (region_of(s, bytes) * bytes > 32768 && s.k > 1) s.k /= 2;
  }
  if (a.family == Family::Lock) {
    while (s.ops() > kMaxLockOps && s.ops_per_thread > 1) --s.ops_per_thread;
    while (s.ops() > kMaxLockOps && s.grid > 1) s.grid = std::max<uint32_t>(1, s.grid / 2);
  }
}

std::optional<AlgoSetup> algo_setup(const Workload& w, std::string& error) {
  const ImplInfo& impl = *w.impl;
  const AlgoInfo& a = *impl.algo;
  const auto& spec = w.spec;
  const uint64_t n = w.ops();
  const unsigned mbytes = vk_bytes(a.mem_kind);
  AlgoSetup s;
  s.key.resize(n);
  switch (a.family) {
    case Family::Append: {
      // zipf_s / 4 of the elements pass the filter (1: a quarter .. 4: all).
      for (uint64_t e = 0; e < n; ++e) s.key[e] = counter_rng(spec.seed, kKeepStream, e) % 4 < spec.zipf_s;
      s.mem_init = {0};
      s.out_slots = uint32_t(n);
      break;
    }
    case Family::Sum: {
      s.param = uint32_t(w.mem_elems());
      for (uint64_t e = 0; e < n; ++e) s.key[e] = w.block_of(e) % s.param;
      s.mem_init = w.init;
      if (a.sum_form == SumForm::Block) s.smem_bytes = spec.block * mbytes;
      break;
    }
    case Family::Histogram: {
      s.param = uint32_t(w.mem_elems());
      std::copy(w.addr.begin(), w.addr.end(), s.key.begin());
      s.mem_init = w.init;
      if (a.shared_bins) {
        const uint64_t bytes = uint64_t(s.param) * mbytes;
        if (bytes > kMaxSharedBytes) {
          error = "impossible geometry: " + std::to_string(s.param) + " privatised bins of " + std::to_string(mbytes) +
                  " bytes need " + std::to_string(bytes) + " bytes of shared memory per block (limit 227 KiB)";
          return std::nullopt;
        }
        s.smem_bytes = uint32_t(bytes);
      }
      break;
    }
    case Family::ArgMax: s.mem_init = {a.is_cas || !a.is_max ? ~0ull : 0ull}; break;
    case Family::Lock: {
      s.param = uint32_t(w.mem_elems());
      std::copy(w.addr.begin(), w.addr.end(), s.key.begin());
      const uint64_t locks = a.block_scope ? uint64_t(s.param) * spec.grid : s.param;
      if (2 * locks * 4 > kMaxTrialMemBytes) {
        error = "impossible geometry: per-block locks exceed the 1 GiB trial memory";
        return std::nullopt;
      }
      s.mem_init.assign(2 * locks, 0);
      for (uint64_t j = 0; j < locks; ++j) s.mem_init[locks + j] = w.init[j % s.param];
      break;
    }
  }
  return s;
}

namespace {

// The algorithm's atomics as a history for the Eulerian checker: op i at
// addr[i] with operand arg[i] returned old[i].  `elem` maps op i to the
// element that issued it (empty: op i is element i).  `what` names the
// atomics in the verdict.
AlgoVerdict check_chain(const char* what, const ImplInfo& impl, std::span<const uint32_t> addr,
                        std::span<const uint64_t> arg, std::span<const uint64_t> old,
                        std::span<const uint64_t> init, std::span<const uint64_t> fin,
                        std::span<const uint64_t> elem, uint32_t threads = 0) {
  const std::vector<uint64_t> zeros(arg.size(), 0);
  CheckInput in;
  in.impl = &impl;
  in.addr = addr;
  in.a = arg;
  in.b = zeros;
  in.old = old;
  in.init = init;
  in.final_mem = fin;
  in.threads = threads;
  const CheckResult r = check_history(in);
  if (r.ok) return {};
  if (elem.empty() || r.bad_op < 0) return {false, std::string(what) + ": " + r.explanation, r.bad_op};
  const int64_t e = int64_t(elem[size_t(r.bad_op)]);
  return {false, std::string(what) + ": " + r.explanation + " (op #" + std::to_string(r.bad_op) + " is element " +
                     std::to_string(e) + ")",
          e};
}

// --------------------------------------------------------------------- append
AlgoVerdict check_append(const Workload& w, const AlgoSetup& s, const History& h) {
  const AlgoInfo& a = *w.impl->algo;
  const auto& spec = w.spec;
  const uint64_t n = w.ops(), threads = spec.threads();
  // The counter's atomics: one per kept element, or one per warp and step.
  std::vector<uint32_t> addr;
  std::vector<uint64_t> arg, old;
  std::vector<uint64_t> issuer;
  uint64_t kept = 0;
  for (uint64_t e = 0; e < n; ++e) kept += s.key[e];
  if (!a.warp_agg) {
    for (uint64_t e = 0; e < n; ++e)
      if (s.key[e]) issuer.push_back(e), arg.push_back(1);
  } else {
    for (uint32_t k = 0; k < spec.ops_per_thread; ++k)
      for (uint32_t b = 0; b < spec.grid; ++b)
        for (uint32_t w0 = 0; w0 < spec.block; w0 += 32) {
          const uint32_t width = std::min(32u, spec.block - w0);
          uint64_t leader = ~0ull, votes = 0;
          for (uint32_t l = 0; l < width; ++l) {
            const uint64_t e = uint64_t(k) * threads + uint64_t(b) * spec.block + w0 + l;
            if (s.key[e]) {
              if (votes++ == 0) leader = e;
            }
          }
          if (votes) issuer.push_back(leader), arg.push_back(votes);
        }
  }
  for (uint64_t e : issuer) addr.push_back(0), old.push_back(h.old[e]);
  const uint64_t count = h.final_mem[0];
  const AlgoVerdict chain =
      check_chain("the counter's atomic", a.atomic(), addr, arg, old, s.mem_init, h.final_mem, issuer);
  if (!chain.ok) return chain;
  if (count != kept)
    return {false, "count is " + std::to_string(count) + " but the filter keeps " + std::to_string(kept) + " elements"};
  std::vector<uint8_t> seen(n, 0);
  for (uint64_t slot = 0; slot < s.out_slots; ++slot) {
    const uint32_t v = h.out[slot];
    if (slot >= count) {
      if (v != kEmptySlot)
        return {false, "slot " + std::to_string(slot) + " past the count " + std::to_string(count) +
                           " was written (element " + std::to_string(v) + ")",
                v < n ? int64_t(v) : -1};
      continue;
    }
    if (v == kEmptySlot) return {false, "slot " + std::to_string(slot) + " below the count " + std::to_string(count) +
                                            " was never written: a hole in the output"};
    if (v >= n || !s.key[v])
      return {false, "slot " + std::to_string(slot) + " holds element " + std::to_string(v) +
                         ", which the filter does not keep"};
    if (seen[v]++)
      return {false, "element " + std::to_string(v) + " appears twice in the output (again in slot " +
                         std::to_string(slot) + "): two appends wrote one slot",
              int64_t(v)};
  }
  return {};
}

// ----------------------------------------------------------------------- sums
template <class T>
struct SumIssuers {
  std::vector<uint64_t> elem;  // the element that issued each atomic
  std::vector<uint32_t> acc;
  std::vector<uint64_t> arg;
};

template <class T>
T xv(const Workload& w, uint64_t e) { return from_bits<T>(w.a[e]); }

template <class T>
T thread_partial(const Workload& w, uint64_t gt) {
  const uint64_t threads = w.spec.threads();
  T acc = xv<T>(w, gt);
  for (uint32_t k = 1; k < w.spec.ops_per_thread; ++k) acc = algo::plus(acc, xv<T>(w, uint64_t(k) * threads + gt));
  return acc;
}

template <class T>
SumIssuers<T> sum_issuers(const Workload& w, const AlgoSetup& s, SumForm form) {
  const auto& spec = w.spec;
  const uint64_t threads = spec.threads(), n = w.ops();
  SumIssuers<T> out;
  auto push = [&](uint64_t e, uint32_t b, T v) {
    out.elem.push_back(e);
    out.acc.push_back(b % s.param);
    out.arg.push_back(to_bits<T>(v));
  };
  switch (form) {
    case SumForm::Element:
      for (uint64_t e = 0; e < n; ++e) push(e, w.block_of(e), xv<T>(w, e));
      break;
    case SumForm::Thread:
      for (uint64_t t = 0; t < threads; ++t) push(t, uint32_t(t / spec.block), thread_partial<T>(w, t));
      break;
    case SumForm::Block: {
      std::vector<T> sh(spec.block);
      uint32_t top = 1;
      while (top < spec.block) top <<= 1;
      for (uint32_t b = 0; b < spec.grid; ++b) {
        for (uint32_t t = 0; t < spec.block; ++t) sh[t] = thread_partial<T>(w, uint64_t(b) * spec.block + t);
        for (uint32_t half = top >> 1; half > 0; half >>= 1)
          for (uint32_t t = 0; t < half && t + half < spec.block; ++t) sh[t] = algo::plus(sh[t], sh[t + half]);
        push(uint64_t(b) * spec.block, b, sh[0]);
      }
      break;
    }
    case SumForm::WarpDown:
    case SumForm::WarpXor: {
      T v[32], nv[32];
      for (uint32_t b = 0; b < spec.grid; ++b)
        for (uint32_t w0 = 0; w0 < spec.block; w0 += 32) {
          const uint32_t width = std::min(32u, spec.block - w0);
          const uint64_t first = uint64_t(b) * spec.block + w0;
          for (uint32_t l = 0; l < width; ++l) v[l] = thread_partial<T>(w, first + l);
          for (uint32_t off = 16; off > 0; off >>= 1) {
            for (uint32_t l = 0; l < width; ++l) {
              const uint32_t src = form == SumForm::WarpDown ? l + off : (l ^ off);
              nv[l] = src < width ? algo::plus(v[l], v[src]) : v[l];
            }
            std::copy(nv, nv + width, v);
          }
          push(first, b, v[0]);
        }
      break;
    }
  }
  return out;
}

// The numeric oracle of one accumulator.
template <class T>
std::string sum_numeric(const Workload& w, const AlgoSetup& s, const History& h, uint32_t j,
                        const std::vector<uint64_t>& terms, uint64_t atomics, uint64_t depth) {
  const VK k = vk_of<T>();
  const uint64_t got_bits = h.final_mem[j];
  if constexpr (std::is_integral_v<T>) {
    uint64_t sum = s.mem_init[j];
    for (uint64_t e : terms) sum += w.a[e];
    sum &= width_mask(k);
    if (got_bits != sum)
      return "accumulator " + std::to_string(j) + " holds " + fmt(k, got_bits) + " but init + its " +
             std::to_string(terms.size()) + " elements is " + fmt(k, sum) + " (exact, wrapping)";
    return {};
  } else {
    const T got = from_bits<T>(got_bits);
    const T maxv = std::numeric_limits<T>::max();
    bool nan = false, pinf = false, ninf = false, integral = true;
    long double exact = 0, sumabs = 0;
    auto take = [&](T v) {
      if (std::isnan(v)) nan = true;
      else if (std::isinf(v)) (v > 0 ? pinf : ninf) = true;
      else {
        exact += v;
        sumabs += std::fabs(v);
        integral = integral && v == std::trunc(v);
      }
    };
    take(from_bits<T>(s.mem_init[j]));
    for (uint64_t e : terms) take(from_bits<T>(w.a[e]));
    const std::string where = "accumulator " + std::to_string(j) + " holds " + fmt(k, got_bits);
    if (nan || (pinf && ninf)) {
      if (!std::isnan(got))
        return where + " but its terms include " + (nan ? "a NaN" : "+inf and -inf") + ", so the sum must be a NaN";
      return {};
    }
    if (sumabs >= maxv / 2) return {};  // partial sums may overflow in an order-dependent way
    if (pinf || ninf) {
      if (got != (pinf ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity()))
        return where + " but its terms include " + (pinf ? "+inf" : "-inf") + " and no opposite infinity";
      return {};
    }
    const long double u = std::numeric_limits<T>::epsilon() / 2;
    const long double gamma = depth * u / (1 - depth * u);
    const long double bound = gamma * sumabs + 2 * atomics * (long double)std::numeric_limits<T>::min() +
                              sumabs * 0x1p-60L;
    const long double err = std::fabs((long double)got - exact);
    if (!(err <= bound)) {
      char buf[256];
      std::snprintf(buf, sizeof buf, " but the exact sum is %.21Lg: error %.3Lg exceeds the bound %.3Lg "
                    "(gamma_%llu * sum|x| = %.3Lg, plus flushing slack)",
                    exact, err, bound, (unsigned long long)depth, gamma * sumabs);
      return where + buf;
    }
    // Integers below 2^(mantissa+1): every partial sum is exact, whatever the order.
    const long double exact_limit = std::ldexp(1.0L, std::numeric_limits<T>::digits);
    if (integral && sumabs <= exact_limit && (long double)got != exact) {
      char buf[160];
      std::snprintf(buf, sizeof buf, " but every term is an integer and every partial sum is exact: it must be %.21Lg",
                    exact);
      return where + buf;
    }
    return {};
  }
}

template <class T>
AlgoVerdict check_sum_t(const Workload& w, const AlgoSetup& s, const History& h) {
  const AlgoInfo& a = *w.impl->algo;
  const auto& spec = w.spec;
  const SumIssuers<T> iss = sum_issuers<T>(w, s, a.sum_form);
  // The oracle the issue states: exact integers, bounded floats.
  std::vector<std::vector<uint64_t>> terms(s.param);
  for (uint64_t e = 0; e < w.ops(); ++e) terms[s.key[e]].push_back(e);
  std::vector<uint64_t> atomics(s.param, 0);
  for (uint32_t j : iss.acc) ++atomics[j];
  uint32_t log2_block = 0;
  while ((1u << log2_block) < spec.block) ++log2_block;
  for (uint32_t j = 0; j < s.param; ++j) {
    uint64_t depth = 0;
    switch (a.sum_form) {
      case SumForm::Element: depth = terms[j].size() + 1; break;
      case SumForm::Thread: depth = spec.ops_per_thread + atomics[j]; break;
      case SumForm::Block: depth = spec.ops_per_thread + log2_block + atomics[j]; break;
      default: depth = spec.ops_per_thread + 5 + atomics[j]; break;
    }
    const std::string why = sum_numeric<T>(w, s, h, j, terms[j], atomics[j], depth);
    if (!why.empty()) return {false, why};
  }
  // Bitwise: the atomic's returned values must chain the form's partial sums
  // in some order (its phi, flushing included).
  std::vector<uint64_t> old;
  for (uint64_t e : iss.elem) old.push_back(h.old[e]);
  return check_chain("the partial sums' atomics", a.atomic(), iss.acc, iss.arg, old, s.mem_init, h.final_mem,
                     iss.elem);
}

AlgoVerdict check_sum(const Workload& w, const AlgoSetup& s, const History& h) {
  switch (w.impl->algo->mem_kind) {
    case VK::I32: return check_sum_t<int32_t>(w, s, h);
    case VK::U32: return check_sum_t<uint32_t>(w, s, h);
    case VK::U64: return check_sum_t<unsigned long long>(w, s, h);
    case VK::F32: return check_sum_t<float>(w, s, h);
    case VK::F64: return check_sum_t<double>(w, s, h);
    default: return {false, "sum over an unsupported type"};
  }
}

// ------------------------------------------------------------------ histograms
AlgoVerdict check_histogram(const Workload& w, const AlgoSetup& s, const History& h) {
  const VK k = w.impl->algo->mem_kind;
  std::vector<uint64_t> count(s.param, 0);
  for (uint32_t b : s.key) ++count[b];
  for (uint32_t b = 0; b < s.param; ++b) {
    const uint64_t want = (s.mem_init[b] + count[b]) & width_mask(k), got = h.final_mem[b];
    if (got != want) {
      const int64_t lost = int64_t((want - got) & width_mask(k));
      return {false, "bin " + std::to_string(b) + " holds " + fmt(k, got) + " but init " + fmt(k, s.mem_init[b]) +
                         " + " + std::to_string(count[b]) + " elements is " + fmt(k, want) +
                         (lost > 0 && uint64_t(lost) <= count[b] ? " (" + std::to_string(lost) + " increments lost)"
                                                                 : "")};
    }
  }
  return {};
}

// ------------------------------------------------------------- argmax, argmin
std::string describe_winner(const AlgoInfo& a, uint64_t word) {
  if (word == (a.is_cas || !a.is_max ? ~0ull : 0ull)) return "no winner";
  uint32_t vb = uint32_t(word >> 32), idx = uint32_t(word);
  if (!a.is_cas) {
    vb = (vb & 0x80000000u) ? (vb & 0x7fffffffu) : ~vb;  // undo the ordering
    if (a.is_max) idx = ~idx;
  }
  return "value " + fmt(VK::F32, vb) + " at element " + std::to_string(idx);
}

AlgoVerdict check_argbest(const Workload& w, const AlgoSetup& s, const History& h) {
  const AlgoInfo& a = *w.impl->algo;
  uint64_t want = s.mem_init[0];
  bool have = false;
  float best = 0;
  for (uint64_t e = 0; e < w.ops(); ++e) {
    const uint32_t vb = uint32_t(w.a[e]);
    const float v = from_bits<float>(vb);
    if (std::isnan(v)) continue;
    if (a.is_cas) {
      // Elements in index order: a tie never replaces (lowest index wins);
      // -0 and +0 compare equal.
      if (!have || (a.is_max ? v > best : v < best)) {
        have = true;
        best = v;
        want = (uint64_t(vb) << 32) | uint32_t(e);
      }
    } else {
      const uint64_t key = (uint64_t(algo::ordered_bits(v)) << 32) | (a.is_max ? ~uint32_t(e) : uint32_t(e));
      want = a.is_max ? std::max(want, key) : std::min(want, key);
    }
  }
  const uint64_t got = h.final_mem[0];
  if (got != want)
    return {false, std::string("the ") + (a.is_max ? "max" : "min") + " word holds " + describe_winner(a, got) +
                       " but the sequential answer is " + describe_winner(a, want)};
  return {};
}

// ----------------------------------------------------------------------- locks
AlgoVerdict check_lock(const Workload& w, const AlgoSetup& s, const History& h) {
  const AlgoInfo& a = *w.impl->algo;
  const uint64_t locks = s.mem_init.size() / 2;
  for (uint64_t j = 0; j < locks; ++j)
    if (h.final_mem[j] != 0)
      return {false, "lock " + std::to_string(j) + " is still held after the kernel (word " +
                         std::to_string(h.final_mem[j]) + ")"};
  // The protected update is an add emulated by the lock: the values read in
  // the critical sections must chain like an atomic add's returned values.
  const ImplInfo* add = find_impl("native.add.u32");
  const uint64_t n = w.ops();
  std::vector<uint32_t> addr(n);
  std::vector<uint64_t> arg(n);
  for (uint64_t e = 0; e < n; ++e) {
    addr[e] = uint32_t((a.block_scope ? uint64_t(w.block_of(e)) * s.param : 0) + s.key[e]);
    arg[e] = w.a[e] & 0xffffffffu;
  }
  return check_chain("the protected data (a lost update?)", *add, addr, arg, h.old,
                     std::span<const uint64_t>(s.mem_init).subspan(locks),
                     std::span<const uint64_t>(h.final_mem).subspan(locks), {},
                     uint32_t(std::min<uint64_t>(w.spec.threads(), UINT32_MAX)));
}

}  // namespace

AlgoVerdict algo_check(const Workload& w, const AlgoSetup& s, const History& h) {
  switch (w.impl->algo->family) {
    case Family::Append: return check_append(w, s, h);
    case Family::Sum: return check_sum(w, s, h);
    case Family::Histogram: return check_histogram(w, s, h);
    case Family::ArgMax: return check_argbest(w, s, h);
    case Family::Lock: return check_lock(w, s, h);
  }
  return {false, "unknown algorithm family"};
}

}  // namespace atomstress
