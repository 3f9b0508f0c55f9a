// How one packed instance (run_packed.hpp) gets its verdict: host code only,
// the same whichever checker judged the pack, so it is tested on the CPU.
// The device's verdict (backend/packed.hpp, PackDeviceVerdict) passes an
// instance alone only where the resident path would pass a trial alone;
// everything else is judged by the host as an unpacked trial is (the hang
// rule, the family's oracle), and where the device's word was the trail
// test alone the host's checker must agree with it.
#pragma once

#include <functional>
#include <optional>

#include "harness/backend/packed.hpp"
#include "harness/pipeline/run_trial.hpp"

namespace atomstress {

// Whether packs of an entry are judged on the device: never under
// --checker cpu (the device is then not asked); under auto, gpu and both
// whenever the entry supports it (`device_supported()`: a single atomic whose
// device oracle agrees with its host phi, a launch the GPU checker takes).
// Unlike a single trial, auto has no size threshold: a pack's launch is
// large whatever its instances.
bool packs_judged_on_device(CheckerKind checker, const std::function<bool()>& device_supported);

// One instance of a pack after its launch.
struct PackedTrial {
  std::optional<Workload> w;
  std::optional<Setup> s;
  History h;  // its kernel_ms always; its arrays where the host judges it
  PackDeviceVerdict device;
  bool device_judged = false;  // `device` holds the device's verdict
};

// The instance's outcome, or nothing when it must run alone (a loop of its
// launch gave up and stopped it, none of its own did).
std::optional<Outcome> judge_packed_trial(const TrialSpec& spec, PackedTrial& p, BackendKind backend,
                                          const RunOptions& opt);

}  // namespace atomstress
