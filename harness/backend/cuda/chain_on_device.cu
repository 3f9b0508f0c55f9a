// An algorithm's chain of atomics judged on the device (gpu_checked.hpp,
// judge_chain_on_device).  The chain is made on the host (the family's
// oracle knows which element issued which atomic); the Eulerian check, the
// host checker's costliest part (about 10 ms for a chain of 50,000 adds), is
// the GPU checker's.  Kernels: the atomic's device oracle and the judge's.
#include <cuda_runtime.h>

#include <chrono>
#include <cstring>

#include "harness/backend/cuda/array_fills.hpp"
#include "harness/backend/cuda/util.cuh"
#include "harness/backend/gpu_checked.hpp"
#include "harness/registry/value_kind.hpp"

namespace atomstress {

namespace {

// Per thread, as the trial buffers: a thread judges one chain at a time.
struct ChainBuffers {
  cuda::Upload upload;     // addr, arg, old, canonical init and final
  cuda::DevBuf b, from, to;  // b: the zero operands the edge kernel reads
};
ChainBuffers& chain_buffers() {
  thread_local ChainBuffers buffers;
  return buffers;
}

enum Section : size_t { kAddr, kArg, kOld, kInit, kFinal };

}  // namespace

bool judge_chain_on_device(const HostChain& chain, DeviceJudge& judge, DeviceVerdict& out, std::string& error) {
  const auto t0 = std::chrono::steady_clock::now();
  const Entry& e = *chain.atomic;
  const uint64_t n = chain.addr.size(), elems = chain.init.size();
  if (chain.arg.size() != n || chain.old.size() != n || chain.fin.size() != elems) {
    error = "a chain of atomics whose arrays differ in length";
    return false;
  }
  if (!e.device_edges) {
    error = std::string(e.name) + " has no device oracle";
    return false;
  }
  ChainBuffers& B = chain_buffers();
  AS_CUDA_TRY(B.upload.lay_out({n * 4, n * 8, n * 8, elems * 8, elems * 8}));
  AS_CUDA_TRY(B.b.ensure(n * 8 + 8));
  AS_CUDA_TRY(B.from.ensure(n * 8 + 8));
  AS_CUDA_TRY(B.to.ensure(n * 8 + 8));
  if (n) {
    std::memcpy(B.upload.host<uint32_t>(kAddr), chain.addr.data(), n * 4);
    std::memcpy(B.upload.host<uint64_t>(kArg), chain.arg.data(), n * 8);
    std::memcpy(B.upload.host<uint64_t>(kOld), chain.old.data(), n * 8);
  }
  // Initial and final states as the checkers compare them.
  const bool nan_equal = e.sem.nan_states_equal;
  auto state = [&](uint64_t v) { return nan_equal ? canonical_nan_bits(e.kind, v) : v; };
  for (uint64_t i = 0; i < elems; ++i) {
    B.upload.host<uint64_t>(kInit)[i] = state(chain.init[i]);
    B.upload.host<uint64_t>(kFinal)[i] = state(chain.fin[i]);
  }
  cuda::StreamTimer timer;  // the GPU's time on it, the copy in included
  AS_CUDA_TRY(timer.start());
  AS_CUDA_TRY(B.upload.send());
  const cuda::ArrayFill zeroed[] = {{B.b.p, nullptr, n * 8 + 8, 0}};
  if (!cuda::queue_array_fills(zeroed, error)) return false;
  DeviceEdgeArgs args;
  args.old = B.upload.device<uint64_t>(kOld);
  args.a = B.upload.device<uint64_t>(kArg);
  args.b = B.b.as<uint64_t>();
  args.n = n;
  args.nan_states_equal = nan_equal;
  args.from = B.from.as<uint64_t>();
  args.to = B.to.as<uint64_t>();
  if (!e.device_edges(args, error)) return false;
  DeviceHistory h;
  h.addr = B.upload.device<uint32_t>(kAddr);
  h.from = args.from;
  h.to = args.to;
  h.ops = n;
  h.init = B.upload.device<uint64_t>(kInit);
  h.final_state = B.upload.device<uint64_t>(kFinal);
  h.elems = uint32_t(elems);
  bool explained = false, outside = false;
  if (!judge.explains(h, explained, outside, error)) return false;
  AS_CUDA_TRY(timer.stop());
  out.ok = explained && !outside;
  out.device_ms = timer.ms;
  out.end_s = timer.end_s;
  out.check_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return true;
}

}  // namespace atomstress
