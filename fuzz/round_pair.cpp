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

void RoundLedger::packed_done(uint64_t round, RoundTally t) { packed_[round] = std::move(t); }

void RoundLedger::rapidcheck_done(uint64_t round, RoundTally t) { rapidcheck_[round] = std::move(t); }

bool RoundLedger::take_ready(CampaignResult& res, const Evaluated& evaluated) { return take(res, evaluated, false); }

bool RoundLedger::take_rest(CampaignResult& res, const Evaluated& evaluated) { return take(res, evaluated, true); }

bool RoundLedger::take(CampaignResult& res, const Evaluated& evaluated, bool rest) {
  while (!found_) {
    const auto packed = packed_.find(next_);
    const auto rapidcheck = rapidcheck_.find(next_);
    const bool packed_in = !packed_halves_ || packed != packed_.end();
    const bool rapidcheck_in = rapidcheck != rapidcheck_.end();
    if (!rest && !(packed_in && rapidcheck_in)) break;
    const bool more = !(packed_.empty() && rapidcheck_.empty());
    if (!more) break;
    const RoundTally none;
    found_ = take_round(res, packed != packed_.end() ? packed->second : none,
                        rapidcheck_in ? rapidcheck->second : none, evaluated);
    if (packed != packed_.end()) packed_.erase(packed);
    if (rapidcheck_in) rapidcheck_.erase(rapidcheck);
    ++next_;
  }
  return found_;
}

uint64_t RoundLedger::pending_specs() const {
  uint64_t n = 0;
  for (const auto& [round, t] : packed_) n += t.specs;
  for (const auto& [round, t] : rapidcheck_) n += t.specs;
  return n;
}

}  // namespace atomstress::fuzz
