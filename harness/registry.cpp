#include "registry.hpp"

#include <fnmatch.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "../atomics_under_test/catalogue.cuh"
#include "values.hpp"

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

std::vector<ImplInfo> build() {
  std::vector<ImplInfo> v;
#define AS_INFO(I) \
  v.push_back(ImplInfo{I::name, vk_of<I::T>(), I::domain, I::sem, bug_of<I>(), &phi_bits<I>, &phi_shared_bits<I>, v.size(), needs_gpu_of<I>()});
  ATOMSTRESS_CATALOGUE(AS_INFO)
#undef AS_INFO
  return v;
}
}  // namespace

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
  if (i.bug) s += std::string("  BUG:         ") + i.bug + "\n";
  return s;
}

}  // namespace atomstress
