// A judge that check_chain (families/chain.hpp) may be lent for the trial
// being judged on this thread: an algorithm's chain of atomics decided by
// the GPU checker instead of the host's, whose Eulerian check is the host's
// costliest work on such a trial (about 10 ms for a chain of 50,000 adds,
// while the kernel ran microseconds).  The pipeline lends one for a trial
// that ran on the cuda backend (pipeline/device_chains.hpp).
//
// The device only passes a chain.  One it cannot explain goes to the host's
// checker, which explains it; if the host then passes it, the two checkers
// disagree, which the pipeline reports as an error of atomstress, never as
// a verdict on the code under test.  A chain the judge could not judge is
// the host's.  Under --checker both the host judges every chain too.
//
// Host-only header.
#pragma once

#include <cstdint>
#include <string>

#include "harness/backend/gpu_checked.hpp"

namespace atomstress {

class ChainJudge {
 public:
  virtual ~ChainJudge() = default;
  // Whether a chain of `ops` atomics of `atomic` goes to this judge.
  virtual bool takes(const Entry& atomic, uint64_t ops) = 0;
  // The judge's verdict (ok) and its times; false with a one-line `error`
  // when it could not judge (a CUDA error).
  virtual bool explains(const HostChain& chain, DeviceVerdict& out, std::string& error) = 0;
};

// What the lent judge came to over one trial's chains.
struct ChainJudging {
  ChainJudge* judge = nullptr;
  bool both = false;  // the host's checker judges every chain too
  unsigned judged = 0;  // chains the judge decided
  double device_ms = 0;  // the GPU's time on them (events)
  double end_s = 0;      // when the host saw the last end (steady_seconds())
  // The first chain the two checkers judged differently: the lent judge's
  // verdict, and what the host's checker said of it.
  bool disagreed = false;
  bool judge_ok = false;
  std::string host_explanation;
  std::string error;  // the judge could not judge (its chains went to the host)
};

// Lends `judging` to check_chain on this thread until destroyed.
class LentChainJudge {
 public:
  explicit LentChainJudge(ChainJudging& judging);
  ~LentChainJudge();
  LentChainJudge(const LentChainJudge&) = delete;
  LentChainJudge& operator=(const LentChainJudge&) = delete;

 private:
  ChainJudging* previous_;
};

// This thread's lent judge, or null.
ChainJudging* lent_chain_judge();

}  // namespace atomstress
