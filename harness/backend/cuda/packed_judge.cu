// Judging a packed launch on the device (packed_judge.hpp).  One warp per
// instance for what is per instance (an instance has at most kPackMaxOps
// ops), grid-stride loops for what is per word; every loop is bounded by its
// counts.  Compiled once, for every entry: the entry's part is its device
// oracle (Entry::device_edges), called through its pointer.
#include "harness/backend/cuda/packed_judge.hpp"

#include <cuda_runtime.h>

#include <chrono>
#include <cstring>
#include <utility>

#include "harness/backend/cuda/resident.hpp"
#include "harness/backend/cuda/util.cuh"
#include "harness/registry/registry.hpp"
#include "harness/registry/value_kind.hpp"
#include "harness/workload/workload.hpp"

namespace atomstress::cuda {

namespace {

constexpr unsigned kThreads = 256, kWarp = 32;
// gave_up's bits (backend.hpp): the GaveUp value, | 0x80 for a block-scope atomic.
constexpr uint8_t kGaveUpMask = 0x7f, kBlockScope = 0x80;

unsigned warp_blocks(size_t instances) { return unsigned((instances * kWarp + kThreads - 1) / kThreads); }
unsigned word_blocks(uint64_t n) { return unsigned(std::min<uint64_t>((n + kThreads - 1) / kThreads, 8192)); }

// What the per-instance kernels read and write.
struct InstanceArgs {
  const PackInstance* instances;
  uint32_t n;
  const uint32_t* key;
  const uint64_t *x, *old;
  const uint32_t* retries;
  const uint8_t* gave;
  const uint64_t* init;         // per launch word: the instance's initial value (64-bit pattern)
  const uint64_t* to_shared;    // the shared-memory phi's targets, or null
  uint64_t* to;                 // the targets the checker reads
  uint32_t* addr;               // out: each op's launch word
  unsigned long long* lim;      // per word: the wrap limit (IncDec only), else null
  const uint32_t* elems;        // per instance: its words (without the padding)
  const uint8_t* bad_elems;     // per word: the checker's verdict
  uint8_t* flags;
  unsigned long long* total;
  uint32_t* max_retries;
};

__device__ void warp_reduce(unsigned long long& sum, unsigned& mx, unsigned& flags) {
  for (int d = 16; d > 0; d /= 2) {
    sum += __shfl_down_sync(0xffffffffu, sum, d);
    mx = max(mx, __shfl_down_sync(0xffffffffu, mx, d));
    flags |= __shfl_down_sync(0xffffffffu, flags, d);
  }
}

// Per instance (one warp each; a warp's lanes all return together): each
// op's launch word and target, its retries, and the host-only rules the
// resident path flags (the hang rule, the scope rule in global memory, the
// wrap rule: every returned value within the largest limit used at its word,
// or the word's initial value).  An instance's words are its own, so its
// warp alone writes its limits: __syncwarp orders them before the reads.
__global__ void instance_ops_kernel(InstanceArgs g) {
  const uint64_t warp = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const unsigned lane = threadIdx.x % kWarp;
  if (warp >= g.n) return;
  const PackInstance in = g.instances[warp];
  const uint64_t m = uint64_t(in.threads) * in.per_thread;
  unsigned long long sum = 0;
  unsigned mx = 0, flags = 0;
  for (uint64_t o = lane; o < m; o += kWarp) {
    const uint64_t j = in.op_base + o;
    const uint32_t a = uint32_t(in.mem_base + g.key[j]);
    g.addr[j] = a;
    if (in.shared && g.to_shared) g.to[j] = g.to_shared[j];
    sum += g.retries[j];
    mx = max(mx, g.retries[j]);
    const uint8_t gv = g.gave[j];
    if (gv & kGaveUpMask) flags |= kPackGaveUp;
    if ((gv & kBlockScope) && !in.shared) flags |= kPackBlockScopeGlobal;
    if (g.lim) atomicMax(&g.lim[a], (unsigned long long)g.x[j]);
  }
  if (g.lim) {
    __syncwarp();
    for (uint64_t o = lane; o < m; o += kWarp) {
      const uint64_t j = in.op_base + o;
      const uint32_t a = uint32_t(in.mem_base + g.key[j]);
      if (g.old[j] > g.lim[a] && g.old[j] != g.init[a]) flags |= kPackWrapRange;
    }
  }
  warp_reduce(sum, mx, flags);
  if (lane == 0) {
    g.flags[warp] = uint8_t(flags);
    g.total[warp] = sum;
    g.max_retries[warp] = mx;
  }
}

// Per instance: the checker's per-word verdicts over its own words (not the
// padding, which the host's judging never reads either).
__global__ void fold_verdicts_kernel(InstanceArgs g) {
  const uint64_t warp = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const unsigned lane = threadIdx.x % kWarp;
  if (warp >= g.n) return;
  const uint64_t base = g.instances[warp].mem_base, elems = g.elems[warp];
  bool bad = false;
  for (uint64_t e = lane; e < elems; e += kWarp) bad |= g.bad_elems[base + e] != 0;
  if (__any_sync(0xffffffffu, bad) && lane == 0) g.flags[warp] |= kPackUnexplained;
}

// Each word's initial and final state as the checker compares them.
__global__ void states_kernel(uint64_t words, const uint64_t* init, const void* mem, unsigned bytes, VK kind,
                              bool nan_equal, uint64_t* init_c, uint64_t* final_c) {
  for (uint64_t e = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < words; e += uint64_t(gridDim.x) * blockDim.x) {
    uint64_t f;
    switch (bytes) {  // a word is its value's low bytes
      case 2: f = static_cast<const uint16_t*>(mem)[e]; break;
      case 4: f = static_cast<const uint32_t*>(mem)[e]; break;
      default: f = static_cast<const uint64_t*>(mem)[e]; break;
    }
    init_c[e] = nan_equal ? canonical_nan_bits(kind, init[e]) : init[e];
    final_c[e] = nan_equal ? canonical_nan_bits(kind, f) : f;
  }
}

struct JudgeBuffers {
  DevBuf addr, from, to, to_shared, init, init_c, final_c, bad, lim, elems;
  // The per-instance verdicts, end to end so that one copy brings them back:
  // n totals (8 bytes), n maxima (4), n flags (1).
  DevBuf verdicts;
  PinnedBuf h_init, h_elems, h_verdicts;
};

// Where each of the n instances' verdict fields lies in a verdicts buffer
// (on the device or its copy on the host).
struct VerdictFields {
  void* base;
  size_t n;
  unsigned long long* total() const { return static_cast<unsigned long long*>(base); }
  uint32_t* max_retries() const { return reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(base) + n * 8); }
  uint8_t* flags() const { return static_cast<uint8_t*>(base) + n * 12; }
  static size_t bytes(size_t n) { return n * 13; }
};
JudgeBuffers& judge_buffers() {
  thread_local JudgeBuffers b;  // as the packed runner's own buffers (packed.cu)
  return b;
}

void mark_all(const PackItem* items, size_t n, uint8_t flags) {
  for (size_t i = 0; i < n; ++i) *items[i].device = PackDeviceVerdict{flags, 0, 0, 0};
}

// Each instance's count of words and (unless the device expanded them) its
// initial values at its words (the padding: 0, as in the runner's memory),
// onto the device; whether any instance is in shared memory.
bool stage_instances(const PackItem* items, size_t n, const PackPlan& plan, bool init_on_device, JudgeBuffers& J,
                     bool& any_shared, std::string& error) {
  const uint64_t words = plan.mem_elems;
  uint64_t* const h_init = J.h_init.as<uint64_t>();
  if (!init_on_device) std::memset(h_init, 0, words * 8);
  any_shared = false;
  for (size_t i = 0; i < n; ++i) {
    J.h_elems.as<uint32_t>()[i] = uint32_t(pack_words(items[i]));
    any_shared |= plan.instances[i].shared != 0;
    if (init_on_device) continue;
    const std::vector<uint64_t>& init = items[i].s->mem_init;
    std::memcpy(h_init + plan.instances[i].mem_base, init.data(), init.size() * 8);
  }
  if (!init_on_device) AS_CUDA_TRY(cudaMemcpyAsync(J.init.p, h_init, words * 8, cudaMemcpyHostToDevice));
  AS_CUDA_TRY(cudaMemcpyAsync(J.elems.p, J.h_elems.p, n * 4, cudaMemcpyHostToDevice));
  return true;
}

// The per-instance verdicts back to the host, into each item's device
// verdict.  An op outside the memory names no element: every instance then
// goes to the host.
bool collect_verdicts(const PackItem* items, size_t n, JudgeBuffers& J, bool outside,
                      std::chrono::steady_clock::time_point t0, std::string& error) {
  AS_CUDA_TRY(cudaMemcpyAsync(J.h_verdicts.p, J.verdicts.p, VerdictFields::bytes(n), cudaMemcpyDeviceToHost));
  const VerdictFields back{J.h_verdicts.p, n};
  AS_CUDA_TRY(cudaStreamSynchronize(nullptr));
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (size_t i = 0; i < n; ++i) {
    PackDeviceVerdict& v = *items[i].device;
    v.flags = uint8_t(back.flags()[i] | (outside ? kPackNotJudged : 0));
    v.total_retries = back.total()[i];
    v.max_retries = back.max_retries()[i];
    v.check_ms = ms / double(n);
  }
  return true;
}

}  // namespace

bool judge_pack(const PackItem* items, size_t n, const PackPlan& plan, const PackedLaunchArrays& d,
                uint32_t elem_bytes, std::string& error) {
  if (n == 0) return true;
  const auto t0 = std::chrono::steady_clock::now();
  const Entry& entry = *items[0].w->impl;
  const uint64_t ops = plan.ops, words = plan.mem_elems;
  if (!entry.device_edges || words > 0xfffffffeull || elem_bytes != vk_bytes(entry.kind)) {
    mark_all(items, n, kPackNotJudged);
    return true;
  }
  auto& J = judge_buffers();
  const bool wraps = entry.domain == Domain::IncDec;
  const std::pair<DevBuf*, size_t> device[] = {
      {&J.addr, ops * 4 + 4},   {&J.from, ops * 8 + 8},    {&J.to, ops * 8 + 8},       {&J.to_shared, ops * 8 + 8},
      {&J.init, words * 8 + 8}, {&J.init_c, words * 8 + 8}, {&J.final_c, words * 8 + 8}, {&J.bad, words + 1},
      {&J.lim, words * 8 + 8},  {&J.elems, n * 4 + 4},      {&J.verdicts, VerdictFields::bytes(n) + 8}};
  for (const auto& [buf, bytes] : device) AS_CUDA_TRY(buf->ensure(bytes));
  const std::pair<PinnedBuf*, size_t> pinned[] = {
      {&J.h_init, words * 8 + 8}, {&J.h_elems, n * 4 + 4}, {&J.h_verdicts, VerdictFields::bytes(n) + 8}};
  for (const auto& [buf, bytes] : pinned) AS_CUDA_TRY(buf->ensure(bytes));

  bool any_shared = false;
  if (!stage_instances(items, n, plan, d.init != nullptr, J, any_shared, error)) return false;
  const uint64_t* const init = d.init != nullptr ? d.init : J.init.as<uint64_t>();
  if (wraps) AS_CUDA_TRY(cudaMemsetAsync(J.lim.p, 0, words * 8));

  // Edges: the global-memory phi for every op, and where an instance is in
  // shared memory the shared one's targets beside them (picked per instance).
  const bool nan_equal = entry.sem.nan_states_equal;
  DeviceEdgeArgs edges{d.old, d.x, d.y, ops, false, nan_equal, J.from.as<uint64_t>(), J.to.as<uint64_t>()};
  if (!entry.device_edges(edges, error)) return false;
  if (any_shared) {
    edges.shared = true;
    edges.to = J.to_shared.as<uint64_t>();
    if (!entry.device_edges(edges, error)) return false;
  }
  const VerdictFields fields{J.verdicts.p, n};
  const InstanceArgs g{d.instances, uint32_t(n), d.key, d.x, d.old, d.retries, d.gave, init,
                       any_shared ? J.to_shared.as<uint64_t>() : nullptr, J.to.as<uint64_t>(), J.addr.as<uint32_t>(),
                       wraps ? J.lim.as<unsigned long long>() : nullptr, J.elems.as<uint32_t>(), J.bad.as<uint8_t>(),
                       fields.flags(), fields.total(), fields.max_retries()};
  instance_ops_kernel<<<warp_blocks(n), kThreads>>>(g);
  AS_CUDA_TRY(cudaGetLastError());
  if (words) {
    states_kernel<<<word_blocks(words), kThreads>>>(words, init, d.mem, elem_bytes, entry.kind,
                                                     nan_equal, J.init_c.as<uint64_t>(), J.final_c.as<uint64_t>());
    AS_CUDA_TRY(cudaGetLastError());
  }
  DeviceHistory h;
  h.addr = J.addr.as<uint32_t>();
  h.from = J.from.as<uint64_t>();
  h.to = J.to.as<uint64_t>();
  h.ops = ops;
  h.init = J.init_c.as<uint64_t>();
  h.final_state = J.final_c.as<uint64_t>();
  h.elems = uint32_t(words);
  h.bad_elems = J.bad.as<uint8_t>();
  bool ok = false, outside = false;
  if (!items[0].judge->explains(h, ok, outside, error)) return false;
  if (!ok && !outside) {
    fold_verdicts_kernel<<<warp_blocks(n), kThreads>>>(g);
    AS_CUDA_TRY(cudaGetLastError());
  }
  return collect_verdicts(items, n, J, outside, t0, error);
}

}  // namespace atomstress::cuda
