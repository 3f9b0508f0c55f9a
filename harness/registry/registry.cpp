#include "harness/registry/registry.hpp"

#include <fnmatch.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include <deque>
#include <string>

#include "atomics_under_test/algo_catalogue.cuh"
#include "harness/registry/bits.hpp"

namespace atomstress {

unsigned vk_bytes(VK k) {
  switch (k) {
    case VK::U16: return 2;
    case VK::I32: case VK::U32: case VK::F32: return 4;
    default: return 8;
  }
}
const char* vk_name(VK k) {
  static const char* names[] = {"i32", "u32", "i64", "u64", "f32", "f64", "u16"};
  return names[static_cast<int>(k)];
}
bool vk_is_float(VK k) { return k == VK::F32 || k == VK::F64; }

uint64_t ImplInfo::canon_nan(uint64_t bits) const {
  if (kind == VK::F32 && (bits & 0x7fffffffu) > 0x7f800000u) return prim::kCanonicalNanF32;
  if (kind == VK::F64 && (bits & 0x7fffffffffffffffull) > 0x7ff0000000000000ull)
    return prim::kCanonicalNanF64;
  return bits;
}

namespace {
template <class I>
uint64_t phi_bits(uint64_t o, uint64_t a, uint64_t b) {
  using T = typename I::T;
  return to_bits<T>(I::phi(from_bits<T>(o), from_bits<T>(a), from_bits<T>(b)));
}
template <class I>
uint64_t phi_shared_bits(uint64_t o, uint64_t a, uint64_t b) {
  using T = typename I::T;
  if constexpr (requires { I::phi_shared(T{}, T{}, T{}); })
    return to_bits<T>(I::phi_shared(from_bits<T>(o), from_bits<T>(a), from_bits<T>(b)));
  else
    return phi_bits<I>(o, a, b);
}
template <class I>
constexpr bool needs_gpu_of() {
  if constexpr (requires { I::needs_gpu; }) return I::needs_gpu;
  return false;
}
template <class I>
constexpr const char* bug_of() {
  if constexpr (is_buggy_v<I>) return I::bug;
  return nullptr;
}

size_t index_of(const std::vector<ImplInfo>& v, const char* name) {
  for (const auto& i : v)
    if (std::strcmp(i.name, name) == 0) return i.index;
  return 0;
}

// What each algorithm family promises: the oracle, in words.
Semantics algo_sem(const AlgoInfo& a, const ImplInfo& atomic) {
  Semantics s{};
  s.nan = s.signed_zero = s.subnormals = s.wrap = kNA;
  s.shared_ok = false;  // the form decides where it uses shared memory
  s.nan_states_equal = atomic.sem.nan_states_equal;
  switch (a.family) {
    case Family::Append:
      s.phi = "out[0..count) is a permutation of the elements the filter keeps (no hole, no duplicate), "
              "count exact, no slot past count written; the counter's returned values explained by a sequential order";
      break;
    case Family::Sum:
      s.phi = "accumulator = init + its elements: integers exact; floats: a sequential order of the form's "
              "partial sums (checked bitwise on the atomic's returned values), within gamma_d * sum|x| of the exact "
              "sum (d: the form's longest chain of additions), and exact where every partial sum is exact";
      s.nan = "a NaN among the terms gives a NaN; +inf and -inf together give a NaN";
      s.subnormals = atomic.sem.subnormals;
      s.wrap = vk_is_float(atomic.kind) ? kNA : kIntWrap;
      break;
    case Family::Histogram: s.phi = "bin = init + number of its elements, exact (wrapping)"; break;
    case Family::ArgMax:
      s.phi = a.is_max ? "the (value, index) of the largest value" : "the (value, index) of the smallest value";
      s.nan = "NaN never wins; no winner if every value is NaN";
      s.signed_zero = a.is_cas ? "-0 == +0 (float compare): a tie" : "-0 < +0 (ordered integer key)";
      s.wrap = "ties go to the lowest index";
      break;
    case Family::Lock:
      s.phi = "no lost update: data[j] = init + sum of its elements' x, the values read in critical sections "
              "form one chain, every lock released";
      s.wrap = kIntWrap;
      s.scope = Scope::Device;
      break;
  }
  return s;
}

std::vector<ImplInfo> build() {
  std::vector<ImplInfo> v;
#define AS_INFO(I) \
  v.push_back(ImplInfo{I::name, vk_of<I::T>(), I::domain, I::sem, bug_of<I>(), &phi_bits<I>, &phi_shared_bits<I>, v.size(), needs_gpu_of<I>()});
  ATOMSTRESS_CATALOGUE(AS_INFO)
#undef AS_INFO
  // The algorithms, each paired with every atomic it fits.
  static std::deque<AlgoInfo> algos;
  static std::deque<std::string> names;
  algo::for_each_algorithm([&]<class Alg>() {
    using A = typename Alg::Atomic;
    AlgoInfo a{};
    a.family = Alg::family;
    a.form = Alg::form;
    if constexpr (requires { Alg::sum_form; }) a.sum_form = Alg::sum_form;
    if constexpr (requires { Alg::warp_agg; }) a.warp_agg = Alg::warp_agg;
    if constexpr (requires { Alg::shared; }) a.shared_bins = Alg::shared;
    if constexpr (requires { Alg::is_cas; }) {
      a.is_max = Alg::is_max;
      a.is_cas = Alg::is_cas;
    }
    if constexpr (requires { Alg::block_scope; }) a.block_scope = Alg::block_scope;
    a.atomic_index = index_of(v, A::name);
    a.mem_kind = vk_of<typename Alg::M>();
    a.algo_index = algos.size();
    algos.push_back(a);
    names.push_back(std::string(Alg::form) + "@" + A::name);
    const ImplInfo& at = v[a.atomic_index];
    VK kind = at.kind;
    Domain dom = Domain::Int;
    if (a.family == Family::Sum) dom = at.domain;
    if (a.family == Family::ArgMax) kind = VK::F32, dom = Domain::Float;
    if (a.family == Family::Lock) kind = VK::U32;
    ImplInfo info{names.back().c_str(), kind, dom, algo_sem(a, at), algo::bug_of<Alg>(), at.phi, at.phi_shared,
                  v.size(), algo::needs_gpu_of<Alg>()};
    info.algo = &algos.back();
    info.gpu_only = Alg::gpu_only;
    info.rate_only = algo::rate_only_of<Alg>();
    v.push_back(info);
  });
  return v;
}
}  // namespace

const ImplInfo& AlgoInfo::atomic() const { return catalogue()[atomic_index]; }

const std::vector<ImplInfo>& catalogue() {
  static const std::vector<ImplInfo> table = build();
  return table;
}

const ImplInfo* find_impl(std::string_view name) {
  for (const auto& i : catalogue())
    if (name == i.name) return &i;
  return nullptr;
}

std::vector<const ImplInfo*> match_impls(std::string_view pattern) {
  std::vector<const ImplInfo*> out;
  const std::string pat(pattern);
  for (const auto& i : catalogue()) {
    bool take;
    if (pat == "all") take = !i.buggy();
    else if (pat == "atomics") take = !i.buggy() && !i.algo;
    else if (pat == "algorithms") take = !i.buggy() && i.algo;
    else if (pat == "buggy") take = i.buggy();
    else if (pat == "everything") take = true;
    else take = fnmatch(pat.c_str(), i.name, 0) == 0;
    if (take) out.push_back(&i);
  }
  return out;
}

std::string format_value(VK k, uint64_t bits) {
  char buf[96];
  switch (k) {
    case VK::I32: std::snprintf(buf, sizeof buf, "%d", int32_t(uint32_t(bits))); break;
    case VK::U32: std::snprintf(buf, sizeof buf, "%u", uint32_t(bits)); break;
    case VK::U16: std::snprintf(buf, sizeof buf, "%u", unsigned(uint16_t(bits))); break;
    case VK::I64: std::snprintf(buf, sizeof buf, "%" PRId64, int64_t(bits)); break;
    case VK::U64: std::snprintf(buf, sizeof buf, "%" PRIu64, bits); break;
    case VK::F32: {
      const float f = from_bits<float>(bits);
      std::snprintf(buf, sizeof buf, "%.9g (0x%08x)", double(f), uint32_t(bits));
      break;
    }
    case VK::F64: {
      const double d = from_bits<double>(bits);
      std::snprintf(buf, sizeof buf, "%.17g (0x%016" PRIx64 ")", d, bits);
      break;
    }
  }
  return buf;
}

std::string describe_spec(const ImplInfo& i) {
  std::string s;
  s += std::string("  phi:         ") + i.sem.phi + "\n";
  if (std::strcmp(i.sem.nan, kNA) != 0) s += std::string("  NaN:         ") + i.sem.nan + "\n";
  if (std::strcmp(i.sem.signed_zero, kNA) != 0)
    s += std::string("  signed zero: ") + i.sem.signed_zero + "\n";
  if (std::strcmp(i.sem.subnormals, kNA) != 0)
    s += std::string("  subnormals:  ") + i.sem.subnormals + "\n";
  if (std::strcmp(i.sem.wrap, kNA) != 0) s += std::string("  wrap:        ") + i.sem.wrap + "\n";
  s += std::string("  spaces:      ") + (i.sem.global_ok ? "global " : "") +
       (i.sem.shared_ok ? "shared" : "") + "\n";
  s += std::string("  scope:       ") + (i.sem.scope == Scope::Block ? "block" : "device") + "\n";
  s += std::string("  states:      ") + (i.sem.nan_states_equal ? "all NaNs equal" : "bitwise") + "\n";
  if (i.algo) {
    s += std::string("  atomic:      ") + i.algo->atomic().name + " (" + i.algo->atomic().sem.phi + ")\n";
    if (i.gpu_only) s += "  backends:    cuda only (warp intrinsics)\n";
  }
  if (i.bug) s += std::string("  BUG:         ") + i.bug + "\n";
  if (i.rate_only) s += "  reported:    its observed failure rate (the hardware may never show it)\n";
  return s;
}

}  // namespace atomstress
