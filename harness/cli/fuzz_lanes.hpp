// fuzz --devices 0,1,... and --jobs N: N lanes per GPU of a host (one each
// without --jobs).  A lane is this same
// program run as `fuzz --lane i/N` with CUDA_VISIBLE_DEVICES naming its GPU
// (so its trial worker runs there), on a deterministic share of the entries
// (the i-th of N, within the run's --shard), with its own state file and
// JSON log in a lanes folder.  The coordinator waits for every lane, then
// combines their logs into the run's --junit, --report and --json, and says
// how many trials each device ran.  On the cpu backend the lanes are just
// parallel processes.
#pragma once

#include <string>
#include <vector>

#include "reports/results.hpp"
#include "reports/sinks.hpp"

namespace atomstress::cli {

inline constexpr unsigned kMaxLanesPerDevice = 16;  // fuzz --jobs

struct LanePlan {
  std::vector<unsigned> devices;     // as given to --devices (distinct)
  unsigned jobs = 1;                 // lanes per device: lane i runs on devices[i / jobs]
  std::vector<std::string> args;     // the run's fuzz arguments
  std::string lanes_dir;             // lane-I.json (state) and lane-I.jsonl (log)
  bool resume = false;               // each lane continues from its state file
  bool finished_before = false;      // a --resume of a run that finished: its lanes' results, nothing run
  reports::ReportRequest reports;     // the run's report files, combined from the lanes' logs
  std::string corpus;
  reports::RunHeader header;        // the run's, for the combined reports
};

// Parses "0,1,3": distinct device indexes, at most 64.
bool parse_devices(const std::string& text, std::vector<unsigned>& out, std::string& why);

// Makes `name` the only device a child process sees: CUDA_VISIBLE_DEVICES
// of the device at that index among those this process sees.
std::string visible_device(unsigned index);

// `args` without the options the coordinator keeps for itself.
std::vector<std::string> lane_args(const std::vector<std::string>& args);

// Makes the lanes' folder; false with `error` when a lane's file in it is
// not a plain file of its own (a link, a FIFO, another file's second name:
// the lanes' files are named by atomstress, and a planted link would have a
// lane append its log to the file it names).  run_lanes calls it too.
bool prepare_lanes_folder(const LanePlan& plan, std::string& error);

// Runs the lanes and combines them.  0: no failure; 1: a failure; 2: `error`
// says why (a lane could not start or ended with bad input; what the other
// lanes recorded is combined first).
int run_lanes(const LanePlan& plan, std::string& error);

}  // namespace atomstress::cli
