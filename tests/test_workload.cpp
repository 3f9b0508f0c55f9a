// The workload generator: same spec, same bytes; every pattern keeps its
// shape; tokens round-trip and reject damage.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <random>
#include <cmath>
#include <cstdio>

#include "harness/trial/spec.hpp"
#include "harness/backend/backend.hpp"
#include "harness/backend/packed.hpp"
#include "harness/backend/run_settings.hpp"
#include "harness/trial/token.hpp"
#include "harness/registry/bits.hpp"
#include "harness/workload/draw.hpp"
#include "harness/workload/workload.hpp"

using namespace atomstress;

namespace {
TrialSpec base(const char* impl = "native.add.i32") {
  TrialSpec s;
  s.impl = impl;
  s.grid = 5;
  s.block = 33;
  s.ops_per_thread = 3;
  s.pattern = Pattern::Zipf;
  s.k = 40;
  s.dist = Dist::Full;
  s.special_permille = 100;
  s.seed = 0x1234;
  return s;
}
uint64_t fingerprint(const Workload& w) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  for (auto v : w.addr) mix(v);
  for (auto v : w.a) mix(v);
  for (auto v : w.b) mix(v);
  for (auto v : w.init) mix(v);
  return h;
}
}  // namespace

TEST(Workload, SameSpecSameBytes) {
  for (int p = 0; p < kNumPatterns; ++p) {
    for (const char* impl : {"native.add.i32", "cas.add.f64", "cas.add.u16", "native.inc.u32"}) {
      auto s = base(impl);
      s.pattern = Pattern(p);
      s.k = 4;
      std::string e1, e2;
      auto w1 = expand(s, e1), w2 = expand(s, e2);
      ASSERT_TRUE(w1 && w2) << e1;
      EXPECT_EQ(w1->addr, w2->addr);
      EXPECT_EQ(w1->a, w2->a);
      EXPECT_EQ(w1->b, w2->b);
      EXPECT_EQ(w1->init, w2->init);
      s.seed++;
      auto w3 = expand(s, e1);
      EXPECT_NE(fingerprint(*w1), fingerprint(*w3)) << "seed must matter";
    }
  }
}

// The bytes are a pure function of the spec on every machine: this value
// was computed once and must never change without a new token version.
TEST(Workload, BytesAreStableAcrossMachinesAndVersions) {
  std::string err;
  auto w = expand(base("cas.add.f32"), err);
  ASSERT_TRUE(w) << err;
  EXPECT_EQ(fingerprint(*w), 0xa51e19705aae4ef5ull);
}

// The same over every value kind and domain, both distributions, every
// pattern, with and without special values, init zero or drawn, shared and
// global: the bytes a token stands for, computed once (before the host's
// expansion loop and the exact powers of two replaced ldexp and the
// per-op divisions) and never to change without a new token version.
TEST(Workload, EveryKindsBytesAreStable) {
  const std::map<std::string, uint64_t> golden = {
      {"native.add.i32", 0xd2ffcb1527abb606ull},  {"native.add.u64", 0x05a6d33bee374becull},
      {"native.add.f32", 0x0972468e4186b0edull},  {"native.add.f64", 0x6387bc675a36ee2eull},
      {"native.add.f16", 0xf47cb580ae892668ull},  {"native.add.bf16", 0x5106c8b1863cea70ull},
      {"native.min.i64", 0x21f212b46408c77cull},  {"native.inc.u32", 0x262048964e9262b4ull},
      {"cas.inc.u64", 0x9e61fca2195128a1ull},     {"native.cas.u32", 0x2e5ec898d1796948ull},
      {"native.and.u64", 0x9925a96eb98e5c50ull},  {"cas.add.u16", 0xd0b4057f503469c4ull}};
  for (const auto& [impl, want] : golden) {
    uint64_t h = 1469598103934665603ull;
    size_t specs = 0;
    for (int p = 0; p < kNumPatterns; ++p)
      for (Dist dist : {Dist::Small, Dist::Full})
        for (uint32_t special : {0u, 250u})
          for (Init init : {Init::Zero, Init::Random})
            for (Space space : {Space::Global, Space::Shared}) {
              TrialSpec s = base(impl.c_str());
              s.pattern = Pattern(p);
              s.k = 7;
              s.dist = dist;
              s.special_permille = special;
              s.init = init;
              s.space = space;
              s.seed = 0x9e37 + specs;
              std::string err;
              const auto w = expand(s, err);
              if (!w) continue;  // a pattern or space the entry does not take
              h = (h ^ fingerprint(*w)) * 1099511628211ull;
              ++specs;
            }
    EXPECT_GT(specs, 40u) << impl;
    EXPECT_EQ(h, want) << impl;
  }
}

// The expansion scales by powers of two made from their bits (draw.hpp's
// pow2f, pow2): bit for bit ldexp's results, over every exponent the draws
// use (and more), on many mantissas and both signs.
TEST(Workload, ExactPowersOfTwoScaleAsLdexpDoes) {
  std::mt19937_64 rng(3);
  size_t compared = 0;
  for (int e = -100; e <= 100; ++e)
    for (int i = 0; i < 500; ++i, ++compared) {
      const uint64_t r = rng();
      const float mf = ((r & 1) ? -1.0f : 1.0f) * (1.0f + float((r >> 32) & 0x7fffff) * 0x1p-23f);
      const double md = ((r & 1) ? -1.0 : 1.0) * (1.0 + double(r >> 12) * 0x1p-52);
      ASSERT_EQ(prim::to_bits<float>(mf * expansion::pow2f(e)), prim::to_bits<float>(std::ldexp(mf, e))) << e;
      ASSERT_EQ(prim::to_bits<double>(md * expansion::pow2(e)), prim::to_bits<double>(std::ldexp(md, e))) << e;
    }
  // The 16-bit formats' rounding values, as ldexp made them.
  for (int i = 0; i < 200000; ++i, ++compared) {
    const uint64_t r = rng();
    for (auto [frac, span] : {std::pair{10, 6}, std::pair{7, 10}}) {
      const int e = int((r >> 8) % uint64_t(2 * span + 1)) - span;
      const double m = 1.0 + std::ldexp(double((r >> 32) & ((1ull << frac) - 1)), -frac);
      const double want = ((r & 1) ? -1.0 : 1.0) * std::ldexp(m, e);
      ASSERT_EQ(prim::to_bits<double>(expansion::rounding_value(r, frac, span)), prim::to_bits<double>(want)) << r;
    }
  }
  EXPECT_GT(compared, 300000u);
}

TEST(Workload, PatternsKeepTheirShape) {
  std::string err;
  auto s = base("native.add.u32");
  s.pattern = Pattern::PerWarp;
  auto w = expand(s, err);
  ASSERT_TRUE(w);
  for (uint64_t o = 0; o < w->ops(); ++o) {
    const uint64_t t = w->thread_of(o);
    const uint64_t warp = (t / s.block) * ((s.block + 31) / 32) + (t % s.block) / 32;
    EXPECT_EQ(w->addr[o], warp);
  }
  s.pattern = Pattern::SameLine;
  s.k = 8;
  w = expand(s, err);
  for (auto a : w->addr) EXPECT_LT(a * 4, 128u);
  s.pattern = Pattern::PerPage;
  w = expand(s, err);
  for (auto a : w->addr) EXPECT_EQ(a * 4 % 4096, 0u);
  s.pattern = Pattern::PerBlock;
  s.space = Space::Shared;
  w = expand(s, err);
  for (uint64_t o = 0; o < w->ops(); ++o) EXPECT_EQ(w->addr[o], w->block_of(o) * w->region_elems);
  // Zipf: address 0 is the most popular.
  s = base();
  s.k = 16;
  s.grid = 40;
  w = expand(s, err);
  std::vector<int> count(16);
  for (auto a : w->addr) count[a]++;
  EXPECT_EQ(std::max_element(count.begin(), count.end()) - count.begin(), 0);
}

TEST(Workload, SpecialShareIsHonoured) {
  std::string err;
  auto s = base("cas.add.f32");
  s.special_permille = 1000;
  auto w = expand(s, err);
  const auto sv = special_values(VK::F32, Domain::Float);
  for (auto a : w->a) EXPECT_NE(std::find(sv.begin(), sv.end(), a), sv.end());
  s.special_permille = 0;
  s.dist = Dist::Small;
  w = expand(s, err);
  for (auto a : w->a) {
    const float x = from_bits<float>(a);
    EXPECT_TRUE(x == std::floor(x) && std::fabs(x) <= 8) << x;
  }
}

// The 16-bit floats: special values in their own bits, small integers
// exact, ordinary values finite and normal in [2^-6, 2^7) (f16) or
// [2^-10, 2^11) (bf16), where sums round; 64-bit wrap limits for u64 inc/dec.
TEST(Workload, HalfFloatsAndWideLimitsAreDrawnInTheirOwnFormats) {
  std::string err;
  for (const char* impl : {"cas.add.f16", "native.add.bf16"}) {
    SCOPED_TRACE(impl);
    const Entry& e = *find_impl(impl);
    const uint32_t exp_bits = e.kind == VK::F16 ? 5 : 8, lo = e.kind == VK::F16 ? 6 : 10;
    const uint32_t bias = (1u << (exp_bits - 1)) - 1, frac = 15 - exp_bits;
    auto s = base(impl);
    s.special_permille = 1000;
    auto w = expand(s, err);
    const auto sv = special_values(e.kind, Domain::Float);
    EXPECT_EQ(sv.size(), 23u);
    for (auto a : w->a) EXPECT_NE(std::find(sv.begin(), sv.end(), a), sv.end());
    s.special_permille = 0;
    w = expand(s, err);
    for (auto a : w->a) {
      ASSERT_LE(a, 0xffffu);
      const uint32_t ef = uint32_t(a >> frac) & ((1u << exp_bits) - 1);
      EXPECT_GE(ef, bias - lo) << std::hex << a;
      EXPECT_LE(ef, bias + lo) << std::hex << a;
    }
    s.dist = Dist::Small;
    w = expand(s, err);
    for (auto a : w->a) {
      const double x = e.kind == VK::F16 ? prim::to_double(from_bits<__half>(a)) : prim::to_double(from_bits<__nv_bfloat16>(a));
      EXPECT_TRUE(x == std::floor(x) && std::fabs(x) <= 8) << x;
    }
  }
  auto s = base("cas.inc.u64");
  s.special_permille = 1000;
  const auto w = expand(s, err);
  EXPECT_NE(std::find(w->a.begin(), w->a.end(), ~0ull), w->a.end());
  EXPECT_NE(std::find(w->a.begin(), w->a.end(), 0x8000000000000000ull), w->a.end());
}

TEST(Workload, ImpossibleSpecsAreRefusedWithAReason) {
  std::string err;
  auto s = base();
  s.block = 1025;
  EXPECT_FALSE(expand(s, err));
  EXPECT_NE(err.find("1024"), std::string::npos);
  s = base();
  s.impl = "no.such.thing";
  EXPECT_FALSE(expand(s, err));
  EXPECT_NE(err.find("unknown implementation"), std::string::npos);
  s = base();
  s.pattern = Pattern::SameLine;
  s.k = 33;
  EXPECT_FALSE(expand(s, err));
  s = base("native.add_block.i32");
  s.pattern = Pattern::Single;
  EXPECT_FALSE(expand(s, err));
  EXPECT_NE(err.find("block scope"), std::string::npos);
}

TEST(Token, RoundTripsAndRejectsDamage) {
  const auto s = base("cas.max_nanprop.f32");
  const std::string tok = encode_token(s, TrialKnobs{});
  std::string err;
  auto back = decode_token(tok, err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(*back, s);
  EXPECT_FALSE(decode_token(tok.substr(0, tok.size() - 3), err));
  EXPECT_FALSE(decode_token(tok.substr(0, 20), err));
  EXPECT_NE(err.find("truncated"), std::string::npos) << err;
  std::string bad = tok;
  bad[bad.find(".33.")+1] = '4';
  EXPECT_FALSE(decode_token(bad, err));
  EXPECT_NE(err.find("checksum"), std::string::npos) << err;
  EXPECT_FALSE(decode_token("as2.x", err));
  EXPECT_FALSE(decode_token("", err));
}

TEST(Token, CarriesTheKnobsAndTheToolVersion) {
  const auto s = base("cas.add.f32");
  const TrialKnobs k{500, 16, 2500, 4096};
  const std::string tok = encode_token(s, k);
  EXPECT_EQ(tok.rfind("as2.", 0), 0u) << tok;
  std::string err;
  const auto r = decode_repro_token(tok, err);
  ASSERT_TRUE(r) << err;
  EXPECT_EQ(r->spec, s);
  ASSERT_TRUE(r->knobs);
  EXPECT_EQ(*r->knobs, k);
  EXPECT_EQ(r->tool_version, tool_version());
  // The run settings a token carries are RunOptions' knobs: copied through
  // the table's in-token rows, every knob arrives in its own field.
  RunOptions with_k, o;
  with_k.knobs = k;
  for (const RunSetting& setting : run_settings())
    if (setting.in_token) setting.set(o, setting.get(with_k));
  EXPECT_EQ(o.knobs, k);
  // Knobs past the command line's bounds are refused like any bad field.
  const std::string bad = encode_token(s, TrialKnobs{1001, 4, 0, 1});
  EXPECT_FALSE(decode_repro_token(bad, err));
  EXPECT_NE(err.find("out of range"), std::string::npos) << err;
}

TEST(Token, StillDecodesVersionOne) {
  // Written by 0.1.0 before tokens carried knobs: the spec alone.
  std::string err;
  const auto r = decode_repro_token("as1.native.add.i32.4.64.4.0.0.32.1.0.0.1.1234.910451f7", err);
  ASSERT_TRUE(r) << err;
  EXPECT_EQ(r->spec.impl, "native.add.i32");
  EXPECT_EQ(r->spec.grid, 4u);
  EXPECT_EQ(r->spec.block, 64u);
  EXPECT_EQ(r->spec.k, 32u);
  EXPECT_EQ(r->spec.seed, 0x1234u);
  EXPECT_FALSE(r->knobs);
  EXPECT_TRUE(r->tool_version.empty());
}

TEST(Backend, ReadsTheNvidiaKernelModuleVersion) {
  EXPECT_EQ(nvidia_module_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue Jun  3 2025"),
            "580.159.04");
  EXPECT_EQ(nvidia_module_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build"),
            "580.65.06");  // the open module names the architecture first
  EXPECT_EQ(nvidia_module_version(""), "");
}

// ------------------------------------------------------------ packing
// (harness/backend/packed.hpp; the packed launch itself is tested on the GPU)

namespace {
struct PackFixture {
  std::vector<Workload> ws;
  std::vector<Setup> ss;
  std::vector<History> hs;
  std::vector<PackItem> items;
  explicit PackFixture(const std::vector<TrialSpec>& specs) {
    ws.reserve(specs.size());
    ss.reserve(specs.size());
    hs.resize(specs.size());
    for (const auto& s : specs) {
      std::string err;
      auto w = expand(s, err);
      EXPECT_TRUE(w) << err;
      ws.push_back(std::move(*w));
      auto st = ws.back().impl->family->setup(ws.back(), err);
      EXPECT_TRUE(st) << err;
      ss.push_back(std::move(*st));
    }
    for (size_t i = 0; i < ws.size(); ++i) items.push_back(PackItem{&ws[i], &ss[i], &hs[i]});
  }
};

std::vector<TrialSpec> mixed_small_specs(const char* impl, size_t n) {
  std::vector<TrialSpec> v;
  for (size_t i = 0; i < n; ++i) {
    TrialSpec s;
    s.impl = impl;
    s.grid = 1 + uint32_t(i % 5);
    s.block = std::array<uint32_t, 6>{1, 7, 32, 33, 200, 1024}[i % 6];
    s.ops_per_thread = 1 + uint32_t(i % 3);
    s.space = i % 4 == 1 ? Space::Shared : Space::Global;
    s.pattern = Pattern(i % kNumPatterns);
    s.k = 1 + uint32_t(i % 40);
    s.seed = i;
    normalise(s, find_impl(impl)->limits, kPackMaxOps);
    std::string err;
    if (const auto w = expand(s, err); w && packable(*w)) v.push_back(s);
  }
  return v;
}
}  // namespace

// Every logical thread runs exactly once; a logical block lives in one
// physical block, with only blocks of its memory space; shared copies do
// not overlap; each instance's memory starts on its own line and no two
// overlap; ops follow one another.
TEST(Packing, EveryThreadOnceBlocksWholeMemoryApart) {
  for (const char* impl : {"native.add.i32", "cas.add.u16", "native.add.u64"}) {
    PackFixture f(mixed_small_specs(impl, 120));
    const uint32_t bytes = vk_bytes(f.ws[0].impl->kind);
    std::string err;
    const auto plan = plan_pack(f.items, bytes, 7, 48 * 1024, err);
    ASSERT_TRUE(plan) << err;
    const std::vector<PackSlot> slots = plan_slots(*plan);
    ASSERT_EQ(slots.size(), size_t(plan->blocks) * plan->block_threads);
    std::vector<std::vector<uint32_t>> seen(f.ws.size());  // physical block of each logical thread
    for (size_t i = 0; i < f.ws.size(); ++i) seen[i].assign(f.ws[i].spec.threads(), ~0u);
    std::vector<int> kind(plan->blocks, -1);
    for (size_t p = 0; p < slots.size(); ++p) {
      const PackSlot& sl = slots[p];
      if (sl.instance == kIdleSlot) continue;
      ASSERT_LT(sl.instance, f.ws.size());
      ASSERT_LT(sl.thread, f.ws[sl.instance].spec.threads());
      EXPECT_EQ(seen[sl.instance][sl.thread], ~0u) << "a logical thread placed twice";
      const uint32_t pb = uint32_t(p / plan->block_threads);
      seen[sl.instance][sl.thread] = pb;
      const int k = plan->instances[sl.instance].shared;
      if (kind[pb] == -1) kind[pb] = k;
      EXPECT_EQ(kind[pb], k) << "shared and global instances in one physical block";
    }
    uint64_t op = 0, mem = 0;
    for (size_t i = 0; i < f.ws.size(); ++i) {
      const auto& in = plan->instances[i];
      const uint32_t block = f.ws[i].spec.block;
      for (uint64_t t = 0; t < seen[i].size(); ++t) {
        ASSERT_NE(seen[i][t], ~0u) << "a logical thread never placed";
        EXPECT_EQ(seen[i][t], seen[i][t / block * block]) << "a logical block split across physical blocks";
      }
      EXPECT_EQ(in.op_base, op);
      op += f.ws[i].ops();
      EXPECT_EQ(in.mem_base * bytes % 128, 0u);
      EXPECT_GE(in.mem_base, mem);
      mem = in.mem_base + f.ss[i].mem_init.size();
    }
    EXPECT_EQ(plan->ops, op);
    EXPECT_GE(plan->mem_elems, mem);
    EXPECT_LE(uint64_t(plan->smem_elems) * bytes, 48u * 1024);
    // Shared copies in a physical block do not overlap: per physical block,
    // each logical block's [start, start + region) apart from the others.
    std::map<uint32_t, std::map<std::pair<uint32_t, uint32_t>, std::pair<uint32_t, uint32_t>>> copies;
    for (size_t p = 0; p < slots.size(); ++p) {
      const PackSlot& sl = slots[p];
      if (sl.instance == kIdleSlot || !plan->instances[sl.instance].shared) continue;
      const auto& in = plan->instances[sl.instance];
      copies[uint32_t(p / plan->block_threads)][{sl.instance, sl.thread / in.block}] = {sl.smem_elem,
                                                                                         in.region_elems};
    }
    size_t shared_blocks = 0;
    for (const auto& [pb, blocks] : copies) {
      std::vector<std::pair<uint32_t, uint32_t>> ranges;
      for (const auto& [who, range] : blocks) ranges.push_back(range);
      std::sort(ranges.begin(), ranges.end());
      for (size_t r = 1; r < ranges.size(); ++r)
        EXPECT_LE(ranges[r - 1].first + ranges[r - 1].second, ranges[r].first) << "overlapping copies in block " << pb;
      EXPECT_LE(ranges.back().first + ranges.back().second, plan->smem_elems);
      shared_blocks += blocks.size();
    }
    EXPECT_GT(shared_blocks, 10u);
    // Another seed, another layout.
    const auto other = plan_pack(f.items, bytes, 8, 48 * 1024, err);
    ASSERT_TRUE(other);
    const std::vector<PackSlot> other_slots = plan_slots(*other);
    const bool same = other_slots.size() == slots.size() &&
                      std::equal(other_slots.begin(), other_slots.end(), slots.begin(),
                                 [](const PackSlot& a, const PackSlot& b) {
                                   return a.instance == b.instance && a.thread == b.thread;
                                 });
    EXPECT_FALSE(same);
  }
}

// Instances left as shapes (their inputs made on the device, PackItem) are
// planned as the same instances expanded on the host: the words come from
// the workload where there is no setup.
TEST(Packing, ShapesArePlannedAsTheirExpandedInstances) {
  PackFixture f(mixed_small_specs("cas.add.u16", 120));
  std::vector<Workload> shapes;
  std::string err;
  for (const Workload& w : f.ws) {
    auto shape = expand_shape(w.spec, err);
    ASSERT_TRUE(shape) << err;
    shapes.push_back(std::move(*shape));
  }
  std::vector<PackItem> items;
  for (size_t i = 0; i < shapes.size(); ++i) {
    items.push_back(PackItem{&shapes[i], nullptr, &f.hs[i]});
    EXPECT_EQ(pack_words(items.back()), pack_words(f.items[i]));
  }
  const auto a = plan_pack(f.items, 2, 9, 48 * 1024, err), b = plan_pack(items, 2, 9, 48 * 1024, err);
  ASSERT_TRUE(a && b) << err;
  EXPECT_EQ(a->mem_elems, b->mem_elems);
  ASSERT_EQ(a->instances.size(), b->instances.size());
  for (size_t i = 0; i < a->instances.size(); ++i) {
    EXPECT_EQ(a->instances[i].mem_base, b->instances[i].mem_base);
    EXPECT_EQ(a->instances[i].op_base, b->instances[i].op_base);
  }
  const auto sa = plan_slots(*a), sb = plan_slots(*b);
  ASSERT_EQ(sa.size(), sb.size());
  for (size_t p = 0; p < sa.size(); ++p) {
    EXPECT_EQ(sa[p].instance, sb[p].instance);
    EXPECT_EQ(sa[p].thread, sb[p].thread);
  }
}

TEST(Packing, WhatDoesNotFitIsRefusedOrNotPacked) {
  TrialSpec s;
  s.impl = "native.add.i32";
  s.grid = 4;
  s.block = 1024;
  s.ops_per_thread = 2;  // 8192 ops: run alone
  std::string err;
  EXPECT_FALSE(packable(*expand(s, err)));
  s.ops_per_thread = 1;
  EXPECT_TRUE(packable(*expand(s, err)));
  s.impl = "sum.block@native.add.i32";  // algorithms run alone
  EXPECT_FALSE(packable(*expand(s, err)));
  // A shared-memory block larger than the physical block's shared memory.
  TrialSpec big;
  big.impl = "native.add.u64";
  big.space = Space::Shared;
  big.pattern = Pattern::PerLine;
  big.k = 64;  // 64 lines of 128 bytes = 8 KiB per block
  PackFixture f({big});
  EXPECT_FALSE(plan_pack(f.items, 8, 1, 4096, err));
  EXPECT_NE(err.find("does not fit"), std::string::npos) << err;
  EXPECT_FALSE(plan_pack({}, 8, 1, 4096, err));
}
