// A search round's two halves, the packed round and RapidCheck's round of
// the same number, as the campaign counts them.  On cuda with specs at once
// they run at the same time (campaign.cpp: the packed round's host work,
// drawing, packing and judging thousands of small trials, goes on while the
// GPU runs the larger specs), and are counted as if the packed round had run
// first and RapidCheck's after it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fuzz/campaign.hpp"

namespace atomstress::fuzz {

// What one half counted, apart from the campaign's result.
struct RoundTally {
  uint64_t specs = 0, runs = 0, ops = 0;
  std::vector<std::pair<uint64_t, uint64_t>> evaluated;  // on_evaluated's calls (runs, ops), in order
  bool failed = false;  // its first failure, below
  TrialSpec first;
  Verdict verdict = Verdict::Pass;
  std::string why;
  double caught_s = 0;  // the campaign's clock when that failure was seen
};

// Adds a round's halves to `res` in the order of one after the other.  A
// failure of the packed round is the campaign's, and RapidCheck's round is
// not counted (it would not have run); otherwise both are counted, and
// RapidCheck's failure, if any, is the campaign's.  `evaluated` (optional)
// gets the counted halves' calls in that order.  Returns whether the
// campaign found a failure.
bool take_round(CampaignResult& res, const RoundTally& packed, const RoundTally& rapidcheck,
                const std::function<void(uint64_t runs, uint64_t ops)>& evaluated);

// Halves of many rounds as they end, in any order (with specs at once the
// packed rounds run on their own lane, RapidCheck's rounds on theirs, each
// lane in its round order and neither waiting for the other), counted as
// take_round counts them: round 0's halves, then round 1's, and so on,
// each round once both its halves are in, up to the first failure.  What
// ends after that failure in this order is not counted: one after another,
// it would not have run.
class RoundLedger {
 public:
  using Evaluated = std::function<void(uint64_t runs, uint64_t ops)>;
  // `packed_halves`: false when the campaign runs no packed rounds (each
  // round's packed half is then empty).
  explicit RoundLedger(bool packed_halves) : packed_halves_(packed_halves) {}
  void packed_done(uint64_t round, RoundTally t);
  void rapidcheck_done(uint64_t round, RoundTally t);
  // Counts every round, in order, whose halves are both in.  Returns
  // whether the campaign found a failure (then nothing more is counted).
  bool take_ready(CampaignResult& res, const Evaluated& evaluated);
  // The end: no half comes any more.  Counts the rounds left in order, a
  // half that never ran as an empty one; returns whether one failed.
  bool take_rest(CampaignResult& res, const Evaluated& evaluated);
  // Specs in halves that are in but not yet counted.
  uint64_t pending_specs() const;
  // The first round not yet counted.
  uint64_t next_round() const { return next_; }

 private:
  bool take(CampaignResult& res, const Evaluated& evaluated, bool rest);
  bool packed_halves_;
  std::map<uint64_t, RoundTally> packed_, rapidcheck_;
  uint64_t next_ = 0;
  bool found_ = false;
};

}  // namespace atomstress::fuzz
