// Judging a packed launch on the device (packed_judge.hpp).  One block per
// instance judges it whole: its words' states, its ops' retries and
// host-only rules, and the checker's test of its edges
// (backend/pack_circuit.cuh), so a launch's judging is the entry's edges
// and one kernel, with one copy back.  A block is a warp for a small
// instance and up to 256 threads for a large one (kPackMaxOps ops, tens of
// thousands of words).  Every loop is bounded by its counts.
// Compiled once, for every entry: the entry's part is its device oracle
// (Entry::device_edges), called through its pointer.
#include "harness/backend/cuda/packed_judge.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <utility>

#include "harness/backend/cuda/resident.hpp"
#include "harness/backend/cuda/util.cuh"
#include "harness/backend/pack_circuit.cuh"
#include "harness/registry/registry.hpp"
#include "harness/registry/value_kind.hpp"
#include "harness/workload/workload.hpp"

namespace atomstress::cuda {

namespace {

constexpr unsigned kMinThreads = 32, kMaxThreads = 256;
// gave_up's bits (backend.hpp): the GaveUp value, | 0x80 for a block-scope atomic.
constexpr uint8_t kGaveUpMask = 0x7f, kBlockScope = 0x80;

// The threads a block gives each instance of the plan: a few of the widest
// instance's endpoints each (the circuit's steps are loops over them).
unsigned judge_threads(const PackPlan& plan) {
  uint64_t widest = 0;
  for (const PackInstance& in : plan.instances)
    widest = std::max<uint64_t>(widest, pack_circuit::endpoints(uint64_t(in.threads) * in.per_thread, in.words));
  unsigned threads = kMinThreads;
  while (threads < kMaxThreads && uint64_t(threads) * 16 < widest) threads *= 2;
  return threads;
}

// What the judging kernel reads and writes; per-word arrays are indexed by
// the launch's word, per-op ones by the launch's op.
struct InstanceArgs {
  const PackInstance* instances;
  uint32_t n;
  const uint32_t* key;  // instance-local words
  const uint64_t *x, *old;
  const uint32_t* retries;
  const uint8_t* gave;
  const uint64_t* init;  // per word: the initial value (64-bit pattern)
  const void* mem;       // per word: the final value, elem_bytes a word
  unsigned elem_bytes;
  VK kind;
  bool nan_equal;
  const uint64_t *from, *to, *to_shared;  // per op: the edges (to_shared: the shared-memory phi's, or null)
  uint64_t *init_c, *final_c;             // out, per word: the states the checker compares
  unsigned long long* lim;                // per word: the wrap limit (IncDec only), else null
  uint32_t *owner, *parent, *vertex;      // the circuit's scratch (pack_circuit::Scratch)
  int32_t* balance;
  uint8_t* flags;
  unsigned long long* total;
  uint32_t* max_retries;
};

// The instance's words as the checker compares them, their wrap limits
// cleared; whether every op names one of its words (else the host judges it).
__device__ bool prepare_words(const InstanceArgs& g, const PackInstance& in, unsigned t, unsigned T) {
  for (uint32_t w = t; w < in.words; w += T) {
    const uint64_t e = in.mem_base + w;
    uint64_t f;
    switch (g.elem_bytes) {  // a word is its value's low bytes
      case 2: f = static_cast<const uint16_t*>(g.mem)[e]; break;
      case 4: f = static_cast<const uint32_t*>(g.mem)[e]; break;
      default: f = static_cast<const uint64_t*>(g.mem)[e]; break;
    }
    g.init_c[e] = g.nan_equal ? canonical_nan_bits(g.kind, g.init[e]) : g.init[e];
    g.final_c[e] = g.nan_equal ? canonical_nan_bits(g.kind, f) : f;
    if (g.lim) g.lim[e] = 0;
  }
  bool outside = false;
  const uint64_t m = uint64_t(in.threads) * in.per_thread;
  for (uint64_t o = t; o < m; o += T) outside |= g.key[in.op_base + o] >= in.words;
  return !__syncthreads_or(outside);
}

// The host-only rules the resident path flags (the hang rule, the scope
// rule in global memory) and the retries; each word's wrap limit, the
// largest used at it.
__device__ unsigned op_rules(const InstanceArgs& g, const PackInstance& in, unsigned t, unsigned T,
                             unsigned long long& sum, unsigned& mx) {
  unsigned flags = 0;
  const uint64_t m = uint64_t(in.threads) * in.per_thread;
  for (uint64_t o = t; o < m; o += T) {
    const uint64_t j = in.op_base + o;
    sum += g.retries[j];
    mx = max(mx, g.retries[j]);
    const uint8_t gv = g.gave[j];
    if (gv & kGaveUpMask) flags |= kPackGaveUp;
    if ((gv & kBlockScope) && !in.shared) flags |= kPackBlockScopeGlobal;
    if (g.lim) atomicMax(&g.lim[in.mem_base + g.key[j]], (unsigned long long)g.x[j]);
  }
  return flags;
}

// The wrap rule (after op_rules' limits): every returned value within the
// largest limit used at its word, or the word's initial value.
__device__ unsigned wrap_rule(const InstanceArgs& g, const PackInstance& in, unsigned t, unsigned T) {
  unsigned flags = 0;
  const uint64_t m = uint64_t(in.threads) * in.per_thread;
  for (uint64_t o = t; o < m && g.lim; o += T) {
    const uint64_t j = in.op_base + o, a = in.mem_base + g.key[j];
    if (g.old[j] > g.lim[a] && g.old[j] != g.init[a]) flags |= kPackWrapRange;
  }
  return flags;
}

// The instance's edges and its part of the circuit's scratch: the instances
// lie in launch order, so (op_base + mem_base) numbers their regions apart.
__device__ pack_circuit::Edges instance_edges(const InstanceArgs& g, const PackInstance& in) {
  const uint64_t* to = in.shared && g.to_shared ? g.to_shared : g.to;
  return pack_circuit::Edges{uint64_t(in.threads) * in.per_thread, in.words, g.key + in.op_base,
                             g.from + in.op_base, to + in.op_base, g.init_c + in.mem_base, g.final_c + in.mem_base};
}
__device__ pack_circuit::Scratch instance_scratch(const InstanceArgs& g, const PackInstance& in) {
  const uint64_t base = in.op_base + in.mem_base, ops = uint64_t(in.threads) * in.per_thread;
  const uint64_t at = pack_circuit::slots(base, 0);
  return pack_circuit::Scratch{g.owner + at, g.parent + at, g.balance + at,
                               g.vertex + pack_circuit::endpoints(base, 0),
                               uint32_t(pack_circuit::slots(ops, in.words))};
}

// Whether the instance's edges are unexplained at some word; `broken` when
// the circuit's bounds were passed (the host judges it).  Each step's
// barrier orders its writes before the next step's reads.
__device__ bool unexplained(const InstanceArgs& g, const PackInstance& in, unsigned t, unsigned T, bool& broken) {
  const pack_circuit::Edges e = instance_edges(g, in);
  const pack_circuit::Scratch s = instance_scratch(g, in);
  pack_circuit::clear(s, t, T);
  __syncthreads();
  broken = __syncthreads_or(!pack_circuit::place(e, s, t, T));
  if (broken) return false;
  broken = __syncthreads_or(!pack_circuit::join(e, s, t, T));
  if (broken) return false;
  return __syncthreads_or(pack_circuit::any_unexplained(e, s, t, T));
}

// One block per instance (its threads all take the same branches, so every
// barrier is reached by all): its verdict, its retries' total and maximum.
__global__ void judge_instances_kernel(InstanceArgs g) {
  __shared__ unsigned long long block_total;
  __shared__ unsigned block_max, block_flags;
  const unsigned t = threadIdx.x, T = blockDim.x;
  const PackInstance in = g.instances[blockIdx.x];
  if (t == 0) {
    block_total = 0;
    block_max = 0;
    block_flags = 0;
  }
  unsigned long long sum = 0;
  unsigned mx = 0, flags = 0;
  if (!prepare_words(g, in, t, T)) {  // (its barrier orders the clearing above)
    flags = kPackNotJudged;
  } else {
    flags = op_rules(g, in, t, T, sum, mx);
    __syncthreads();
    flags |= wrap_rule(g, in, t, T);
    bool broken = false;
    if (unexplained(g, in, t, T, broken)) flags |= kPackUnexplained;
    if (broken) flags |= kPackNotJudged;
  }
  atomicAdd(&block_total, sum);
  atomicMax(&block_max, mx);
  atomicOr(&block_flags, flags);
  __syncthreads();
  if (t == 0) {
    g.flags[blockIdx.x] = uint8_t(block_flags);
    g.total[blockIdx.x] = block_total;
    g.max_retries[blockIdx.x] = block_max;
  }
}

struct JudgeBuffers {
  DevBuf from, to, to_shared, init, init_c, final_c, lim, owner, parent, balance, vertex;
  // The per-instance verdicts, end to end so that one copy brings them back:
  // n totals (8 bytes), n maxima (4), n flags (1).
  DevBuf verdicts;
  PinnedBuf h_init, h_verdicts;
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

// Grow-only buffers for a launch of `ops` ops over `words` words.
bool ensure_judge_buffers(JudgeBuffers& J, uint64_t ops, uint64_t words, size_t n, std::string& error) {
  const uint64_t slots = pack_circuit::slots(ops, words);
  const std::pair<DevBuf*, size_t> device[] = {
      {&J.from, ops * 8 + 8},        {&J.to, ops * 8 + 8},          {&J.to_shared, ops * 8 + 8},
      {&J.init, words * 8 + 8},      {&J.init_c, words * 8 + 8},    {&J.final_c, words * 8 + 8},
      {&J.lim, words * 8 + 8},       {&J.owner, slots * 4 + 4},     {&J.parent, slots * 4 + 4},
      {&J.balance, slots * 4 + 4},   {&J.vertex, pack_circuit::endpoints(ops, words) * 4 + 4},
      {&J.verdicts, VerdictFields::bytes(n) + 8}};
  for (const auto& [buf, bytes] : device) AS_CUDA_TRY(buf->ensure(bytes));
  AS_CUDA_TRY(J.h_init.ensure(words * 8 + 8));
  AS_CUDA_TRY(J.h_verdicts.ensure(VerdictFields::bytes(n) + 8));
  return true;
}

// The launch words' initial values from the items' setups (the padding: 0,
// as in the runner's memory), onto the device: inputs the host expanded.
bool stage_init(const PackItem* items, size_t n, const PackPlan& plan, JudgeBuffers& J, std::string& error) {
  uint64_t* const h_init = J.h_init.as<uint64_t>();
  std::memset(h_init, 0, plan.mem_elems * 8);
  for (size_t i = 0; i < n; ++i) {
    const std::vector<uint64_t>& init = items[i].s->mem_init;
    std::memcpy(h_init + plan.instances[i].mem_base, init.data(), init.size() * 8);
  }
  AS_CUDA_TRY(cudaMemcpyAsync(J.init.p, h_init, plan.mem_elems * 8, cudaMemcpyHostToDevice));
  return true;
}

// The per-instance verdicts back to the host, into each item's device
// verdict.
// `timer`: started before the judging's first work on the device.
bool collect_verdicts(const PackItem* items, size_t n, JudgeBuffers& J, std::chrono::steady_clock::time_point t0,
                      StreamTimer& timer, std::string& error) {
  AS_CUDA_TRY(cudaMemcpyAsync(J.h_verdicts.p, J.verdicts.p, VerdictFields::bytes(n), cudaMemcpyDeviceToHost));
  const VerdictFields back{J.h_verdicts.p, n};
  AS_CUDA_TRY(timer.stop());
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (size_t i = 0; i < n; ++i) {
    PackDeviceVerdict& v = *items[i].device;
    v.flags = back.flags()[i];
    v.total_retries = back.total()[i];
    v.max_retries = back.max_retries()[i];
    v.check_ms = ms / double(n);
    v.device_ms = timer.ms / double(n);
    v.end_s = timer.end_s;
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
  if (!entry.device_edges || elem_bytes != vk_bytes(entry.kind)) {
    mark_all(items, n, kPackNotJudged);
    return true;
  }
  auto& J = judge_buffers();
  if (!ensure_judge_buffers(J, ops, words, n, error)) return false;
  if (d.init == nullptr && !stage_init(items, n, plan, J, error)) return false;
  StreamTimer timer;  // the GPU's time on the judging (not the host's staging above)
  AS_CUDA_TRY(timer.start());
  bool any_shared = false;
  for (const PackInstance& in : plan.instances) any_shared |= in.shared != 0;

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
  const InstanceArgs g{d.instances, uint32_t(n), d.key, d.x, d.old, d.retries, d.gave,
                       d.init != nullptr ? d.init : J.init.as<uint64_t>(), d.mem, elem_bytes, entry.kind, nan_equal,
                       J.from.as<uint64_t>(), J.to.as<uint64_t>(), any_shared ? J.to_shared.as<uint64_t>() : nullptr,
                       J.init_c.as<uint64_t>(), J.final_c.as<uint64_t>(),
                       entry.domain == Domain::IncDec ? J.lim.as<unsigned long long>() : nullptr,
                       J.owner.as<uint32_t>(), J.parent.as<uint32_t>(), J.vertex.as<uint32_t>(),
                       J.balance.as<int32_t>(), fields.flags(), fields.total(), fields.max_retries()};
  judge_instances_kernel<<<unsigned(n), judge_threads(plan)>>>(g);
  AS_CUDA_TRY(cudaGetLastError());
  return collect_verdicts(items, n, J, t0, timer, error);
}

}  // namespace atomstress::cuda
