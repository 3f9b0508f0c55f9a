// Kernel entries' host parts on the CPU (issue #30): the draws cover the
// edge sizes, key shapes, specials and alignments; the oracles explain
// seeded differences in the buffer's terms; guard damage names side and
// offset; tokens of kernel entries round-trip to the same case; shrinking
// through the real pipeline reaches a minimal case; a kernel entry SKIPs on
// the cpu backend with its reason.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <map>
#include <set>

#include "fuzz/shrink_spec.hpp"
#include "harness/pipeline/isolated.hpp"
#include "harness/backend/backend.hpp"
#include "harness/cli/commands.hpp"
#include "harness/kernel/case_phase.hpp"
#include "harness/kernel/case_table.hpp"
#include "harness/kernel/draws.hpp"
#include "harness/kernel/guarded.hpp"
#include "harness/kernel/kernel_entry.hpp"
#include "harness/kernel/oracles.hpp"
#include "harness/pipeline/diagnose.hpp"
#include "harness/pipeline/run_trial.hpp"
#include "harness/registry/registry.hpp"
#include "harness/trial/token.hpp"

using namespace atomstress;
using namespace atomstress::kernel;

namespace {

TrialSpec spec_with(uint64_t seed, uint32_t grid = 3, uint32_t block = 64, uint32_t ops = 5) {
  TrialSpec s;
  s.impl = "test.kernel.host";
  s.grid = grid;
  s.block = block;
  s.ops_per_thread = ops;
  s.seed = seed;
  return s;
}

uint64_t f32(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

}  // namespace

// ------------------------------------------------------------------ draws
TEST(KernelDraws, SizesCoverEveryEdge) {
  std::set<uint64_t> sizes;
  std::set<SizeClass> classes;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    const TrialSpec s = spec_with(seed);
    sizes.insert(draw_size(s, "n"));
    classes.insert(size_class(s, "n"));
  }
  EXPECT_EQ(classes.size(), 7u);
  // 0, 1, 32±1 (warp), 64±1 (block), 192±1 (grid x block), 960±1 (all ops).
  for (uint64_t n : {0, 1, 31, 32, 33, 63, 64, 65, 191, 192, 193, 959, 960, 961}) EXPECT_TRUE(sizes.count(n)) << n;
  EXPECT_TRUE(std::any_of(sizes.begin(), sizes.end(), [](uint64_t n) { return n % 2 == 1 && n > 1 && n < 20; }));
}

TEST(KernelDraws, SameSpecSameCaseOtherNameOtherDraw) {
  const TrialSpec s = spec_with(42);
  EXPECT_EQ(draw_keys(s, "keys", 100, 16), draw_keys(s, "keys", 100, 16));
  EXPECT_NE(draw_keys(s, "keys", 100, 16), draw_keys(s, "other", 100, 16));
}

TEST(KernelDraws, SizesShrinkWithTheGeometry) {
  for (uint64_t seed = 0; seed < 200; ++seed)
    EXPECT_LE(draw_size(spec_with(seed, 1, 1, 1), "n"), 33u) << seed;  // at most the warp's 32+1
}

TEST(KernelDraws, KeyShapes) {
  TrialSpec s = spec_with(7);
  s.pattern = Pattern::Single;
  auto k = draw_keys(s, "k", 500, 64);
  EXPECT_TRUE(std::all_of(k.begin(), k.end(), [&](uint64_t x) { return x == k[0]; }));
  s.pattern = Pattern::PerLine;
  k = draw_keys(s, "k", 500, 64);
  EXPECT_TRUE(std::is_sorted(k.begin(), k.end()));
  s.pattern = Pattern::PerPage;
  k = draw_keys(s, "k", 500, 64);
  EXPECT_TRUE(std::is_sorted(k.rbegin(), k.rend()));
  s.pattern = Pattern::SameLine;  // few hot: at most 4 keys take most elements
  k = draw_keys(s, "k", 1000, 1000);
  std::map<uint64_t, int> count;
  for (uint64_t x : k) ++count[x];
  std::vector<int> c;
  for (auto& [key, n] : count) c.push_back(n);
  std::sort(c.rbegin(), c.rend());
  EXPECT_GE(c[0] + (c.size() > 1 ? c[1] : 0) + (c.size() > 2 ? c[2] : 0) + (c.size() > 3 ? c[3] : 0), 850);
  s.pattern = Pattern::Zipf;  // key 0 the hottest
  k = draw_keys(s, "k", 2000, 64);
  EXPECT_GT(std::count(k.begin(), k.end(), 0u), std::count(k.begin(), k.end(), 63u));
  s.pattern = Pattern::PerWarp;
  k = draw_keys(s, "k", 64, 1000);
  EXPECT_TRUE(std::all_of(k.begin(), k.begin() + 32, [&](uint64_t x) { return x == k[0]; }));
  for (Pattern p : {Pattern::Uniform, Pattern::Zipf, Pattern::SameLine, Pattern::PerBlock}) {
    s.pattern = p;
    for (uint64_t x : draw_keys(s, "k", 300, 5)) EXPECT_LT(x, 5u);
  }
}

TEST(KernelDraws, FloatValuesCarryEverySpecialClass) {
  TrialSpec s = spec_with(3);
  s.special_permille = 1000;
  bool nan = false, pos_zero = false, neg_zero = false, inf = false, neg_inf = false, subnormal = false;
  for (uint64_t b : draw_value_bits(s, "v", 4000, VK::F32)) {
    float f;
    const uint32_t u = uint32_t(b);
    std::memcpy(&f, &u, 4);
    nan |= std::isnan(f);
    pos_zero |= u == 0;
    neg_zero |= u == 0x80000000u;
    inf |= f == INFINITY;
    neg_inf |= f == -INFINITY;
    subnormal |= std::fpclassify(f) == FP_SUBNORMAL;
  }
  EXPECT_TRUE(nan && pos_zero && neg_zero && inf && neg_inf && subnormal);
  s.special_permille = 0;
  for (uint64_t b : draw_value_bits(s, "v", 1000, VK::F32)) {
    float f;
    const uint32_t u = uint32_t(b);
    std::memcpy(&f, &u, 4);
    EXPECT_TRUE(std::isfinite(f) && std::fabs(f) <= 8.0f);
  }
}

TEST(KernelDraws, OffsetsIncludeOddAndAligned) {
  std::set<uint32_t> offsets;
  for (uint64_t seed = 0; seed < 100; ++seed) offsets.insert(draw_offset_elems(spec_with(seed), "buf"));
  EXPECT_EQ(offsets, (std::set<uint32_t>{0, 1, 3}));
}

// An H100's shared memory: 227 KiB a block may opt into, 228 KiB an SM,
// 1 KiB of each block reserved.
constexpr SharedLimits kH100Shared{232448, 233472, 1024};

TEST(KernelDraws, SharedMemoryClassesAreReachedWithinAFewSeeds) {
  std::set<SharedClass> classes;
  for (uint64_t seed = 0; seed < 32; ++seed) classes.insert(shared_class(spec_with(seed)));
  EXPECT_EQ(classes.size(), 4u);
  // Seeds 0..7 (where the shrinker starts) add nothing, at every size class.
  for (uint64_t seed = 0; seed < 8; ++seed) EXPECT_EQ(shared_class(spec_with(seed)), SharedClass::None) << seed;
  std::map<SharedClass, int> count;  // a fuzz campaign's random seeds: each class about a quarter
  for (uint64_t seed = 0; seed < 4000; ++seed) ++count[shared_class(spec_with(seed * 0x9e3779b97f4a7c15ull))];
  for (const auto& [c, n] : count) EXPECT_GT(n, 800) << to_string(c);
}

TEST(KernelDraws, SharedBytesAreTheNeedPlusTheClassesExtraWithinTheDeviceLimit) {
  auto seed_of = [](SharedClass c) { return uint64_t(c) * 8; };
  std::string error;
  auto bytes = [&](SharedClass c, uint32_t at_least, uint32_t static_bytes, const SharedLimits& l) {
    const auto b = draw_shared_bytes(spec_with(seed_of(c)), at_least, static_bytes, l, error);
    EXPECT_TRUE(b) << error;
    return b.value_or(0);
  };
  EXPECT_EQ(bytes(SharedClass::None, 0, 0, kH100Shared), 0u);
  EXPECT_EQ(bytes(SharedClass::None, 300, 0, kH100Shared), 300u);
  EXPECT_EQ(bytes(SharedClass::Little, 300, 0, kH100Shared), 300u + kLittleShared);
  // A few blocks per SM: kFewBlocksPerSm fit (with their reserved share), one more does not.
  const uint32_t few = bytes(SharedClass::FewBlocksPerSm, 0, 0, kH100Shared);
  EXPECT_EQ(kH100Shared.per_sm / (few + kH100Shared.reserved_per_block), kFewBlocksPerSm) << few;
  EXPECT_EQ(bytes(SharedClass::FewBlocksPerSm, 100000, 0, kH100Shared), 100000u);  // the need is more already
  // Static arrays count: the dynamic part makes up the rest.
  EXPECT_EQ(bytes(SharedClass::FewBlocksPerSm, 0, 4096, kH100Shared), few - 4096);
  // The most: what a block may opt into, less room for a hammering block
  // (no shared memory of its own, its 1 KiB reserved) beside it on the SM.
  const uint32_t most = kH100Shared.per_sm - 2 * kH100Shared.reserved_per_block;
  EXPECT_EQ(bytes(SharedClass::MostOptIn, 0, 0, kH100Shared), most);
  EXPECT_EQ(bytes(SharedClass::MostOptIn, 64, 4096, kH100Shared), most - 4096);
  // A need up to the opt-in limit is honoured as it is.
  EXPECT_EQ(bytes(SharedClass::MostOptIn, kH100Shared.per_block_optin, 0, kH100Shared), kH100Shared.per_block_optin);
  // A smaller device clamps every class to its limit.
  const SharedLimits small{3000, 4096, 0};
  EXPECT_EQ(bytes(SharedClass::Little, 1000, 0, small), 2024u);
  EXPECT_EQ(bytes(SharedClass::Little, 2500, 0, small), 3000u);
  EXPECT_EQ(bytes(SharedClass::MostOptIn, 0, 0, small), 3000u);
  EXPECT_EQ(bytes(SharedClass::FewBlocksPerSm, 0, 0, small), 1536u);  // 4096/3 + 128, up to the 128-byte unit
  // A need above the limit is the property's error, not a kernel failure.
  EXPECT_FALSE(draw_shared_bytes(spec_with(0), 2900, 200, small, error));
  EXPECT_EQ(error, "the property asks for 2900 bytes of dynamic shared memory per block beside the kernel's 200 "
                   "static bytes, more than a block may have on this device (3000 bytes)");
  // The same spec, the same bytes (a token replays them).
  EXPECT_EQ(bytes(SharedClass::Little, 7, 0, kH100Shared), bytes(SharedClass::Little, 7, 0, kH100Shared));
}

TEST(KernelDraws, SharedBytesAppearInDrawnAndInTheCaseTable) {
  CaseOptions opt;
  opt.shared_limits = kH100Shared;
  KernelCase c(spec_with(3 * 8 + 5), opt);  // most-opt-in
  const size_t n = c.size("n");
  const uint32_t most = kH100Shared.per_sm - 2 * kH100Shared.reserved_per_block;
  EXPECT_EQ(c.shared_bytes("smem", 128), most);
  EXPECT_EQ(c.shared_bytes("smem", 128), most);  // drawn once
  EXPECT_EQ(c.drawn(), fmt::format("n={} smem={}", n, most));
  std::string all;
  for (const auto& line : case_table(c.record(), 4)) all += line + "\n";
  EXPECT_NE(all.find(fmt::format("smem                 {}", most)), std::string::npos) << all;
  // Class none draws the need, and says so (an explicit draw is shown at 0 too).
  KernelCase none(spec_with(2), opt);
  EXPECT_EQ(none.shared_bytes("smem"), 0u);
  EXPECT_EQ(none.drawn(), "smem=0");
  // A profile (whole sizes) times the kernel with what it needs: no extra.
  CaseOptions timing = opt;
  timing.whole_sizes = true;
  KernelCase timed(spec_with(3 * 8 + 5), timing);
  EXPECT_EQ(timed.shared_bytes("smem", 128), 128u);
  // A need above the device's limit ends the case with an error naming the draw.
  KernelCase too_much(spec_with(2), opt);
  EXPECT_THROW(too_much.shared_bytes("tiles", kH100Shared.per_block_optin + 1), CaseStopped);
  EXPECT_NE(too_much.error().find("tiles: the property asks for 232449 bytes"), std::string::npos) << too_much.error();
  EXPECT_EQ(too_much.fault(), RunFault::None);
}

// ------------------------------------------------------------- phases
namespace {
void host_stand_in(int) {}  // not a kernel: its launch fails (no GPU here; an invalid device function on one)
}  // namespace

TEST(KernelPhases, ALaunchIsNotedAroundItForThisThreadsWatcher) {
  std::vector<PhaseNote> notes;
  CaseOptions opt;
  opt.entry = "k.x";
  {
    WatchCasePhases watch([&](const PhaseNote& n) { notes.push_back(n); });
    KernelCase c(spec_with(0), opt);
    EXPECT_THROW(c.launch(Geometry{1, 1, 0}, host_stand_in, 3), CaseStopped);  // a failed launch ends the case
    EXPECT_FALSE(c.error().empty());
  }
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0], (PhaseNote{"k.x", CasePhase::Launch, 1}));
  EXPECT_EQ(notes[1], (PhaseNote{"k.x", CasePhase::HostCode, 1}));  // back in the property's host code
  note_case_phase({"k.x", CasePhase::HostCode, 2});  // the watcher's scope ended: nobody hears it
  EXPECT_EQ(notes.size(), 2u);
  EXPECT_EQ(describe(notes[0]), "in launch 1");
  EXPECT_EQ(describe(notes[1]), "in its host code after launch 1 (which had finished)");
  EXPECT_EQ(describe(PhaseNote{"k.x", CasePhase::HostCode, 0}), "in its host code before its first launch");
  for (CasePhase p : {CasePhase::HostCode, CasePhase::Launch, CasePhase::Finished})
    EXPECT_EQ(parse_case_phase(to_string(p)), p);
  EXPECT_FALSE(parse_case_phase("running"));
}

// ---------------------------------------------------------------- oracles
TEST(KernelOracles, EqualNamesIndexExpectedAndGot) {
  const std::vector<uint64_t> want{1, 2, 3, 4}, got{1, 2, 7, 4};
  const auto f = check_equal("out", VK::U32, got, want);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->index, 2);
  EXPECT_EQ(f->expected, "3");
  EXPECT_EQ(f->got, "7");
  EXPECT_NE(f->message.find("out[2] holds 7, the reference 3"), std::string::npos) << f->message;
  EXPECT_FALSE(check_equal("out", VK::U32, want, want));
  // Every NaN equals every NaN; -0 is not +0.
  EXPECT_FALSE(check_equal("f", VK::F32, std::vector<uint64_t>{0x7fc00001u}, std::vector<uint64_t>{0xffc00000u}));
  EXPECT_TRUE(check_equal("f", VK::F32, std::vector<uint64_t>{0x80000000u}, std::vector<uint64_t>{0}));
}

TEST(KernelOracles, PermutationIsOrderFreeAndNamesTheLostValue) {
  EXPECT_FALSE(check_permutation("slots", VK::U32, std::vector<uint64_t>{3, 1, 2}, std::vector<uint64_t>{1, 2, 3}));
  const auto f = check_permutation("slots", VK::U32, std::vector<uint64_t>{3, 3, 2}, std::vector<uint64_t>{1, 2, 3});
  ASSERT_TRUE(f);
  EXPECT_NE(f->message.find("1 appears 0 times, expected 1 (lost)"), std::string::npos) << f->message;
}

TEST(KernelOracles, CountsNameTheBinAndTheLostIncrements) {
  const std::vector<uint64_t> keys{0, 2, 2, 2, 1}, init{0, 0, 10};
  EXPECT_FALSE(check_counts("bins", VK::U32, std::vector<uint64_t>{1, 1, 13}, keys, init));
  const auto f = check_counts("bins", VK::U32, std::vector<uint64_t>{1, 1, 11}, keys, init);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->index, 2);
  EXPECT_NE(f->message.find("bins[2] holds 11 but 3 keys are 2 (initial 10): expected 13 (2 increments lost)"),
            std::string::npos)
      << f->message;
}

TEST(KernelOracles, SumWithinAnOrderFreeBound) {
  std::vector<uint64_t> v;
  float forward = 0, backward = 0;
  std::vector<float> xs;
  for (int i = 0; i < 1000; ++i) xs.push_back(1.0f / float(i + 1));
  for (float x : xs) forward += x, v.push_back(f32(x));
  for (auto it = xs.rbegin(); it != xs.rend(); ++it) backward += *it;
  EXPECT_FALSE(check_sum("total", VK::F32, f32(forward), 0, v));   // two orders, both within the bound
  EXPECT_FALSE(check_sum("total", VK::F32, f32(backward), 0, v));
  const auto f = check_sum("total", VK::F32, f32(forward - 1.0f), 0, v);  // one value lost
  ASSERT_TRUE(f);
  EXPECT_NE(f->message.find("total[0] holds"), std::string::npos) << f->message;
  // Specials as IEEE says in any order.
  EXPECT_FALSE(check_sum("t", VK::F32, 0x7fc00000u, 0, std::vector<uint64_t>{f32(1), f32(INFINITY), f32(-INFINITY)}));
  EXPECT_TRUE(check_sum("t", VK::F32, f32(INFINITY), 0, std::vector<uint64_t>{f32(1), f32(INFINITY), f32(-INFINITY)}));
  EXPECT_FALSE(check_sum("t", VK::F32, f32(-INFINITY), 0, std::vector<uint64_t>{f32(1), f32(-INFINITY)}));
}

TEST(KernelOracles, MapNamesTheSentinelAndDuplicates) {
  const std::vector<uint64_t> ins_k{5, 9}, ins_v{50, 90};
  const uint64_t empty = 0xffffffffu;
  EXPECT_FALSE(check_map("table", VK::U32, std::vector<uint64_t>{empty, 9, 5}, std::vector<uint64_t>{empty, 90, 50},
                         ins_k, ins_v, empty, true));
  auto f = check_map("table", VK::U32, std::vector<uint64_t>{9, 5}, std::vector<uint64_t>{empty, 50}, ins_k, ins_v,
                     empty, true);
  ASSERT_TRUE(f);
  EXPECT_NE(f->message.find("table[0]: key 9 holds value 4294967295, but it was inserted only with {90} (the empty "
                            "sentinel: a payload not yet published)"),
            std::string::npos)
      << f->message;
  f = check_map("table", VK::U32, std::vector<uint64_t>{9, 5, 9}, std::vector<uint64_t>{90, 50, 90}, ins_k, ins_v,
                empty, true);
  ASSERT_TRUE(f);
  EXPECT_NE(f->message.find("key 9 is in two slots, table[0] and table[2]"), std::string::npos) << f->message;
  f = check_map("table", VK::U32, std::vector<uint64_t>{9}, std::vector<uint64_t>{90}, ins_k, ins_v, empty, true);
  ASSERT_TRUE(f);
  EXPECT_NE(f->message.find("key 5 was inserted but is in no slot"), std::string::npos) << f->message;
}

TEST(KernelGuards, DamageNamesSideAndOffset) {
  std::vector<uint8_t> guard(kGuardBytes);
  for (size_t i = 0; i < kGuardBytes; ++i) guard[i] = canary_byte(7, i);
  EXPECT_EQ(describe_guard_damage("bins", false, guard.data(), kGuardBytes, 7), "");
  guard[0] ^= 0x55;  // the first byte past the end
  guard[3] ^= 0x55;
  EXPECT_EQ(describe_guard_damage("bins", false, guard.data(), kGuardBytes, 7),
            "wrote past the end of 'bins': 2 canary bytes changed, +0..+3 bytes after its last element");
  EXPECT_EQ(describe_guard_damage("bins", true, guard.data(), kGuardBytes, 7),
            "wrote before the start of 'bins': 2 canary bytes changed, 253..256 bytes before its first element");
}

TEST(KernelLaunch, ArgumentsBecomeTheKernelsParameterTypes) {
  // What cudaLaunchKernel receives: a pointer to each parameter, of the
  // parameter's own type (a size_t argument to an int parameter converted).
  using Params = KernelParams<const unsigned*, int, double>;
  unsigned word = 7;
  Params p(&word, size_t(5), 2.5f);
  EXPECT_EQ(*static_cast<const unsigned* const*>(p.pointers[0]), &word);
  EXPECT_EQ(*static_cast<int*>(p.pointers[1]), 5);
  EXPECT_EQ(*static_cast<double*>(p.pointers[2]), 2.5);
  EXPECT_EQ(p.pointers[3], nullptr);
  const Buffer<unsigned> buffer;  // a Buffer<T> passes as T* (and const T*)
  KernelParams<const unsigned*, unsigned*> from_buffer(buffer, buffer);
  EXPECT_EQ(*static_cast<const unsigned* const*>(from_buffer.pointers[0]), buffer.data());
  KernelParams<> none;
  EXPECT_EQ(none.pointers[0], nullptr);
}

// ----------------------------------------------- entries, tokens, shrinking
namespace {
// A test-only kernel entry whose "kernel" runs on the host: a histogram that
// loses an increment of a bin whenever two keys of the case fall in it and
// the case has at least 3 elements, and, as a race does, loses one more of a
// bin of 3 or more on every other run (the output varies between runs: the
// diagnosis's reruns tell it from a deterministic bug).  It stands in for a
// device run so that the pipeline (check, tokens, shrinking, diagnosis) is
// exercised on the CPU.
// A host-run histogram's case as drawn, counted right (sequential: one block
// of one thread, as the diagnosis replays it alone).
struct CountedCase {
  TrialSpec s;
  uint64_t n = 0, bins = 0;
  std::vector<uint64_t> keys, got;
  CountedCase(const Workload& w, const RunOptions& o) : s(w.spec) {
    if (o.policy.sequential) s.grid = s.block = 1;
    n = draw_size(s, "n");
    bins = draw_range(s, "bins");
    keys = draw_keys(s, "keys", n, bins);
    got.assign(bins, 0);
    for (uint64_t k : keys) ++got[k];
  }
};
bool host_lossy_histogram(const Workload& w, const Setup&, const RunOptions& o, History& h, std::string&) {
  CountedCase c(w, o);
  const TrialSpec& s = c.s;
  const uint64_t n = c.n, bins = c.bins;
  const std::vector<uint64_t>& keys = c.keys;
  std::vector<uint64_t>& got = c.got;
  static std::atomic<uint64_t> runs{0};
  const bool one_more = runs++ % 2 == 1;
  for (uint64_t& g : got)
    if (n >= 3 && g >= 2 && s.grid * s.block > 1) g -= (one_more && g >= 3) ? 2 : 1;  // lost only when threads race
  const auto f = check_counts("bins", VK::U32, got, keys, {});
  if (f) h.own_finding = std::make_shared<Finding>(to_finding(*f));
  if (o.policy.trace_rows) {  // what KernelCase::record() gives for a device case
    CaseRecord r;
    r.draws = {{"n", n}, {"bins", bins}};
    r.launches = {Geometry{s.grid, s.block, 0}};
    r.buffers = {{"keys", VK::U32, keys}, {"bins", VK::U32, std::vector<uint64_t>(bins, 0)}};
    r.failure = f;
    h.case_table = case_table(r, o.policy.trace_rows);
  }
  return true;
}
// A deterministic geometry bug (issue 60's power-of-two tree reduction): a
// histogram that loses one increment of bin 0 whenever the block is not a
// power of two, the same every run.  Alone (one block of one thread) it is
// right, so only the reruns across block sizes can class it.
bool host_pow2_histogram(const Workload& w, const Setup&, const RunOptions& o, History& h, std::string&) {
  CountedCase c(w, o);
  if (!std::has_single_bit(c.s.block) && c.got[0] > 0) --c.got[0];
  if (const auto f = check_counts("bins", VK::U32, c.got, c.keys, {})) h.own_finding = std::make_shared<Finding>(to_finding(*f));
  return true;
}
void register_host_kernel(const char* name, RunFn run, uint64_t order, const char* bug = nullptr) {
  EntryDraft d;
  d.name = name;
  d.family = "kernel";
  d.is_algorithm = true;
  Entry own;
  own.name = "own";
  d.implicit_atomic = own;
  d.algo.form = "kernel";
  d.order = order;
  d.entry.run_cpu = run;
  d.entry.bug = bug;
  register_entry(std::move(d));
}
const bool host_entry_registered = [] {
  register_kernel("test.kernel.real", [](KernelCase&) {}, {});
  register_host_kernel("test.kernel.host", &host_lossy_histogram, ~uint64_t(0));
  register_host_kernel("test.kernel.host_pow2", &host_pow2_histogram, ~uint64_t(0) - 1,
                       "loses an increment when the block is not a power of two");
  return true;
}();
}  // namespace

TEST(KernelEntries, SkipOnTheCpuBackendWithTheirReason) {
  const Entry* e = find_impl("test.kernel.real");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->gpu_only);
  EXPECT_EQ(cpu_skip_reason(*e), "gpu only: a CUDA kernel: kernel entries run on the cuda backend only");
  ASSERT_NE(e->family, nullptr);
  EXPECT_STREQ(e->family->name(), "kernel");
}

// A user's kernel runs outside any call scope: no loop of it reports its
// word (prim::Retry::saw), so no trial deadline of it waits for one
// (Family::queue_wait_ms, tests/test_queue_wait.cpp).
TEST(KernelEntries, NoLoopOfAKernelGoesOnPastItsWatchdog) {
  const Entry* e = find_impl("test.kernel.real");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->family->queue_wait_ms(*e, 1309), 0u);
  TrialSpec spec;
  spec.impl = e->name;
  EXPECT_EQ(trial_deadline(spec, RunOptions{}).queue_ms, 0u);
}

TEST(KernelEntries, TheKernelsKeywordSelectsTheCorrectKernelEntries) {
  std::vector<std::string> names;
  for (const Entry* e : match_impls("kernels")) names.push_back(e->name);
  EXPECT_EQ(names, (std::vector<std::string>{"test.kernel.real", "test.kernel.host"}));
}

TEST(KernelEntries, TokensRoundTripToTheSameCase) {
  TrialSpec s = spec_with(0xfeedbeef, 5, 96, 3);
  s.impl = "test.kernel.real";
  s.pattern = Pattern::Zipf;
  s.k = 17;
  s.special_permille = 250;
  s.stress.blocks = 64;
  s.stress.mem_permille = 500;
  s.stress.lines = 4;
  s.stress.stride = 32;
  const std::string token = encode_token(s, TrialKnobs{});
  std::string error;
  const auto back = decode_token(token, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(*back, s);
  EXPECT_EQ(draw_size(*back, "n"), draw_size(s, "n"));
  EXPECT_EQ(draw_keys(*back, "keys", 300, 17), draw_keys(s, "keys", 300, 17));
  EXPECT_EQ(draw_value_bits(*back, "v", 300, VK::F32), draw_value_bits(s, "v", 300, VK::F32));
}

TEST(KernelEntries, ShrinkingThroughThePipelineReachesAMinimalCase) {
  // Find a failing case of the host-run entry, then shrink it as `check` does.
  RunOptions run;
  std::optional<TrialSpec> failing;
  for (uint64_t seed = 1; seed < 200 && !failing; ++seed) {
    TrialSpec s = spec_with(seed, 4, 64, 4);
    s.pattern = Pattern::Uniform;
    s.k = 40;
    if (draw_size(s, "n") > 100 && run_trial(s, BackendKind::Cpu, run).verdict == Verdict::Fail) failing = s;
  }
  ASSERT_TRUE(failing);
  fuzz::ShrinkConfig cfg;
  cfg.backend = BackendKind::Cpu;
  cfg.reruns = 1;
  cfg.rate_runs = 2;
  const reports::ShrunkCase shrunk = fuzz::shrink_spec(*failing, Verdict::Fail, "", cfg);
  // Minimal: two threads (one alone never races), one bin, and a size of
  // the two-thread geometry's edges (3..17 odd, 32±1 for the warp's edge:
  // the size class is the seed's, see docs/kernels.md).
  EXPECT_EQ(shrunk.spec.grid * shrunk.spec.block, 2u) << describe(shrunk.spec);
  EXPECT_EQ(shrunk.spec.ops_per_thread, 1u) << describe(shrunk.spec);
  EXPECT_EQ(shrunk.spec.k, 1u) << describe(shrunk.spec);
  EXPECT_GE(draw_size(shrunk.spec, "n"), 3u) << describe(shrunk.spec);
  EXPECT_LE(draw_size(shrunk.spec, "n"), 33u) << describe(shrunk.spec);
  // A failure that needs no extra shared memory shrinks to a case without it.
  EXPECT_EQ(shared_class(shrunk.spec), SharedClass::None) << describe(shrunk.spec);
  EXPECT_EQ(run_trial(shrunk.spec, BackendKind::Cpu, run).verdict, Verdict::Fail);
  // Alone it passes: a concurrency class, told by the diagnosis replay.
  const Outcome o = run_trial(shrunk.spec, BackendKind::Cpu, run);
  const Diagnosis d = diagnose(shrunk.spec, o.verdict, o.finding, BackendKind::Cpu, run);
  EXPECT_EQ(d.cls, FailureClass::Atomicity);
  // The worked failure of docs/kernels.md.
  std::printf("from:   %s\nshrunk: %s (%llu candidates, %llu steps)\nwhy:    %s\nclass:  %s (%s)\ntoken:  %s\n",
              describe(*failing).c_str(), describe(shrunk.spec).c_str(), (unsigned long long)shrunk.candidates,
              (unsigned long long)shrunk.steps, o.why().c_str(), to_string(d.cls),
              d.trace.empty() ? "" : d.trace.front().c_str(), encode_token(shrunk.spec, run.knobs).c_str());
}

// Issue 60, item 6: a kernel failure that passes alone is not called a race
// on that ground: the reruns across block sizes and at its own geometry tell
// a deterministic geometry bug (semantics, with the rule its blocks follow)
// from a race.
TEST(KernelEntries, ADeterministicGeometryBugIsSemanticsNotARace) {
  RunOptions run;
  std::optional<TrialSpec> failing;
  for (uint64_t seed = 1; seed < 200 && !failing; ++seed) {
    TrialSpec s = spec_with(seed, 1, 3, 1);
    s.impl = "test.kernel.host_pow2";
    if (run_trial(s, BackendKind::Cpu, run).verdict == Verdict::Fail) failing = s;
  }
  ASSERT_TRUE(failing);
  const Outcome o = run_trial(*failing, BackendKind::Cpu, run);
  const Diagnosis d = diagnose(*failing, o.verdict, o.finding, BackendKind::Cpu, run);
  std::string trace;
  for (const auto& line : d.trace) trace += line + "\n";
  EXPECT_EQ(d.cls, FailureClass::Semantics) << trace;
  EXPECT_NE(trace.find("the kernel assumes a power-of-two block"), std::string::npos) << trace;
  EXPECT_NE(trace.find("deterministic, not a race"), std::string::npos) << trace;
}

// ------------------------------------------------------- repro --trace
TEST(KernelOracles, WindowsShowExpectedAndGotAroundTheFirstDifference) {
  const std::vector<uint64_t> want{1, 2, 3, 4, 5, 6}, got{1, 2, 3, 9, 5, 6};
  const auto f = check_equal("out", VK::U32, got, want);
  ASSERT_TRUE(f);
  ASSERT_EQ(f->window.size(), 5u);  // out[1] .. out[5]: two before the difference, the rest after
  EXPECT_EQ(f->window[0].at, "out[1]");
  EXPECT_EQ(f->window[2].at, "out[3]");
  EXPECT_EQ(f->window[2].expected, "4");
  EXPECT_EQ(f->window[2].got, "9");
  EXPECT_TRUE(f->window[2].differs);
  EXPECT_FALSE(f->window[1].differs);
  const auto c = check_counts("bins", VK::U32, std::vector<uint64_t>{1, 1, 11}, std::vector<uint64_t>{0, 2, 2, 2, 1},
                              std::vector<uint64_t>{0, 0, 10});
  ASSERT_TRUE(c);
  ASSERT_EQ(c->window.size(), 3u);
  EXPECT_EQ(c->window[2].expected, "13");
  EXPECT_EQ(c->window[2].got, "11");
  const auto p = check_permutation("slots", VK::U32, std::vector<uint64_t>{3, 3, 2}, std::vector<uint64_t>{1, 2, 3});
  ASSERT_TRUE(p);
  ASSERT_EQ(p->window.size(), 2u);  // the counts of 1 (lost) and 3 (duplicated)
  EXPECT_EQ(p->window[0].at, "count of 1");
  EXPECT_EQ(p->window[1].got, "2");
  // A sum has no window of its own: its one row comes from expected and got.
  const auto sum = check_sum("total", VK::F32, f32(3.0f), 0, std::vector<uint64_t>{f32(1.0f)});
  ASSERT_TRUE(sum);
  ASSERT_EQ(window_of(*sum).size(), 1u);
  EXPECT_EQ(window_of(*sum)[0].at, "total[0]");
}

TEST(KernelTrace, TheCaseTableShowsDrawsLaunchesBuffersAndTheWindow) {
  CaseRecord r;
  r.draws = {{"n", 5}, {"bins", 3}};
  r.launches = {Geometry{2, 32, 0}, Geometry{1, 64, 256}};
  r.buffers = {{"keys", VK::U32, {0, 2, 2, 2, 1}}, {"vals", VK::F32, {f32(0.5f)}}};
  r.failure = check_counts("bins", VK::U32, std::vector<uint64_t>{1, 1, 2}, std::vector<uint64_t>{0, 2, 2, 2, 1}, {});
  const std::vector<std::string> t = case_table(r, 3);
  std::string all;
  for (const auto& line : t) all += line + "\n";
  EXPECT_NE(all.find("n                    5"), std::string::npos) << all;
  EXPECT_NE(all.find("launch 2             grid 1 x block 64, 256 bytes of dynamic shared memory"), std::string::npos) << all;
  EXPECT_NE(all.find("buffer 'keys' (5 elements of u32)"), std::string::npos) << all;
  EXPECT_NE(all.find("... 2 more"), std::string::npos) << all;  // 3 of 5 rows shown
  EXPECT_NE(all.find("0.5"), std::string::npos) << all;
  EXPECT_NE(all.find("the oracle on 'bins', around the first difference:"), std::string::npos) << all;
  EXPECT_NE(all.find("bins[2]              3             2  <-"), std::string::npos) << all;
  r.failure.reset();
  EXPECT_EQ(case_table(r, 3).back(), "the oracles: every check held");
}

TEST(KernelTrace, AFailingHostCaseCarriesItsTableThroughThePipeline) {
  // The worked failure's case (docs/kernels.md): a lost increment, traced.
  std::optional<TrialSpec> failing;
  RunOptions run;
  for (uint64_t seed = 1; seed < 200 && !failing; ++seed) {
    TrialSpec s = spec_with(seed, 1, 2, 1);
    s.pattern = Pattern::Single;
    s.k = 1;
    if (draw_size(s, "n") >= 3 && run_trial(s, BackendKind::Cpu, run).verdict == Verdict::Fail) failing = s;
  }
  ASSERT_TRUE(failing);
  run.policy.trace_rows = 4;
  const Outcome o = run_trial(*failing, BackendKind::Cpu, run);
  ASSERT_EQ(o.verdict, Verdict::Fail);
  std::string all;
  for (const auto& line : o.trace_table) all += line + "\n";
  EXPECT_NE(all.find("launch 1             grid 1 x block 2"), std::string::npos) << all;
  EXPECT_NE(all.find("buffer 'keys' ("), std::string::npos) << all;
  EXPECT_NE(all.find("bins[0]"), std::string::npos) << all;
  EXPECT_NE(all.find("<-"), std::string::npos) << all;
  const size_t n = draw_size(*failing, "n");
  EXPECT_NE(all.find(fmt::format("n                    {}", n)), std::string::npos) << all;
  // The same through `repro --trace` (in this process: the test entry
  // lives in this binary, not in the worker's).
  const std::string token = encode_token(*failing, RunOptions{}.knobs);
  testing::internal::CaptureStdout();
  const int status = cli::cmd_repro({token, "--backend", "cpu", "--isolate", "off", "--runs", "1", "--trace"},
                                    "atomstress repro");
  const std::string printed = testing::internal::GetCapturedStdout();
  EXPECT_EQ(status, 1);  // it fails
  EXPECT_NE(printed.find("the case, as it ran (FAIL: bins[0] holds"), std::string::npos) << printed;
  EXPECT_NE(printed.find("buffer 'keys' ("), std::string::npos) << printed;
  EXPECT_NE(printed.find("<-"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("a table is kept for single atomics only"), std::string::npos) << printed;
  std::printf("%s", printed.c_str());
}
