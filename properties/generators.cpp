#include "generators.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/trial/validate.hpp"
#include "harness/registry/bits.hpp"
#include "harness/workload/workload.hpp"

namespace atomstress::properties {

GenConfig default_config(BackendKind backend, std::vector<const Entry*> impls) {
  GenConfig c;
  // The cpu backend cannot run warp-intrinsic forms.
  if (backend == BackendKind::Cpu) std::erase_if(impls, [](const Entry* i) { return i->gpu_only; });
  c.impls = std::move(impls);
  c.backend = backend;
  if (backend == BackendKind::Cuda) {
    const int sms = std::max(1, cuda_sm_count());
    c.max_grid = uint32_t(4 * sms);
    c.max_ops = 1u << 18;
    c.max_stress_blocks = uint32_t(2 * sms);
  }
  // The cpu backend ignores stress: drawing it there would only clutter
  // shrunk cases (and change nothing the trial does).
  c.stress = backend == BackendKind::Cuda;
  return c;
}

namespace {
// Every pattern of the table, in its order.
std::vector<Pattern> all_patterns() {
  std::vector<Pattern> v;
  for (int p = 0; p < kNumPatterns; ++p) v.push_back(Pattern(p));
  return v;
}
}  // namespace

rc::Gen<Stress> gen_stress(uint32_t max_blocks) {
  using namespace rc;
  const uint32_t top = std::max<uint32_t>(1, std::min(max_blocks, kMaxStressBlocks));
  auto memory = gen::tuple(gen::oneOf(gen::just<uint32_t>(0), gen::element<uint32_t>(1, 2, top / 2 + 1, top),
                                      gen::inRange<uint32_t>(1, top + 1)),
                           gen::element<uint32_t>(1000, 500, 250), gen::element<uint32_t>(1, 2, 4, 16, 64),
                           gen::element<uint32_t>(1, 8, 32, 64, 1024, 4096),
                           gen::element(StressAccess::LoadLoad, StressAccess::LoadStore, StressAccess::StoreLoad,
                                        StressAccess::StoreStore));
  auto timing = gen::tuple(gen::arbitrary<bool>(), gen::element<uint32_t>(0, 10, 100, 1000), gen::arbitrary<bool>());
  auto some = gen::map(gen::tuple(memory, timing), [top](const auto& t) {
    const auto& [mem, tim] = t;
    Stress s;
    std::tie(s.blocks, s.mem_permille, s.lines, s.stride, s.access) = mem;
    s.blocks = std::min(s.blocks, top);
    std::tie(s.shuffle, s.barrier_us, s.bank_conflicts) = tim;
    normalise_stress(s);
    return s;
  });
  return gen::oneOf(gen::just(Stress{}), some);
}

rc::Gen<TrialSpec> gen_trial_spec(const GenConfig& c) {
  using namespace rc;
  const auto impls = c.impls;
  const uint64_t max_ops = c.max_ops;
  auto geometry = gen::tuple(gen::inRange<uint32_t>(1, c.max_grid + 1),
                             gen::oneOf(gen::element<uint32_t>(1, 32, 33, 64, 96, 128, 256, 1024),
                                        gen::inRange<uint32_t>(1, 1025)),
                             gen::inRange<uint32_t>(1, 9));
  auto shape = gen::tuple(gen::element(Space::Global, Space::Shared),
                          gen::elementOf(all_patterns()),
                          gen::oneOf(gen::element<uint32_t>(1, 2, 4, 32), gen::inRange<uint32_t>(1, 2048)),
                          gen::inRange<uint32_t>(1, 5));
  auto values = gen::tuple(gen::element(Dist::Small, Dist::Full),
                           gen::oneOf(gen::just<uint32_t>(0), gen::element<uint32_t>(20, 150, 500, 1000),
                                      gen::inRange<uint32_t>(0, 1001)),
                           gen::element(Init::Random, Init::Zero), gen::arbitrary<uint64_t>());
  auto stress = c.stress ? gen_stress(c.max_stress_blocks) : gen::just(Stress{});
  return gen::map(gen::tuple(gen::inRange<size_t>(0, impls.size()), geometry, shape, values, stress),
                  [impls, max_ops](const auto& t) {
                    const auto& [idx, geo, shp, val, str] = t;
                    TrialSpec s;
                    const Entry& impl = *impls[idx];
                    s.impl = impl.name;
                    std::tie(s.grid, s.block, s.ops_per_thread) = geo;
                    std::tie(s.space, s.pattern, s.k, s.zipf_s) = shp;
                    std::tie(s.dist, s.special_permille, s.init, s.seed) = val;
                    s.stress = str;
                    // Keep the trial inside its caps and its entry's rules, whatever was drawn.
                    normalise(s, impl.limits, max_ops);
                    return s;
                  });
}

rc::Gen<float> gen_float_special() {
  const auto sv = special_values(VK::F32, Domain::Float);
  std::vector<float> v;
  for (auto b : sv) v.push_back(from_bits<float>(b));
  return rc::gen::oneOf(rc::gen::elementOf(v), rc::gen::arbitrary<float>());
}
rc::Gen<double> gen_double_special() {
  const auto sv = special_values(VK::F64, Domain::Float);
  std::vector<double> v;
  for (auto b : sv) v.push_back(from_bits<double>(b));
  return rc::gen::oneOf(rc::gen::elementOf(v), rc::gen::arbitrary<double>());
}
rc::Gen<int32_t> gen_int_boundary() {
  return rc::gen::oneOf(rc::gen::element<int32_t>(0, 1, -1, std::numeric_limits<int32_t>::min(),
                                                  std::numeric_limits<int32_t>::max()),
                        rc::gen::arbitrary<int32_t>());
}
rc::Gen<uint32_t> gen_wrap_limit() {
  return rc::gen::oneOf(rc::gen::element<uint32_t>(0, 1, 2, 0xffffffffu, 0xfffffffeu), rc::gen::inRange<uint32_t>(0, 64));
}

namespace {
rc::Gen<uint16_t> gen_16_bits(VK kind) {
  const auto sv = special_values(kind, Domain::Float);
  const std::vector<uint16_t> v(sv.begin(), sv.end());
  return rc::gen::oneOf(rc::gen::elementOf(v), rc::gen::arbitrary<uint16_t>());
}
}  // namespace
rc::Gen<uint16_t> gen_f16_bits() { return gen_16_bits(VK::F16); }
rc::Gen<uint16_t> gen_bf16_bits() { return gen_16_bits(VK::BF16); }
rc::Gen<uint64_t> gen_wrap_limit64() {
  const auto sv = special_values(VK::U64, Domain::IncDec);
  return rc::gen::oneOf(rc::gen::elementOf(std::vector<uint64_t>(sv.begin(), sv.end())),
                        rc::gen::inRange<uint64_t>(0, 64), rc::gen::arbitrary<uint64_t>());
}

}  // namespace atomstress::properties
