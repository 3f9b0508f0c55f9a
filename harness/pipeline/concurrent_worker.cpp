#include "harness/pipeline/concurrent_worker.hpp"

#include <fmt/format.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <utility>

#include "harness/pipeline/isolated.hpp"
#include "harness/pipeline/trial_json.hpp"

namespace atomstress {

using nlohmann::json;
using Clock = WorkerProcess::Clock;

WorkerTrials::WorkerTrials(BackendKind backend, const RunOptions& opt, size_t hotspots, size_t jobs)
    : backend_(backend), opt_(opt), hotspots_(hotspots), jobs_(std::max<size_t>(1, jobs)) {
  opt_.policy.isolate = false;  // the worker runs them in its own process
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);  // -1: no waking (collect waits for a trial)
}

WorkerTrials::~WorkerTrials() {
  if (wake_fd_ >= 0) close(wake_fd_);
}

void WorkerTrials::wake() {
  const uint64_t one = 1;
  if (wake_fd_ >= 0)
    while (write(wake_fd_, &one, sizeof one) < 0 && errno == EINTR) {
    }
}

void WorkerTrials::start(size_t ticket, const TrialSpec& spec) {
  std::string error;
  if (!worker_.running() && !start_worker(worker_, backend_, jobs_, error)) {
    // Run alone, the trial gets the Error that says why.
    lost_.push_back({ticket, std::nullopt});
    return;
  }
  json request = to_json(TrialRequest{spec, backend_, opt_, hotspots_});
  request["id"] = ticket;
  if (!worker_.send(request.dump())) {
    auto lost = lose_all();
    lost_.insert(lost_.end(), lost.begin(), lost.end());
    lost_.push_back({ticket, std::nullopt});
    return;
  }
  // A trial may wait for the GPU behind the others in flight: past its own
  // deadline (trial_deadline), it and they are lost and run again alone.
  const uint64_t ms = trial_deadline(spec, opt_).total_ms();
  in_flight_[ticket] = Clock::now() + std::chrono::milliseconds(ms);
}

void WorkerTrials::cancel(size_t ticket) {
  // A worker that is gone has lost the trial already (collect says so).
  if (in_flight_.count(ticket) && worker_.running()) worker_.send(json{{"cancel", ticket}}.dump());
}

std::vector<ConcurrentTrials::Ended> WorkerTrials::lose_all() {
  if (worker_.running()) worker_.kill();
  std::vector<Ended> lost;
  for (const auto& [ticket, due] : in_flight_) lost.push_back({ticket, std::nullopt});
  in_flight_.clear();
  return lost;
}

std::vector<ConcurrentTrials::Ended> WorkerTrials::collect() {
  if (!lost_.empty()) return std::exchange(lost_, {});
  if (in_flight_.empty()) return {};
  auto deadline = Clock::time_point::max();
  for (const auto& [ticket, due] : in_flight_) deadline = std::min(deadline, due);
  std::string line;
  json j;
  do {  // past a kernel case's phase notes (a worker with --jobs sends none: its lost trials run again alone)
    const auto got = worker_.receive(line, deadline, wake_fd_);
    if (got == WorkerProcess::Read::Woken) return {};
    if (got != WorkerProcess::Read::Line) return lose_all();
    j = json::parse(line, nullptr, false);
  } while (j.is_object() && j.contains("case_phase"));
  const bool has_id = j.is_object() && j.contains("id") && j["id"].is_number_unsigned();
  const auto it = has_id ? in_flight_.find(j["id"].get<size_t>()) : in_flight_.end();
  Outcome outcome;
  std::string error;
  if (it == in_flight_.end() || !j.contains("outcome") || !from_json(j["outcome"], outcome, error)) {
    std::fputs(fmt::format("atomstress: warning: the trial worker's answer was refused ({}): '{}'\n",
                           error.empty() ? "no trial of ours" : error, line.substr(0, 200))
                   .c_str(),
               stderr);
    return lose_all();
  }
  const size_t ticket = it->first;
  in_flight_.erase(it);
  return {{ticket, std::move(outcome)}};
}

}  // namespace atomstress
