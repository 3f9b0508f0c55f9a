// What the tests' fake runners of trials at once share: a random share of
// the trials in flight ends, in a random order, each with the outcome the
// test gives it (test_concurrent.cpp, test_shared_trials.cpp).
#pragma once

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "harness/pipeline/ordered_trials.hpp"

namespace atomstress::testing {

using InFlight = std::vector<std::pair<size_t, TrialSpec>>;

// Ends 1 to all of `flight` (not empty), chosen and ordered by `rng`.
template <class OutcomeOf>
std::vector<ConcurrentTrials::Ended> end_some(InFlight& flight, std::mt19937& rng, OutcomeOf outcome_of) {
  std::shuffle(flight.begin(), flight.end(), rng);
  const size_t n = 1 + rng() % flight.size();
  std::vector<ConcurrentTrials::Ended> ended;
  for (size_t i = 0; i < n; ++i) ended.push_back({flight[i].first, outcome_of(flight[i].second)});
  flight.erase(flight.begin(), flight.begin() + long(n));
  return ended;
}

}  // namespace atomstress::testing
