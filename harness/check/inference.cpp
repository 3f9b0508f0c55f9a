#include "harness/check/inference.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <set>
#include <type_traits>

#include "harness/check/checker.hpp"
#include "harness/registry/registry.hpp"

namespace atomstress {
namespace {

// A candidate semantics: what it stores and what it returns, on bit patterns.
struct Candidate {
  std::string name;
  std::function<uint64_t(uint64_t old, uint64_t a, uint64_t b)> stores;
  bool returns_new = false;
};

template <class F>
F as_float(uint64_t bits) {
  F f;
  if constexpr (sizeof(F) == 4) {
    const uint32_t u = uint32_t(bits);
    std::memcpy(&f, &u, 4);
  } else {
    std::memcpy(&f, &bits, 8);
  }
  return f;
}
template <class F>
uint64_t bits_of(F f) {
  if constexpr (sizeof(F) == 4) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
  } else {
    uint64_t u;
    std::memcpy(&u, &f, 8);
    return u;
  }
}
template <class F>
F flush(F f) {
  return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(F(0), f) : f;
}

// The float variants of max and min, and of add.
template <class F>
void float_variants(Op op, std::vector<Candidate>& out) {
  const bool max = op == Op::Max;
  if (op == Op::Max || op == Op::Min) {
    // Each way of breaking a tie (equal values: +0 and -0 included) with
    // each way of treating a NaN: the variants libraries write.
    enum Tie { Operand, Old, PlusZeroLarger };
    enum Nan { NanWins, NanIgnored, UnorderedKeepsOperand, UnorderedKeepsOld };
    const std::pair<Tie, const char*> ties[] = {
        {Operand, "ties keep the operand"}, {Old, "ties keep the old value"}, {PlusZeroLarger, "+0 > -0"}};
    const std::pair<Nan, const char*> nans[] = {{NanWins, "a NaN wins"},
                                                {NanIgnored, "a NaN is ignored"},
                                                {UnorderedKeepsOperand, "a NaN compare keeps the operand"},
                                                {UnorderedKeepsOld, "a NaN compare keeps the old value"}};
    for (const auto& [tie, tie_name] : ties)
      for (const auto& [nan, nan_name] : nans)
        out.push_back({std::string(tie_name) + ", " + nan_name, [max, tie = tie, nan = nan](uint64_t o, uint64_t a, uint64_t) {
                         const F x = as_float<F>(o), v = as_float<F>(a);
                         if (std::isnan(x) || std::isnan(v)) {
                           switch (nan) {
                             case NanWins: return std::isnan(v) ? a : o;
                             case NanIgnored: return std::isnan(x) ? a : o;
                             case UnorderedKeepsOperand: return a;
                             case UnorderedKeepsOld: return o;
                           }
                         }
                         if (x == v) {
                           if (tie == Operand) return a;
                           if (tie == Old) return o;
                           return (std::signbit(x) == max) ? a : o;  // max: the one without the sign bit
                         }
                         return (v > x) == max ? a : o;
                       }});
    // The float's bits compared as integers, for every value (atomicMax on
    // the int view, with no sign trick): right for non-negative floats only.
    using S = std::conditional_t<sizeof(F) == 4, int32_t, int64_t>;
    using U = std::make_unsigned_t<S>;
    out.push_back({"signed integer order of the bits", [max](uint64_t o, uint64_t a, uint64_t) {
                     const S x = S(U(o)), v = S(U(a));
                     return (max ? v > x : v < x) ? a : o;
                   }});
    out.push_back({"unsigned integer order of the bits", [max](uint64_t o, uint64_t a, uint64_t) {
                     const U x = U(o), v = U(a);
                     return (max ? v > x : v < x) ? a : o;
                   }});
  }
  if (op == Op::Add) {
    out.push_back({"flushed subnormals", [](uint64_t o, uint64_t a, uint64_t) {
                     return bits_of<F>(flush<F>(flush<F>(as_float<F>(o)) + flush<F>(as_float<F>(a))));
                   }});
    out.push_back({"round to nearest, subnormals kept", [](uint64_t o, uint64_t a, uint64_t) {
                     return bits_of<F>(as_float<F>(o) + as_float<F>(a));
                   }});
  }
}

template <class T>
void int_variants(Op op, std::vector<Candidate>& out) {
  if (op == Op::Add) {
    out.push_back({"saturation", [](uint64_t o, uint64_t a, uint64_t) {
                     const T x = T(o), v = T(a);
                     T r;
                     if (__builtin_add_overflow(x, v, &r))
                       r = (std::is_signed_v<T> && v < 0) ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
                     return uint64_t(std::make_unsigned_t<T>(r));
                   }});
  }
  if (op == Op::Max || op == Op::Min) {
    const bool max = op == Op::Max;
    out.push_back({std::is_signed_v<T> ? "unsigned order" : "signed order", [max](uint64_t o, uint64_t a, uint64_t) {
                     using U = std::conditional_t<std::is_signed_v<T>, std::make_unsigned_t<T>, std::make_signed_t<T>>;
                     const U x = U(o), v = U(a);
                     return uint64_t(std::make_unsigned_t<T>(max ? (x < v ? v : x) : (v < x ? v : x)));
                   }});
  }
  if (op == Op::Inc)
    out.push_back({"wraps one step late (old > limit)", [](uint64_t o, uint64_t a, uint64_t) {
                     return uint64_t(T(o) > T(a) ? T(0) : T(T(o) + 1));
                   }});
}

bool is_nan(VK k, uint64_t bits) {
  if (k == VK::F32) return std::isnan(as_float<float>(bits));
  if (k == VK::F64) return std::isnan(as_float<double>(bits));
  return false;
}
bool same_state(VK k, uint64_t x, uint64_t y) { return x == y || (is_nan(k, x) && is_nan(k, y)); }

bool explains(const Candidate& c, VK k, const ReplayedOp& r) {
  const uint64_t st = c.stores(r.old, r.a, r.b);
  return same_state(k, st, r.stored) && same_state(k, c.returns_new ? st : r.old, r.returned);
}

// Why a spec and the code disagree on an op, in words.
std::string difference(VK k, const ReplayedOp& r, uint64_t spec_stores) {
  if (is_nan(k, r.old) || is_nan(k, r.a) || is_nan(k, r.stored) || is_nan(k, spec_stores)) return "NaN";
  if (k == VK::F32 || k == VK::F64) {
    const double s = k == VK::F32 ? as_float<float>(spec_stores) : as_float<double>(spec_stores);
    const double c = k == VK::F32 ? as_float<float>(r.stored) : as_float<double>(r.stored);
    if (s == 0 && c == 0) return "signed zero";
    const double o = k == VK::F32 ? as_float<float>(r.old) : as_float<double>(r.old);
    const double v = k == VK::F32 ? as_float<float>(r.a) : as_float<double>(r.a);
    // (Classified in the value's own type: a subnormal float is a normal double.)
    for (double x : {o, v, s, c})
      if ((k == VK::F32 ? std::fpclassify(float(x)) : std::fpclassify(x)) == FP_SUBNORMAL) return "subnormals";
  }
  if (r.returned != r.old && r.stored == spec_stores) return "the returned value";
  return "ordinary values";
}

// The other semantics an entry's code may implement: the built-in specs of
// its operation and type first, then the variants people write, then
// "returns the new value".
std::vector<Candidate> candidates_for(const Entry& e) {
  std::vector<Candidate> cands;
  for (const Entry& c : catalogue()) {
    if (c.algo || c.buggy() || c.user_code || c.kind != e.kind || c.op != e.op || !c.phi || &c == &e) continue;
    const PhiFn phi = c.phi;
    cands.push_back({c.name, [phi](uint64_t o, uint64_t a, uint64_t b) { return phi(o, a, b); }});
  }
  switch (e.kind) {
    case VK::F32: float_variants<float>(e.op, cands); break;
    case VK::F64: float_variants<double>(e.op, cands); break;
    case VK::I32: int_variants<int32_t>(e.op, cands); break;
    case VK::U32: int_variants<uint32_t>(e.op, cands); break;
    case VK::I64: int_variants<int64_t>(e.op, cands); break;
    case VK::U64: int_variants<uint64_t>(e.op, cands); break;
    default: break;
  }
  const PhiFn own = e.phi;
  cands.push_back({"returns the new value", [own](uint64_t o, uint64_t a, uint64_t b) { return own(o, a, b); }, true});
  return cands;
}

// The checker takes a plain function for phi: the candidate being tried.
thread_local const Candidate* tried = nullptr;
uint64_t tried_phi(uint64_t o, uint64_t a, uint64_t b) { return tried->stores(o, a, b); }

}  // namespace

std::vector<std::string> specs_explaining_history(const CheckInput& in) {
  const Entry& e = *in.impl;
  std::vector<std::string> names;
  if (e.algo || !e.phi) return names;
  for (const Candidate& c : candidates_for(e)) {
    if (c.returns_new) continue;  // the checker reads every returned value as the old one
    Entry as_candidate = e;
    as_candidate.phi = as_candidate.phi_shared = &tried_phi;
    CheckInput held = in;
    held.impl = &as_candidate;
    tried = &c;
    const bool explained = check_history_reference(held).ok;
    tried = nullptr;
    if (explained && std::find(names.begin(), names.end(), c.name) == names.end()) names.push_back(c.name);
  }
  return names;
}

std::vector<std::string> specs_explaining_ops(const Entry& e, const std::vector<ReplayedOp>& ops) {
  std::vector<std::string> names;
  if (ops.empty()) return names;
  for (const Candidate& c : candidates_for(e)) {
    bool all = true;
    for (const ReplayedOp& r : ops) all = all && explains(c, e.kind, r);
    if (all && std::find(names.begin(), names.end(), c.name) == names.end()) names.push_back(c.name);
  }
  return names;
}

std::string infer_semantics(const Entry& e, const std::vector<ReplayedOp>& ops) {
  if (ops.empty()) return "";
  // The first few that explain every op (built-in specs first), and how many more.
  const std::vector<std::string> names = specs_explaining_ops(e, ops);
  std::string matches;
  for (size_t i = 0; i < names.size() && i < 3; ++i) matches += (i ? "; " : "") + names[i];
  if (names.size() > 3) matches += "; and " + std::to_string(names.size() - 3) + " more";
  std::set<std::string> why;
  for (const ReplayedOp& r : ops) {
    const uint64_t st = e.phi(r.old, r.a, r.b);
    if (!same_state(e.kind, st, r.stored) || !same_state(e.kind, r.old, r.returned)) why.insert(difference(e.kind, r, st));
  }
  std::string differs;
  for (const std::string& w : why) differs += (differs.empty() ? "" : " and ") + w;
  // A user's entry names the spec it was registered against; a built-in
  // (deliberately wrong) entry's phi is the spec it should meet.
  const std::string spec = e.registered_spec ? e.registered_spec : e.buggy() ? std::string("its spec") : e.name;
  std::string out = matches.empty() ? "matches none of the specs atomstress knows for " + std::string(op_word(e.op)) + "." + vk_name(e.kind)
                                    : "matches: " + matches;
  if (!differs.empty()) out += "; differs from " + spec + " on " + differs + (why.size() == 1 ? " only" : "");
  return out;
}

}  // namespace atomstress
