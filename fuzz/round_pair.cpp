#include "fuzz/round_pair.hpp"

namespace atomstress::fuzz {

namespace {

// One half's counts into `res`; its failure, if any, becomes the campaign's.
bool take_half(CampaignResult& res, const RoundTally& t,
               const std::function<void(uint64_t runs, uint64_t ops)>& evaluated) {
  res.specs += t.specs;
  res.runs += t.runs;
  res.ops += t.ops;
  if (evaluated)
    for (const auto& [runs, ops] : t.evaluated) evaluated(runs, ops);
  if (!t.failed) return false;
  res.found = true;
  res.first = res.shrunk = t.first;
  res.verdict = t.verdict;
  res.why = t.why;
  res.time_to_catch_s = t.caught_s;
  return true;
}

}  // namespace

bool take_round(CampaignResult& res, const RoundTally& packed, const RoundTally& rapidcheck,
                const std::function<void(uint64_t runs, uint64_t ops)>& evaluated) {
  return take_half(res, packed, evaluated) || take_half(res, rapidcheck, evaluated);
}

}  // namespace atomstress::fuzz
