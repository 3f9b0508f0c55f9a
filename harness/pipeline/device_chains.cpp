#include "harness/pipeline/device_chains.hpp"

#include <algorithm>
#include <cstdio>
#include <mutex>

#include "harness/check/gpu_checker.hpp"

namespace atomstress {

bool DeviceChains::takes(const Entry& atomic, uint64_t ops) {
  if (policy_ == CheckerKind::Cpu || (policy_ == CheckerKind::Auto && ops < kDeviceCheckMinOps)) return false;
  return gpu_checkable(atomic, ops, gpu_check::device_judge());
}

bool DeviceChains::explains(const HostChain& chain, DeviceVerdict& out, std::string& error) {
  return judge_chain_on_device(chain, gpu_check::device_judge(), out, error);
}

ChainsOnDevice::ChainsOnDevice(const Entry& entry, const Outcome& out, const ExecutionPolicy& policy,
                               ChainJudge* judge)
    : judge_(policy.checker) {
  if (entry.algo == nullptr || out.backend != BackendKind::Cuda || policy.checker == CheckerKind::Cpu ||
      policy.sequential)
    return;
  judging_.judge = judge ? judge : &judge_;
  judging_.both = policy.checker == CheckerKind::Both;
  lent_.emplace(judging_);
}

void ChainsOnDevice::add_to(Outcome& out) {
  lent_.reset();
  if (judging_.judged) {
    out.checked_on_gpu = true;
    out.device_check_ms += judging_.device_ms;
    out.device_check_end_s = std::max(out.device_check_end_s, judging_.end_s);
  }
  if (judging_.disagreed) {
    Finding host;
    host.explanation = judging_.host_explanation;
    out.verdict = Verdict::Error;
    out.finding = checkers_disagree(judging_.judge_ok, host);
  }
  if (!judging_.error.empty()) note_judged_on_host(judging_.error);
}

void note_judged_on_host(const std::string& error) {
  static std::once_flag once;
  std::call_once(once, [&] {
    std::fprintf(stderr,
                 "atomstress: note: a chain of atomics could not be judged on the device (%s): the host's checker "
                 "judged it (said once per process)\n",
                 error.c_str());
  });
}

}  // namespace atomstress
