// The CPU backends' worker pool: host threads that start together (so that
// they overlap), each with the trial's interleaving settings.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "harness/backend/backend.hpp"
#include "harness/prim/prim.cuh"
#include "harness/workload/workload.hpp"

namespace atomstress {

// Runs body(wid) for wid in [0, workers), the caller's thread being worker 0.
// Worker wid yields at interleaving points as `opt` says, with a random
// stream of (seed, stream, wid).  `ms` gets the wall time of the run.
// Returns false with a one-line `error` when threads cannot be started.
template <class Body>
bool run_host_workers(uint32_t workers, const RunOptions& opt, uint64_t seed, uint64_t stream, bool shared_space,
                      Body&& body, double& ms, std::string& error) {
  std::atomic<uint32_t> ready{0};
  std::atomic<bool> abandoned{false};  // a thread failed to start: the others run nothing
  // A yield hands over to another live worker (prim::host_hand_over), so
  // that a race shows even where a loaded host would run them one by one.
  prim::HostSchedule schedule;
  schedule.live = workers;
  auto worker = [&](uint32_t wid) {
    prim::set_host_interleave(opt.knobs.yield_permille, shared_space, counter_rng(seed, stream, wid) | 1);
    prim::set_host_schedule(&schedule);
    struct Leave {  // however the body ends: no longer live, and no pointer to this frame left behind
      prim::HostSchedule& s;
      ~Leave() {
        s.live.fetch_sub(1);
        prim::set_host_schedule(nullptr);
      }
    } leave{schedule};
    ready.fetch_add(1);
    while (ready.load() < workers) {
      if (abandoned.load()) return;
      std::this_thread::yield();
    }
    body(wid);
  };
  const auto t0 = std::chrono::steady_clock::now();
  // The pool outlives the try: destroying joinable threads would abort.
  std::vector<std::thread> pool;
  try {
    for (uint32_t i = 1; i < workers; ++i) pool.emplace_back(worker, i);
  } catch (const std::exception& e) {
    abandoned.store(true);
    for (auto& th : pool) th.join();
    error = std::string("cpu backend: cannot start ") + std::to_string(workers) + " threads (" +
            std::to_string(pool.size() + 1) + " started): " + e.what();
    return false;
  }
  worker(0);
  for (auto& th : pool) th.join();
  ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return true;
}

}  // namespace atomstress
