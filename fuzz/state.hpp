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
  size_t next = 0;  // the round's position (in `plan`) of the next slice
  // The round's positions, each the entries (indexes in name order) whose
  // slices run at once (nightly.hpp plan_round); made when the round
  // begins, kept so that --resume goes on with the same plan.  Empty: one
  // entry per position, in name order.
  std::vector<std::vector<size_t>> plan;
  bool replayed = false;  // the corpus has been replayed
  // While it is replayed: the case files (names in the corpus) already
  // replayed, whose records are logged and in `entries`; a --resume after
  // a kill goes on with the next case, not from the first.
  std::vector<std::string> replayed_cases;
  bool finished = false;
  std::map<std::string, reports::FuzzEntryResult> entries;
  // By entry: how many trials at once its next slice's first round runs
  // (the width its last slice ended at: CampaignConfig::at_once_start).
  std::map<std::string, uint32_t> at_once_next;
};

bool save_state(const std::string& path, const FuzzState& s, std::string& error);
// nullopt with a one-line error naming the file: also for a value out of the
// range its command-line option takes (a hand-edited budget_s of -5 or
// 1e300, a negative round or seed, args that are not the run's arguments).
std::optional<FuzzState> load_state(const std::string& path, std::string& error);

// One run at a time per state file (and so per corpus): an exclusive
// flock(2) on STATE.lock, held until the object dies (the kernel drops it
// with the process, so a kill -9 leaves no stale lock).  The file says who
// holds it.
class RunLock {
 public:
  RunLock() = default;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  ~RunLock();
  // False with a one-line error naming the holder when another run has it.
  bool acquire(const std::string& state_path, const std::string& who, std::string& error);

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace atomstress::fuzz
