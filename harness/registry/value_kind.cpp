#include "harness/registry/value_kind.hpp"

#include <fmt/format.h>

#include <cinttypes>
#include <cstdio>

#include "harness/prim/half_ops.cuh"
#include "harness/registry/bits.hpp"

namespace atomstress {

unsigned vk_bytes(VK k) {
  switch (k) {
    case VK::U16: case VK::I16: case VK::F16: case VK::BF16: return 2;
    case VK::I32: case VK::U32: case VK::F32: return 4;
    default: return 8;
  }
}
const char* vk_name(VK k) {
  static const char* names[] = {"i32", "u32", "i64", "u64", "f32", "f64", "u16", "f16", "bf16", "i16"};
  return names[static_cast<int>(k)];
}
std::optional<VK> parse_vk(std::string_view s) {
  for (VK k : {VK::I32, VK::U32, VK::I64, VK::U64, VK::F32, VK::F64, VK::U16, VK::F16, VK::BF16, VK::I16})
    if (s == vk_name(k)) return k;
  return std::nullopt;
}
bool vk_is_float(VK k) { return k == VK::F32 || k == VK::F64 || k == VK::F16 || k == VK::BF16; }

std::string format_value(VK k, uint64_t bits) {
  switch (k) {
    case VK::I32: return fmt::format("{}", int32_t(uint32_t(bits)));
    case VK::U32: return fmt::format("{}", uint32_t(bits));
    case VK::U16: return fmt::format("{}", uint16_t(bits));
    case VK::I16: return fmt::format("{}", int16_t(uint16_t(bits)));
    case VK::I64: return fmt::format("{}", int64_t(bits));
    case VK::U64: return fmt::format("{}", bits);
    case VK::F32: return fmt::format("{:.9g} (0x{:08x})", double(from_bits<float>(bits)), uint32_t(bits));
    case VK::F64: return fmt::format("{:.17g} (0x{:016x})", from_bits<double>(bits), bits);
    // As many digits as tell every value of the format apart (5 and 4).
    case VK::F16:
      return fmt::format("{:.5g} (0x{:04x})", prim::to_double(from_bits<__half>(bits)), uint16_t(bits));
    case VK::BF16:
      return fmt::format("{:.4g} (0x{:04x})", prim::to_double(from_bits<__nv_bfloat16>(bits)), uint16_t(bits));
  }
  return {};
}

}  // namespace atomstress
