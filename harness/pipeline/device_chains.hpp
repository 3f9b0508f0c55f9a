// The pipeline's judge for check_chain (check/chain_judging.hpp): an
// algorithm's chains of atomics judged by this thread's GPU checker, for a
// trial that ran on the cuda backend, under the --checker policy as a single
// atomic's trial is (auto: chains of kDeviceCheckMinOps atomics or more,
// whose atomic's device oracle agrees with its host phi; gpu and both: any
// such chain; cpu: none).  The diagnosis replay keeps the host's checker.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "harness/backend/backend.hpp"
#include "harness/check/chain_judging.hpp"
#include "harness/pipeline/run_trial.hpp"

namespace atomstress {

// Below this many ops a history is checked on the host under auto: the
// device's dozen launches and two synchronisations cost more than the host's
// check (docs/performance.md, "Checking on the GPU").
inline constexpr uint64_t kDeviceCheckMinOps = 2048;

class DeviceChains final : public ChainJudge {
 public:
  explicit DeviceChains(CheckerKind policy) : policy_(policy) {}
  bool takes(const Entry& atomic, uint64_t ops) override;
  bool explains(const HostChain& chain, DeviceVerdict& out, std::string& error) override;

 private:
  CheckerKind policy_;
};

// A trial's chains judged on the device while it is judged on this thread:
// lent for the scope when the trial may use it (an algorithm on the cuda
// backend, not a diagnosis replay, a policy other than cpu).
class ChainsOnDevice {
 public:
  // `judge`: another judge in place of the GPU checker (tests).
  ChainsOnDevice(const Entry& entry, const Outcome& out, const ExecutionPolicy& policy, ChainJudge* judge = nullptr);
  // What the device's judging adds to the outcome: its GPU time and that it
  // was GPU-checked; an ERROR for two checkers that disagree.  A chain the
  // device could not judge (a CUDA error: its memory, or another trial's
  // trap while this one was judged beside it) was judged by the host's
  // checker, whose verdict stands: a note says so.  Ends the loan.
  void add_to(Outcome& out);

 private:
  DeviceChains judge_;
  ChainJudging judging_;
  std::optional<LentChainJudge> lent_;
};

// The note for a chain the device could not judge (stderr, once per process).
void note_judged_on_host(const std::string& error);

}  // namespace atomstress
