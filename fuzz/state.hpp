// A campaign's resumable state: the arguments it was started with, the
// budget spent, the round reached and each entry's result so far.  Written
// atomically after every evaluation, so `--resume` after a kill continues
// with the remaining budget at the next slice.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "reports/results.hpp"

namespace atomstress::fuzz {

struct FuzzState {
  std::vector<std::string> args;  // the command's arguments, --resume/--state left out
  uint64_t seed = 1;
  double budget_s = 0, elapsed_s = 0;
  uint32_t round = 0;
  size_t next = 0;  // position in the round's entry order of the next slice
  bool replayed = false;  // the corpus has been replayed
  bool finished = false;
  std::map<std::string, reports::FuzzEntryResult> entries;
};

bool save_state(const std::string& path, const FuzzState& s, std::string& error);
// nullopt with a one-line error naming the file.
std::optional<FuzzState> load_state(const std::string& path, std::string& error);

}  // namespace atomstress::fuzz
