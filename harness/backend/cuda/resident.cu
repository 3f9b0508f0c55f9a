// The resident path (resident.hpp).  Every kernel here is a grid-stride loop
// bounded by its counts.
#include "harness/backend/cuda/resident.hpp"
#include "harness/backend/device_expansion.hpp"

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "harness/backend/cuda/array_fills.hpp"
#include "harness/backend/cuda/pack_expansion.hpp"
#include "harness/backend/cuda/run_program.cuh"
#include "harness/backend/cuda/util.cuh"
#include "harness/workload/workload.hpp"

namespace atomstress::cuda {

namespace {

constexpr unsigned kThreads = 256;
unsigned blocks_for(uint64_t n) { return unsigned(std::min<uint64_t>((n + kThreads - 1) / kThreads, 8192)); }

// ------------------------------------------------------------ expansion
__global__ void expand_ops_kernel(expansion::Params p, uint32_t* addr, uint64_t* a, uint64_t* b) {
  for (uint64_t o = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; o < p.ops; o += uint64_t(gridDim.x) * blockDim.x)
    expansion::op_inputs(p, o, addr[o], a[o], b[o]);
}

__global__ void expand_init_kernel(expansion::Params p, uint64_t elems, uint64_t* init, void* pristine) {
  for (uint64_t e = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < elems; e += uint64_t(gridDim.x) * blockDim.x) {
    const uint64_t v = expansion::init_value(p, e);
    init[e] = v;
    switch (p.bytes) {  // the memory word: the value's low bytes
      case 2: static_cast<uint16_t*>(pristine)[e] = uint16_t(v); break;
      case 4: static_cast<uint32_t*>(pristine)[e] = uint32_t(v); break;
      default: static_cast<uint64_t*>(pristine)[e] = v; break;
    }
  }
}

// The device copy of the Zipf table the expansion reads, kept while it
// matches (the special values are kept per process: pack_expansion.hpp).
struct Tables {
  DevBuf cdf;
  uint32_t cdf_k = 0, cdf_s = 0;  // the Zipf table on the device (a pure function of k and s); k 0: none
};
Tables& tables() {
  thread_local Tables t;  // per trial in flight (run_program.cuh)
  return t;
}

// ------------------------------------------------------------ checking
struct Scratch {
  DevBuf from, to, init_c, final_c, max_lim, summary;
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}
struct Summary {
  unsigned long long total_retries;
  unsigned int max_retries;
  unsigned int flags;
};
constexpr unsigned kGaveUp = 1, kBlockScopeShared = 2, kWrapRange = 4;

__device__ void reduce_into(Summary* s, unsigned long long sum, unsigned mx, unsigned flags) {
  for (int d = 16; d > 0; d /= 2) {
    sum += __shfl_down_sync(0xffffffffu, sum, d);
    mx = max(mx, __shfl_down_sync(0xffffffffu, mx, d));
    flags |= __shfl_down_sync(0xffffffffu, flags, d);
  }
  if ((threadIdx.x & 31) == 0) {
    if (sum) atomicAdd(&s->total_retries, sum);
    if (mx) atomicMax(&s->max_retries, mx);
    if (flags) atomicOr(&s->flags, flags);
  }
}

// Retries, and whether the host's rules are needed: a loop that gave up (the
// hang rule), a block-scope op in global memory (the scope rule decides).
__global__ void summary_kernel(uint64_t n, const uint32_t* retries, const uint8_t* gave, bool global, Summary* s) {
  unsigned long long sum = 0;
  unsigned mx = 0, flags = 0;
  // (No thread returns early: the warp's shuffles below see all its lanes.)
  for (uint64_t o = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; o < n; o += uint64_t(gridDim.x) * blockDim.x) {
    sum += retries[o];
    mx = max(mx, retries[o]);
    const uint8_t g = gave[o];
    if (g & 0x7f) flags |= kGaveUp;
    if ((g & 0x80) && global) flags |= kBlockScopeShared;
  }
  reduce_into(s, sum, mx, flags);
}

// The wrap rule's two passes: each element's largest limit, then every
// returned value within it (or the initial value).
__global__ void wrap_limits_kernel(uint64_t n, const uint32_t* addr, const uint64_t* a, unsigned long long* lim) {
  for (uint64_t o = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; o < n; o += uint64_t(gridDim.x) * blockDim.x)
    atomicMax(&lim[addr[o]], (unsigned long long)a[o]);
}
__global__ void wrap_check_kernel(uint64_t n, const uint32_t* addr, const uint64_t* old, const uint64_t* init,
                                  const unsigned long long* lim, Summary* s) {
  unsigned flags = 0;
  for (uint64_t o = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; o < n; o += uint64_t(gridDim.x) * blockDim.x) {
    const uint32_t e = addr[o];
    if (old[o] > lim[e] && old[o] != init[e]) flags |= kWrapRange;
  }
  reduce_into(s, 0, 0, flags);
}

// Each element's initial and final state as the checker compares them.
__global__ void states_kernel(uint64_t elems, const uint64_t* init, const void* mem, unsigned bytes, VK kind,
                              bool nan_equal, uint64_t* init_c, uint64_t* final_c) {
  for (uint64_t e = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < elems; e += uint64_t(gridDim.x) * blockDim.x) {
    uint64_t f;
    switch (bytes) {
      case 2: f = static_cast<const uint16_t*>(mem)[e]; break;
      case 4: f = static_cast<const uint32_t*>(mem)[e]; break;
      default: f = static_cast<const uint64_t*>(mem)[e]; break;
    }
    init_c[e] = nan_equal ? canonical_nan_bits(kind, init[e]) : init[e];
    final_c[e] = nan_equal ? canonical_nan_bits(kind, f) : f;
  }
}

}  // namespace

bool expand_inputs(const Workload& w, unsigned elem_bytes, std::string& error) {
  auto& B = trial_buffers();
  B.inputs_mark = 0;  // (key, x and y are written below)
  auto& T = tables();
  const uint64_t n = w.ops(), elems = w.mem_elems();
  AS_CUDA_TRY(B.init.ensure(elems * 8 + 8));
  const uint64_t* const special = device_special_values(w.impl->kind, w.impl->domain, error);
  if (special == nullptr) return false;
  if (w.spec.pattern == Pattern::Zipf && (T.cdf_k != std::max<uint32_t>(w.spec.k, 1) || T.cdf_s != w.spec.zipf_s)) {
    const std::vector<double> cdf = zipf_table(w.spec);
    T.cdf_k = 0;  // (invalid until the copy is done)
    AS_CUDA_TRY(T.cdf.ensure(cdf.size() * 8));
    AS_CUDA_TRY(copy_to_device(T.cdf.p, cdf.data(), cdf.size() * 8));
    T.cdf_k = uint32_t(cdf.size());
    T.cdf_s = w.spec.zipf_s;
  }
  expansion::Params p = expansion_params(w, special, T.cdf.as<double>());
  if (p.bytes != elem_bytes) {
    error = "resident expansion: memory words of " + std::to_string(elem_bytes) + " bytes for values of " +
            std::to_string(p.bytes);
    return false;
  }
  if (n) {
    expand_ops_kernel<<<blocks_for(n), kThreads>>>(p, B.key.as<uint32_t>(), B.x.as<uint64_t>(), B.y.as<uint64_t>());
    AS_CUDA_TRY(cudaGetLastError());
  }
  if (elems) {
    expand_init_kernel<<<blocks_for(elems), kThreads>>>(p, elems, B.init.as<uint64_t>(), B.pristine.p);
    AS_CUDA_TRY(cudaGetLastError());
  }
  return true;
}

bool check_resident(const Workload& w, DeviceJudge& judge, DeviceVerdict& out, std::string& error) {
  const auto t0 = std::chrono::steady_clock::now();
  auto& B = trial_buffers();
  auto& S = scratch();
  const Entry& e = *w.impl;
  const uint64_t n = w.ops(), elems = w.mem_elems();
  const unsigned bytes = vk_bytes(e.kind);
  if (!e.device_edges) {
    error = std::string(e.name) + " has no device oracle";
    return false;
  }
  AS_CUDA_TRY(S.from.ensure(n * 8 + 8));
  AS_CUDA_TRY(S.to.ensure(n * 8 + 8));
  AS_CUDA_TRY(S.init_c.ensure(elems * 8 + 8));
  AS_CUDA_TRY(S.final_c.ensure(elems * 8 + 8));
  AS_CUDA_TRY(S.summary.ensure(sizeof(Summary)));
  StreamTimer timer;  // the GPU's time on the checking
  AS_CUDA_TRY(timer.start());
  const ArrayFill zeroed[] = {{S.summary.p, nullptr, sizeof(Summary), 0}};
  if (!queue_array_fills(zeroed, error)) return false;
  auto* sum = S.summary.as<Summary>();
  if (n) {
    summary_kernel<<<blocks_for(n), kThreads>>>(n, B.retries.as<uint32_t>(), B.gave.as<uint8_t>(),
                                                w.spec.space == Space::Global, sum);
    AS_CUDA_TRY(cudaGetLastError());
  }
  if (e.domain == Domain::IncDec && n) {
    AS_CUDA_TRY(S.max_lim.ensure(elems * 8 + 8));
    const ArrayFill no_limits[] = {{S.max_lim.p, nullptr, elems * 8, 0}};
    if (!queue_array_fills(no_limits, error)) return false;
    wrap_limits_kernel<<<blocks_for(n), kThreads>>>(n, B.key.as<uint32_t>(), B.x.as<uint64_t>(),
                                                    S.max_lim.as<unsigned long long>());
    AS_CUDA_TRY(cudaGetLastError());
    wrap_check_kernel<<<blocks_for(n), kThreads>>>(n, B.key.as<uint32_t>(), B.old.as<uint64_t>(),
                                                   B.init.as<uint64_t>(), S.max_lim.as<unsigned long long>(), sum);
    AS_CUDA_TRY(cudaGetLastError());
  }
  const bool nan_equal = e.sem.nan_states_equal;
  if (elems) {
    states_kernel<<<blocks_for(elems), kThreads>>>(elems, B.init.as<uint64_t>(), B.mem.p, bytes, e.kind, nan_equal,
                                                   S.init_c.as<uint64_t>(), S.final_c.as<uint64_t>());
    AS_CUDA_TRY(cudaGetLastError());
  }
  DeviceEdgeArgs args;
  args.old = B.old.as<uint64_t>();
  args.a = B.x.as<uint64_t>();
  args.b = B.y.as<uint64_t>();
  args.n = n;
  args.shared = w.spec.space == Space::Shared;
  args.nan_states_equal = nan_equal;
  args.from = S.from.as<uint64_t>();
  args.to = S.to.as<uint64_t>();
  if (!e.device_edges(args, error)) return false;

  DeviceHistory h;
  h.addr = B.key.as<uint32_t>();
  h.from = args.from;
  h.to = args.to;
  h.ops = n;
  h.init = S.init_c.as<uint64_t>();
  h.final_state = S.final_c.as<uint64_t>();
  h.elems = uint32_t(elems);
  bool explained = false;
  bool outside = false;
  if (!judge.explains(h, explained, outside, error)) return false;
  Summary s{};
  AS_CUDA_TRY(copy_to_host(&s, sum, sizeof s));
  AS_CUDA_TRY(timer.stop());
  out.device_ms = timer.ms;
  out.end_s = timer.end_s;
  out.ok = explained;
  out.needs_host = s.flags != 0;
  out.total_retries = s.total_retries;
  out.max_retries = s.max_retries;
  out.check_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return true;
}

bool copy_inputs_back(Workload& w, std::string& error) {
  auto& B = trial_buffers();
  w.addr.resize(w.ops());
  w.a.resize(w.ops());
  w.b.resize(w.ops());
  w.init.resize(w.mem_elems());
  const Transfer inputs[] = {to_host(B.key.p, w.addr), to_host(B.x.p, w.a), to_host(B.y.p, w.b),
                             to_host(B.init.p, w.init)};
  AS_CUDA_TRY(copy_all_to_host(inputs));
  w.arrays_elsewhere = false;
  return true;
}

bool copy_back_resident(Workload& w, History& h, std::string& error) {
  auto& B = trial_buffers();
  const uint64_t n = w.ops(), elems = w.mem_elems();
  const unsigned bytes = vk_bytes(w.impl->kind);
  if (!copy_inputs_back(w, error)) return false;
  h.old.resize(n);
  h.retries.resize(n);
  h.gave_up.resize(n);
  h.cycles.clear();
  std::vector<unsigned char> mem(elems * bytes);
  const Transfer history[] = {to_host(B.old.p, h.old), to_host(B.retries.p, h.retries),
                              to_host(B.gave.p, h.gave_up), to_host(B.mem.p, mem)};
  AS_CUDA_TRY(copy_all_to_host(history));
  h.final_mem.assign(elems, 0);
  for (uint64_t i = 0; i < elems; ++i) std::memcpy(&h.final_mem[i], mem.data() + i * bytes, bytes);  // little-endian
  h.home = HistoryHome::Host;
  return true;
}

}  // namespace atomstress::cuda

namespace atomstress {

bool expand_arrays_on_device(Workload& w, std::string& error) {
  auto& B = cuda::trial_buffers();
  const uint64_t n = w.ops(), elems = w.mem_elems();
  const unsigned bytes = w.impl->limits.value_bytes;  // as the expansion draws them
  AS_CUDA_TRY(B.key.ensure(n * 4 + 4));
  AS_CUDA_TRY(B.x.ensure(n * 8 + 8));
  AS_CUDA_TRY(B.y.ensure(n * 8 + 8));
  AS_CUDA_TRY(B.pristine.ensure(elems * 8 + 16));  // (written `bytes` wide; 8 covers any width)
  if (!cuda::expand_inputs(w, bytes, error) || !cuda::copy_inputs_back(w, error)) return false;
  w.device_inputs = cuda::mark_inputs(B);
  return true;
}

}  // namespace atomstress

namespace atomstress::cuda {

bool device_oracle_agrees(const Entry& e, std::string& why) {
  static std::mutex mu;
  static std::map<const Entry*, std::string> decided;  // "" when it agrees
  std::lock_guard<std::mutex> lock(mu);
  if (const auto it = decided.find(&e); it != decided.end()) {
    why = it->second;
    return why.empty();
  }
  std::string& verdict = decided[&e];
  if (!e.device_edges || !e.phi) {
    verdict = std::string(e.name) + " has no device oracle";
    why = verdict;
    return false;
  }
  // Inputs: every triple of special values (b from a few), then random words.
  const auto sv = special_values(e.kind, e.domain);
  const uint64_t mask = vk_bytes(e.kind) == 8 ? ~0ull : (1ull << (8 * vk_bytes(e.kind))) - 1;
  std::vector<uint64_t> olds, as, bs;
  for (uint64_t o : sv)
    for (uint64_t a : sv)
      for (size_t j = 0; j < std::min<size_t>(sv.size(), 6); ++j) {
        olds.push_back(o);
        as.push_back(a);
        bs.push_back(sv[j]);
      }
  for (uint64_t i = 0; i < 8192; ++i) {
    const uint64_t r0 = counter_rng(0x0dac1e, 1, i), r1 = counter_rng(0x0dac1e, 2, i), r2 = counter_rng(0x0dac1e, 3, i);
    const bool small = i % 2 == 0;  // small integers too, where the interesting cases of int ops are
    olds.push_back(small ? r0 % 17 : r0 & mask);
    as.push_back(small ? r1 % 17 : r1 & mask);
    bs.push_back(small ? r2 % 4 : r2 & mask);
  }
  const uint64_t n = olds.size();
  struct Freed : DevBuf {
    ~Freed() { if (p) cudaFree(p); }
  } d_old, d_a, d_b, d_from, d_to;
  std::string error;
  auto fail = [&](const std::string& m) {
    verdict = m;
    why = m;
    return false;
  };
  if (d_old.ensure(n * 8) || d_a.ensure(n * 8) || d_b.ensure(n * 8) || d_from.ensure(n * 8) || d_to.ensure(n * 8))
    return fail("cuda: could not allocate the oracle's check");
  if (cudaMemcpy(d_old.p, olds.data(), n * 8, cudaMemcpyHostToDevice) ||
      cudaMemcpy(d_a.p, as.data(), n * 8, cudaMemcpyHostToDevice) ||
      cudaMemcpy(d_b.p, bs.data(), n * 8, cudaMemcpyHostToDevice))
    return fail("cuda: could not copy the oracle's check inputs");
  std::vector<uint64_t> to(n);
  for (bool shared : {false, true}) {
    DeviceEdgeArgs args{d_old.as<uint64_t>(), d_a.as<uint64_t>(), d_b.as<uint64_t>(), n, shared,
                        e.sem.nan_states_equal, d_from.as<uint64_t>(), d_to.as<uint64_t>()};
    if (!e.device_edges(args, error)) return fail(error);
    if (cudaMemcpy(to.data(), d_to.p, n * 8, cudaMemcpyDeviceToHost) != cudaSuccess)
      return fail("cuda: could not copy the oracle's check back");
    const PhiFn phi = e.phi_in(shared);
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t host = e.canon(phi(olds[i], as[i], bs[i]));
      if (host != to[i]) {
        char m[256];
        std::snprintf(m, sizeof m, "%s: phi(0x%llx, 0x%llx, 0x%llx)%s is 0x%llx on the host, 0x%llx on the device",
                      e.name, (unsigned long long)olds[i], (unsigned long long)as[i], (unsigned long long)bs[i],
                      shared ? " in shared memory" : "", (unsigned long long)host, (unsigned long long)to[i]);
        return fail(m);
      }
    }
  }
  return true;
}

}  // namespace atomstress::cuda

// ------------------------------------------- the backend's offer (gpu_checked.hpp)
namespace atomstress {

bool gpu_checkable(const Entry& e, uint64_t ops, const DeviceJudge& judge) {
  std::string why;
  return cuda::device_oracle_agrees(e, why) && ops <= judge.max_ops();
}

bool judge_on_device(const Workload& w, DeviceJudge& judge, DeviceVerdict& out, std::string& error) {
  return cuda::check_resident(w, judge, out, error);
}

bool copy_history_back(Workload& w, History& h, std::string& error) { return cuda::copy_back_resident(w, h, error); }

}  // namespace atomstress
