// A search round's two halves, the packed round and RapidCheck's round of
// the same number, as the campaign counts them.  On cuda with specs at once
// they run at the same time (campaign.cpp: the packed round's host work,
// drawing, packing and judging thousands of small trials, goes on while the
// GPU runs the larger specs), and are counted as if the packed round had run
// first and RapidCheck's after it.
#pragma once

#include <cstdint>
#include <functional>
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

}  // namespace atomstress::fuzz
