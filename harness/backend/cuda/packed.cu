// The packed runner's body (cuda/packed_program.cuh), compiled once: the
// plan, the copies in and out through pinned staging buffers, the launch and
// its bounded wait, the device's judging when asked (packed_judge.hpp).
// Buffers grow and are reused across launches.
#include <cuda_runtime.h>

#include <chrono>
#include <cstring>
#include <utility>
#include <vector>

#include "harness/backend/cuda/pack_expansion.hpp"
#include "harness/backend/cuda/packed_judge.hpp"
#include "harness/backend/cuda/packed_program.cuh"
#include "harness/backend/cuda/run_program.cuh"
#include "harness/workload/draw.hpp"

namespace atomstress::cuda {

namespace {

struct PackedBuffers {
  DevBuf slots, key, x, y, mem, old, retries, gave;
  DevBuf init;  // inputs expanded on the device: each word's initial value, 64 bits (pack_expansion.hpp)
  PinnedBuf h_key, h_x, h_y, h_mem, h_old, h_retries, h_gave, h_init;
  // What the host makes for a launch (its instances, placements, stop note
  // and expansion parameters), sent in one copy from page-locked memory: a
  // copy from pageable memory waits for the stream's work.
  Upload upload;
  // The launch's two timing events, made once per thread and reused.
  Event started, ended;
};
// The upload's sections.
enum UploadSection : size_t { kInstances, kPlacements, kRetryShared, kParams, kCdfs };
PackedBuffers& packed_buffers() {
  thread_local PackedBuffers b;  // per host thread, as trial_buffers(): run_packed_trials runs launches at once
  return b;
}

// The sizes every step of a packed launch reads.
struct PackSizes {
  uint64_t ops = 0, words = 0;  // of all instances together
  uint32_t elem_bytes = 0;
  bool expanded_on_device = false;  // the items are shapes (PackItem): their inputs are made on the device
};

// Grow-only: nothing is allocated once the buffers are large enough.
bool ensure_buffers(PackedBuffers& B, const PackPlan* plan, const PackSizes& sizes, std::string& error) {
  const auto [ops, words, elem_bytes, expanded_on_device] = sizes;
  const size_t init_words = expanded_on_device ? words : 0;
  const std::pair<DevBuf*, size_t> device[] = {
      {&B.slots, plan->slot_count() * sizeof(PackSlot) + sizeof(PackSlot)},
      {&B.key, ops * 4 + 4}, {&B.x, ops * 8 + 8}, {&B.y, ops * 8 + 8}, {&B.mem, words * elem_bytes + 16},
      {&B.old, ops * 8 + 8}, {&B.retries, ops * 4 + 4}, {&B.gave, ops + 1}, {&B.init, init_words * 8 + 8}};
  for (const auto& [buf, bytes] : device) AS_CUDA_TRY(buf->ensure(bytes));
  const std::pair<PinnedBuf*, size_t> pinned[] = {
      {&B.h_key, ops * 4 + 4}, {&B.h_x, ops * 8 + 8},       {&B.h_y, ops * 8 + 8},
      {&B.h_mem, words * elem_bytes + 16}, {&B.h_old, ops * 8 + 8}, {&B.h_retries, ops * 4 + 4}, {&B.h_gave, ops + 1},
      {&B.h_init, init_words * 8 + 8}};
  for (const auto& [buf, bytes] : pinned) AS_CUDA_TRY(buf->ensure(bytes));
  return true;
}

// The inputs, instance by instance, into the staging buffers.
void stage_inputs(PackedBuffers& B, const PackItem* items, size_t n, const PackPlan* plan, const PackSizes& sizes) {
  const uint32_t elem_bytes = sizes.elem_bytes;
  unsigned char* const hmem = B.h_mem.as<unsigned char>();
  std::memset(hmem, 0, sizes.words * elem_bytes);  // the padding between instances
  for (size_t i = 0; i < n; ++i) {
    const Workload& w = *items[i].w;
    const Setup& s = *items[i].s;
    const PackInstance& in = plan->instances[i];
    const uint64_t m = w.ops();
    const std::vector<uint32_t>& key = s.key.empty() ? w.addr : s.key;
    std::memcpy(B.h_key.as<uint32_t>() + in.op_base, key.data(), m * 4);
    std::memcpy(B.h_x.as<uint64_t>() + in.op_base, w.a.data(), m * 8);
    std::memcpy(B.h_y.as<uint64_t>() + in.op_base, w.b.data(), m * 8);
    for (size_t e = 0; e < s.mem_init.size(); ++e)  // a word is its value's low bytes (little-endian)
      std::memcpy(hmem + (in.mem_base + e) * elem_bytes, &s.mem_init[e], elem_bytes);
  }
}

PackInputs pack_inputs(PackedBuffers& B) {
  return PackInputs{B.key.as<uint32_t>(),  B.x.as<uint64_t>(),       B.y.as<uint64_t>(),  B.init.as<uint64_t>(),
                    B.mem.p,               B.old.as<uint64_t>(),     B.retries.as<uint32_t>(), B.gave.as<uint8_t>()};
}

// What the host makes for the launch, in the upload's sections and sent:
// the plan's instances and placements, the stop note cleared, and (inputs
// expanded on the device) each instance's expansion parameters and tables.
bool send_upload(PackedBuffers& B, const PackItem* items, size_t n, const PackPlan* plan, const PackSizes& sizes,
                 unsigned int* note, uint64_t stall_ms, std::string& error) {
  const ExpansionTables tables = sizes.expanded_on_device ? expansion_tables(items, n) : ExpansionTables{};
  const size_t params = sizes.expanded_on_device ? n : 0;
  const size_t bytes[] = {plan->instances.size() * sizeof(PackInstance),
                          plan->placements.size() * sizeof(PackPlacement), sizeof(prim::RetryShared),
                          params * sizeof(expansion::Params), tables.cdfs.size() * sizeof(double)};
  Upload& up = B.upload;
  AS_CUDA_TRY(up.lay_out(bytes));
  std::memcpy(up.host<void>(kInstances), plan->instances.data(), bytes[kInstances]);
  std::memcpy(up.host<void>(kPlacements), plan->placements.data(), bytes[kPlacements]);
  reinterpret_cast<volatile unsigned int*>(note)[0] = 0;
  reinterpret_cast<volatile unsigned int*>(note)[1] = 0;
  *up.host<prim::RetryShared>(kRetryShared) = prim::RetryShared{0u, note, 0u, stall_ms * 1000000u, {}};
  if (params && !stage_expansion(items, n, tables, up.host<expansion::Params>(kParams), up.host<double>(kCdfs),
                                 up.device<double>(kCdfs), error))
    return false;
  AS_CUDA_TRY(up.send());
  return true;
}

// The plan and the inputs onto the device (the staged ones copied, or
// expanded there from the items' shapes), the outputs and the stop note
// cleared.
bool copy_inputs_in(PackedBuffers& B, const PackItem* items, size_t n, const PackPlan* plan, const PackSizes& sizes,
                    unsigned int* note, uint64_t stall_ms, std::string& error) {
  const auto [ops, words, elem_bytes, expanded_on_device] = sizes;
  if (!send_upload(B, items, n, plan, sizes, note, stall_ms, error)) return false;
  const Upload& up = B.upload;
  if (!place_slots(*plan, up.device<PackPlacement>(kPlacements), B.slots.as<PackSlot>(), error)) return false;
  if (expanded_on_device)
    return expand_pack(up.device<expansion::Params>(kParams), up.device<PackInstance>(kInstances), n, elem_bytes,
                       pack_inputs(B), error);
  stage_inputs(B, items, n, plan, sizes);
  AS_CUDA_TRY(cudaMemcpyAsync(B.key.p, B.h_key.p, ops * 4, cudaMemcpyHostToDevice));
  AS_CUDA_TRY(cudaMemcpyAsync(B.x.p, B.h_x.p, ops * 8, cudaMemcpyHostToDevice));
  AS_CUDA_TRY(cudaMemcpyAsync(B.y.p, B.h_y.p, ops * 8, cudaMemcpyHostToDevice));
  AS_CUDA_TRY(cudaMemcpyAsync(B.mem.p, B.h_mem.p, words * elem_bytes, cudaMemcpyHostToDevice));
  AS_CUDA_TRY(cudaMemsetAsync(B.old.p, 0, ops * 8));  // (the expansion clears them itself)
  AS_CUDA_TRY(cudaMemsetAsync(B.retries.p, 0, ops * 4));
  AS_CUDA_TRY(cudaMemsetAsync(B.gave.p, 0, ops));
  return true;
}

PackedArgs packed_args(PackedBuffers& B, const RunOptions& opt, uint64_t stall_ms) {
  PackedArgs g;
  g.slots = B.slots.as<PackSlot>();
  g.instances = B.upload.device<PackInstance>(kInstances);
  g.key = B.key.as<uint32_t>();
  g.x = B.x.as<uint64_t>();
  g.y = B.y.as<uint64_t>();
  g.mem = B.mem.p;
  g.old = B.old.as<uint64_t>();
  g.retries = B.retries.as<uint32_t>();
  g.gave = B.gave.as<uint8_t>();
  g.rs = B.upload.device<prim::RetryShared>(kRetryShared);
  g.budget = opt.knobs.retry_budget;
  g.stall_watch = stall_ms != 0 ? 1u : 0u;
  return g;
}

// The launch, timed by events, and its bounded wait; `ms` is its time.
bool launch_timed(const PackedKernel& kernel, const PackedArgs& g, const PackPlan* plan, uint32_t elem_bytes,
                  uint64_t watchdog_ms, PackedBuffers& B, History& first, float& ms, std::string& error) {
  Event& e0 = B.started;
  Event& e1 = B.ended;
  if (e0.e == nullptr) AS_CUDA_TRY(e0.create());
  if (e1.e == nullptr) AS_CUDA_TRY(e1.create());
  AS_CUDA_TRY(cudaEventRecord(e0.e));
  const auto launched = std::chrono::steady_clock::now();
  // A launch that did not start (configuration) is no fault of the code.
  const size_t smem_bytes = size_t(plan->smem_elems) * elem_bytes;
  if (!allow_dynamic_shared(kernel.kernel, smem_bytes, error)) return false;
  AS_CUDA_TRY(kernel.launch(g, plan->blocks, plan->block_threads, smem_bytes, watchdog_ms));
  AS_CUDA_TRY(cudaEventRecord(e1.e));
  if (!wait_bounded(e1.e, launched, watchdog_ms, kernel.name, first.fault, error)) return false;
  AS_CUDA_TRY(cudaEventElapsedTime(&ms, e0.e, e1.e));
  return true;
}

// An instance's inputs, expanded on the device and staged back, into its
// workload (no longer a shape).
void take_inputs_back(Workload& w, const PackInstance& in, PackedBuffers& B) {
  const uint64_t m = w.ops(), words = w.mem_elems();
  w.addr.assign(B.h_key.as<uint32_t>() + in.op_base, B.h_key.as<uint32_t>() + in.op_base + m);
  w.a.assign(B.h_x.as<uint64_t>() + in.op_base, B.h_x.as<uint64_t>() + in.op_base + m);
  w.b.assign(B.h_y.as<uint64_t>() + in.op_base, B.h_y.as<uint64_t>() + in.op_base + m);
  w.init.assign(B.h_init.as<uint64_t>() + in.mem_base, B.h_init.as<uint64_t>() + in.mem_base + words);
  w.arrays_elsewhere = false;
}

// Each instance's history out of the launch's arrays, for the host's
// judging: all of them, or (a pack judged on the device) those it did not
// pass, every one under CheckerKind::Both.  Few come back one by one.
// Inputs expanded on the device come back with the history, into the
// instance's workload, as the resident path copies its own back.
bool copy_histories_back(const PackItem* items, size_t n, const PackPlan& plan, PackedBuffers& B,
                         const PackSizes& sizes, const RunOptions& opt, std::string& error) {
  const uint32_t elem_bytes = sizes.elem_bytes;
  std::vector<size_t> to_host;
  for (size_t i = 0; i < n; ++i)
    if (host_judges(items[i].device, opt.policy.checker)) to_host.push_back(i);
  if (to_host.empty()) return true;
  unsigned char* const hmem = B.h_mem.as<unsigned char>();
  auto copy = [&](uint64_t op_base, uint64_t ops, uint64_t mem_base, uint64_t words) {
    AS_CUDA_TRY(cudaMemcpyAsync(B.h_old.as<uint64_t>() + op_base, B.old.as<uint64_t>() + op_base, ops * 8,
                                cudaMemcpyDeviceToHost));
    AS_CUDA_TRY(cudaMemcpyAsync(B.h_retries.as<uint32_t>() + op_base, B.retries.as<uint32_t>() + op_base, ops * 4,
                                cudaMemcpyDeviceToHost));
    AS_CUDA_TRY(cudaMemcpyAsync(B.h_gave.as<uint8_t>() + op_base, B.gave.as<uint8_t>() + op_base, ops,
                                cudaMemcpyDeviceToHost));
    AS_CUDA_TRY(cudaMemcpyAsync(hmem + mem_base * elem_bytes, B.mem.as<unsigned char>() + mem_base * elem_bytes,
                                words * elem_bytes, cudaMemcpyDeviceToHost));
    if (sizes.expanded_on_device) {
      AS_CUDA_TRY(cudaMemcpyAsync(B.h_key.as<uint32_t>() + op_base, B.key.as<uint32_t>() + op_base, ops * 4,
                                  cudaMemcpyDeviceToHost));
      AS_CUDA_TRY(cudaMemcpyAsync(B.h_x.as<uint64_t>() + op_base, B.x.as<uint64_t>() + op_base, ops * 8,
                                  cudaMemcpyDeviceToHost));
      AS_CUDA_TRY(cudaMemcpyAsync(B.h_y.as<uint64_t>() + op_base, B.y.as<uint64_t>() + op_base, ops * 8,
                                  cudaMemcpyDeviceToHost));
      AS_CUDA_TRY(cudaMemcpyAsync(B.h_init.as<uint64_t>() + mem_base, B.init.as<uint64_t>() + mem_base, words * 8,
                                  cudaMemcpyDeviceToHost));
    }
    return true;
  };
  if (copy_back_in_bulk(to_host.size(), n)) {
    if (!copy(0, plan.ops, 0, plan.mem_elems)) return false;
  } else {
    for (size_t i : to_host)
      if (!copy(plan.instances[i].op_base, items[i].w->ops(), plan.instances[i].mem_base, pack_words(items[i])))
        return false;
  }
  prim::RetryShared rs_after{};
  AS_CUDA_TRY(cudaMemcpy(&rs_after, B.upload.device<prim::RetryShared>(kRetryShared), sizeof rs_after,
                         cudaMemcpyDeviceToHost));  // waits for the copies
  for (size_t i : to_host) {
    History& h = *items[i].h;
    const PackInstance& in = plan.instances[i];
    const uint64_t m = items[i].w->ops(), elems = pack_words(items[i]);
    h.old.assign(B.h_old.as<uint64_t>() + in.op_base, B.h_old.as<uint64_t>() + in.op_base + m);
    h.retries.assign(B.h_retries.as<uint32_t>() + in.op_base, B.h_retries.as<uint32_t>() + in.op_base + m);
    h.gave_up.assign(B.h_gave.as<uint8_t>() + in.op_base, B.h_gave.as<uint8_t>() + in.op_base + m);
    h.cycles.clear();
    h.out.clear();
    h.final_mem.assign(elems, 0);
    for (uint64_t e = 0; e < elems; ++e) std::memcpy(&h.final_mem[e], hmem + (in.mem_base + e) * elem_bytes, elem_bytes);
    h.block_scope_calls = rs_after.block_scope_calls != 0;
    h.home = HistoryHome::Host;
    if (sizes.expanded_on_device) take_inputs_back(*items[i].w, in, B);
  }
  return true;
}

// A pack judged on the device: each instance's verdict into its item; a
// judging that failed leaves every instance to the host's judging (the run
// itself succeeded, and the copies after it see a lost context).
void judge_on_device(const PackItem* items, size_t n, const PackPlan& plan, const PackedArgs& g, PackedBuffers& B,
                     const PackSizes& sizes) {
  const uint32_t elem_bytes = sizes.elem_bytes;
  PackedLaunchArrays launch_arrays{g.instances, g.key, g.x, g.y, g.old, g.retries, g.gave, g.mem};
  if (sizes.expanded_on_device) launch_arrays.init = B.init.as<uint64_t>();
  std::string judging_error;
  if (!judge_pack(items, n, plan, launch_arrays, elem_bytes, judging_error))
    for (size_t i = 0; i < n; ++i) *items[i].device = PackDeviceVerdict{kPackNotJudged, 0, 0, 0};
}

}  // namespace

bool run_packed(const PackItem* items, size_t n, uint32_t elem_bytes, const PackedKernel& kernel,
                const RunOptions& opt, uint64_t seed, std::string& error) {
  size_t most_smem = 0;
  if (!dynamic_shared_limit(kernel.kernel, most_smem, error)) return false;
  const auto plan = plan_pack({items, n}, elem_bytes, seed, most_smem, error);
  if (!plan) return false;
  const PackSizes sizes{plan->ops, plan->mem_elems, elem_bytes, items[0].w->arrays_elsewhere};
  // A launch is one entry's: the stall watch (a user's entry) watches all of
  // its instances or none.
  const uint64_t stall_ms = effective_stall_ms(opt, *items[0].w);
  for (size_t i = 0; i < n; ++i)
    if (items[i].w->arrays_elsewhere != sizes.expanded_on_device || (!sizes.expanded_on_device && !items[i].s)) {
      error = "packing: a launch's instances are all shapes to expand on the device, or all expanded with a setup";
      return false;
    }
  auto& B = packed_buffers();
  if (!ensure_buffers(B, &*plan, sizes, error)) return false;
  unsigned int* const note = stop_note(error);
  if (note == nullptr) return false;
  if (!copy_inputs_in(B, items, n, &*plan, sizes, note, stall_ms, error)) return false;
  const PackedArgs g = packed_args(B, opt, stall_ms);
  const uint64_t watchdog_ms = effective_watchdog_ms(opt, sizes.ops);
  float ms = 0;
  if (!launch_timed(kernel, g, &*plan, elem_bytes, watchdog_ms, B, *items[0].h, ms, error)) return false;
  const double ended_s = steady_seconds();
  for (size_t i = 0; i < n; ++i) {
    items[i].h->kernel_ms = double(ms) / double(n);  // its share of the launch
    items[i].h->kernel_end_s = ended_s;
  }
  if (items[0].device != nullptr) judge_on_device(items, n, *plan, g, B, sizes);
  return copy_histories_back(items, n, *plan, B, sizes, opt, error);
}

}  // namespace atomstress::cuda
