// The host's part of a stressed launch (stress.cuh): how many blocks, which
// permutations, the control words and the scratchpad.
#include "harness/backend/cuda/stress.cuh"

#include <algorithm>
#include <numeric>

#include "harness/backend/cuda/util.cuh"

namespace atomstress::cuda {

namespace {

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A multiplier co-prime to n (so i -> i * m + a mod n is a permutation),
// drawn from `r`.
uint32_t coprime_to(uint32_t n, uint64_t r) {
  if (n <= 1) return 1;
  uint32_t m = uint32_t(r % n);
  if (m == 0) m = 1;
  while (std::gcd(m, n) != 1) m = m + 1 == n ? 1 : m + 1;
  return m;
}

struct StressBuffers {
  DevBuf control, scratch;
};
StressBuffers& stress_buffers() {
  thread_local StressBuffers b;  // per trial in flight (run_program.cuh)
  return b;
}

}  // namespace

bool plan_stress(const TrialSpec& spec, bool lanes_free, const void* kernel, size_t program_smem, StressPlan& plan,
                 std::string& error) {
  plan = StressPlan{};
  plan.blocks = spec.grid;
  plan.smem_bytes = program_smem;
  const Stress& st = spec.stress;
  if (st.any()) {
    cudaDeviceProp prop;
    if (!device_props(prop, error)) return false;
    StressLaunch& l = plan.launch;
    l.grid = spec.grid;
    l.seed = uint32_t(mix(spec.seed ^ 0x5157e55ull));
    if (st.bank_conflicts) {
      const size_t offset = (program_smem + 15) / 16 * 16;
      size_t most = 0;
      if (!dynamic_shared_limit(kernel, most, error)) return false;
      if (offset + kSkewScratchBytes <= most) {  // else no room: no skew
        l.skew = 1;
        l.skew_offset = uint32_t(offset);
        plan.smem_bytes = offset + kSkewScratchBytes;
      }
    }
    if (!allow_dynamic_shared(kernel, plan.smem_bytes, error)) return false;
    uint32_t extra = 0;
    if (st.blocks > 0) {
      int per_sm = 0;
      AS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, int(spec.block), plan.smem_bytes));
      const uint64_t resident = uint64_t(std::max(per_sm, 0)) * uint64_t(prop.multiProcessorCount);
      const uint64_t room = uint64_t(prop.maxGridSize[0]) - spec.grid;
      extra = uint32_t(std::min<uint64_t>({st.blocks, resident / 2, room}));
    }
    plan.blocks = spec.grid + extra;
    l.physical = plan.blocks;
    if (st.shuffle) {
      l.block_mul = coprime_to(l.physical, mix(spec.seed ^ 1));
      l.block_add = uint32_t(mix(spec.seed ^ 2) % l.physical);
      const uint32_t units = lanes_free ? spec.block : spec.block / 32;
      if (units > 1) {
        l.thread_mode = lanes_free ? kThreadsPermuted : kWarpsPermuted;
        l.thread_mul = coprime_to(units, mix(spec.seed ^ 3));
        l.thread_add = uint32_t(mix(spec.seed ^ 4) % units);
      }
    }
    if (extra > 0) {
      l.hammer_blocks = uint32_t((uint64_t(extra) * st.mem_permille + 999) / 1000);
      l.lines = std::max(1u, st.lines);
      l.stride = std::max(1u, st.stride);
      l.access = uint32_t(st.access);
    }
    l.barrier_ns = uint64_t(st.barrier_us) * 1000u;
    auto& B = stress_buffers();
    AS_CUDA_TRY(B.control.ensure(sizeof(StressControl)));
    const size_t scratch_words = size_t(l.lines - 1) * l.stride + 1;
    AS_CUDA_TRY(B.scratch.ensure(std::max<size_t>(scratch_words * 4, 4096)));
    l.control = B.control.as<StressControl>();
    l.scratch = B.scratch.as<unsigned int>();
  } else if (!allow_dynamic_shared(kernel, plan.smem_bytes, error)) {
    return false;
  }
  return true;
}

bool arm_stress(const StressPlan& plan, std::string& error) {
  if (plan.launch.control == nullptr) return true;
  AS_CUDA_TRY(cudaMemset(plan.launch.control, 0, sizeof(StressControl)));
  return true;
}

}  // namespace atomstress::cuda
