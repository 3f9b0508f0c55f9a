// Expanding a pack's inputs on the device (pack_expansion.hpp).  One warp per
// instance (an instance has at most kPackMaxOps ops); every loop is bounded
// by the instance's counts.
#include "harness/backend/cuda/pack_expansion.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "harness/backend/cuda/util.cuh"
#include "harness/trial/patterns.hpp"
#include "harness/workload/workload.hpp"

namespace atomstress::cuda {

namespace {

constexpr unsigned kThreads = 256, kWarp = 32;

__global__ void expand_pack_kernel(const expansion::Params* params, const PackInstance* instances, uint32_t n,
                                   unsigned elem_bytes, PackInputs d) {
  const uint64_t warp = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const unsigned lane = threadIdx.x % kWarp;
  if (warp >= n) return;
  const expansion::Params p = params[warp];
  const PackInstance in = instances[warp];
  for (uint64_t o = lane; o < p.ops; o += kWarp) {
    const uint64_t at = in.op_base + o;
    expansion::op_inputs(p, o, d.key[at], d.x[at], d.y[at]);
    d.old[at] = 0;
    d.retries[at] = 0;
    d.gave[at] = 0;
  }
  // Its words, then its padding to the next line (plan_pack: every instance
  // takes whole lines, so the launch's memory is covered).
  const uint64_t words = p.region * (p.shared ? p.grid : 1);  // Workload::mem_elems
  const uint64_t line = kLineBytes / elem_bytes, padded = (words + line - 1) / line * line;
  for (uint64_t e = lane; e < padded; e += kWarp) {
    const uint64_t v = e < words ? expansion::init_value(p, e) : 0, at = in.mem_base + e;
    d.init[at] = v;
    switch (elem_bytes) {  // the memory word: the value's low bytes
      case 2: static_cast<uint16_t*>(d.mem)[at] = uint16_t(v); break;
      case 4: static_cast<uint32_t*>(d.mem)[at] = uint32_t(v); break;
      default: static_cast<uint64_t*>(d.mem)[at] = v; break;
    }
  }
}

__global__ void idle_slots_kernel(PackSlot* slots, uint64_t n) {
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x)
    slots[i] = PackSlot{kIdleSlot, 0, 0};
}

// One warp per placement: its thread t at slot first + (t * m + c) mod block.
__global__ void place_slots_kernel(const PackPlacement* placements, uint64_t n, PackSlot* slots) {
  const uint64_t warp = (uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const unsigned lane = threadIdx.x % kWarp;
  if (warp >= n) return;
  const PackPlacement p = placements[warp];
  for (uint32_t t = lane; t < p.block; t += kWarp)
    slots[p.first + (uint64_t(t) * p.m + p.c) % p.block] = PackSlot{p.instance, p.logical * p.block + t, p.smem_elem};
}

unsigned warp_blocks(uint64_t warps) { return unsigned((warps * kWarp + kThreads - 1) / kThreads); }

// Per host thread, as the packed runner's buffers: place_slots_on_device's
// own copy of the placements.
struct ExpansionBuffers {
  DevBuf placements;
  PinnedBuf h_placements;  // (a copy from pageable memory would wait for the stream)
};
ExpansionBuffers& expansion_buffers() {
  thread_local ExpansionBuffers b;
  return b;
}

// The launch's Zipf tables, one per distinct (k, s), end to end; `at` gives
// each one's first weight.
std::vector<double> zipf_tables(const PackItem* items, size_t n, std::map<std::pair<uint32_t, uint32_t>, size_t>& at) {
  std::vector<double> all;
  for (size_t i = 0; i < n; ++i) {
    const TrialSpec& s = items[i].w->spec;
    if (s.pattern != Pattern::Zipf) continue;
    const auto [it, fresh] = at.try_emplace({std::max<uint32_t>(s.k, 1), s.zipf_s}, all.size());
    if (!fresh) continue;
    const std::vector<double> cdf = zipf_table(s);
    all.insert(all.end(), cdf.begin(), cdf.end());
  }
  return all;
}

}  // namespace

bool place_slots(const PackPlan& plan, const PackPlacement* placements, PackSlot* slots, std::string& error) {
  const uint64_t n = plan.placements.size(), count = plan.slot_count();
  if (count) {
    idle_slots_kernel<<<unsigned(std::min<uint64_t>((count + kThreads - 1) / kThreads, 8192)), kThreads>>>(slots, count);
    AS_CUDA_TRY(cudaGetLastError());
  }
  if (n) {
    place_slots_kernel<<<warp_blocks(n), kThreads>>>(placements, n, slots);
    AS_CUDA_TRY(cudaGetLastError());
  }
  return true;
}

bool place_slots_on_device(const PackPlan& plan, PackSlot* slots, std::string& error) {
  auto& B = expansion_buffers();
  const size_t bytes = plan.placements.size() * sizeof(PackPlacement);
  AS_CUDA_TRY(B.placements.ensure(bytes + sizeof(PackPlacement)));
  AS_CUDA_TRY(B.h_placements.ensure(bytes + sizeof(PackPlacement)));
  std::memcpy(B.h_placements.p, plan.placements.data(), bytes);
  AS_CUDA_TRY(cudaMemcpyAsync(B.placements.p, B.h_placements.p, bytes, cudaMemcpyHostToDevice));
  return place_slots(plan, B.placements.as<PackPlacement>(), slots, error);
}

const uint64_t* device_special_values(VK kind, Domain domain, std::string& error) {
  static std::mutex mu;
  static std::map<std::tuple<int, VK, Domain>, void*> copies;  // kept for the process, as the values
  int dev = 0;
  if (const cudaError_t e = cudaGetDevice(&dev); e != cudaSuccess) {
    error = std::string("cuda: ") + cudaGetErrorString(e);
    return nullptr;
  }
  std::lock_guard lock(mu);
  void*& p = copies[{dev, kind, domain}];
  if (p == nullptr) {
    const auto sv = special_values(kind, domain);
    void* fresh = nullptr;
    cudaError_t e = cudaMalloc(&fresh, sv.size() * 8 + 8);
    if (e == cudaSuccess) e = cudaMemcpy(fresh, sv.data(), sv.size() * 8, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
      if (fresh) cudaFree(fresh);
      error = std::string("cuda: the special values: ") + cudaGetErrorString(e);
      return nullptr;
    }
    p = fresh;
  }
  return static_cast<const uint64_t*>(p);
}

ExpansionTables expansion_tables(const PackItem* items, size_t n) {
  ExpansionTables t;
  t.cdfs = zipf_tables(items, n, t.cdf_at);
  return t;
}

bool stage_expansion(const PackItem* items, size_t n, const ExpansionTables& tables, expansion::Params* params,
                     double* cdfs, const double* cdfs_on_device, std::string& error) {
  if (n == 0) return true;
  const Entry& entry = *items[0].w->impl;
  const uint64_t* const special = device_special_values(entry.kind, entry.domain, error);
  if (special == nullptr) return false;
  for (size_t i = 0; i < n; ++i) {
    const Workload& w = *items[i].w;
    const double* cdf = nullptr;
    if (w.spec.pattern == Pattern::Zipf)
      cdf = cdfs_on_device + tables.cdf_at.at({std::max<uint32_t>(w.spec.k, 1), w.spec.zipf_s});
    params[i] = expansion_params(w, special, cdf);
  }
  std::copy(tables.cdfs.begin(), tables.cdfs.end(), cdfs);
  return true;
}

bool expand_pack(const expansion::Params* params, const PackInstance* instances, size_t n, uint32_t elem_bytes,
                 const PackInputs& d, std::string& error) {
  if (n == 0) return true;
  expand_pack_kernel<<<warp_blocks(n), kThreads>>>(params, instances, uint32_t(n), elem_bytes, d);
  AS_CUDA_TRY(cudaGetLastError());
  return true;
}

}  // namespace atomstress::cuda
