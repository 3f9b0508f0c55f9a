// An entry's result over a run, built from its records as they come (the
// campaign) or as they are read back from shards' logs (`merge`).
#pragma once

#include "reports/results.hpp"

namespace atomstress::fuzz {

// Adds a slice's trials, ops and time; its failure, if the entry had none.
void add_slice(reports::FuzzEntryResult& e, const reports::FuzzSliceRecord& s);
// A corpus case that still fails is the entry's failure (origin "corpus").
void add_replay(reports::FuzzEntryResult& e, const reports::ReplayRecord& r);

}  // namespace atomstress::fuzz
