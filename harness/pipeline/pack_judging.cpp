#include "harness/pipeline/pack_judging.hpp"

namespace atomstress {

bool packs_judged_on_device(CheckerKind checker, const std::function<bool()>& device_supported) {
  return checker != CheckerKind::Cpu && device_supported();
}

namespace {

// A loop that gave up stops every loop of its launch (prim::Retry): an
// instance stopped by another's, with no loop of its own giving up, has no
// verdict of its own here.
bool stopped_by_another(const History& h) {
  bool own = false, stopped = false;
  for (const uint8_t g : h.gave_up) {
    own |= gave_up_by_itself(g);
    stopped |= static_cast<GaveUp>(g & ~kBlockScopeBit) == GaveUp::Aborted;
  }
  return stopped && !own;
}

// An instance expanded on the device comes back with its inputs (the
// packed runner copies them into its workload) but no setup: the family's
// setup is made here, from the inputs that ran.  False (an ERROR in `out`)
// where they did not come back: the host never judges inputs it made anew.
bool inputs_for_host(PackedTrial& p, Outcome& out) {
  std::string error;
  if (p.w->arrays_elsewhere) error = "the inputs expanded on the device did not come back with its history";
  else if (!p.s) p.s = p.w->impl->family->setup(*p.w, error);
  if (!p.s || p.w->arrays_elsewhere) {
    out.verdict = Verdict::Error;
    out.finding = make_finding(FindingKind::BackendError, "packed instance: " + error);
    return false;
  }
  return true;
}

}  // namespace

std::optional<Outcome> judge_packed_trial(const TrialSpec& spec, PackedTrial& p, BackendKind backend,
                                          const RunOptions& opt) {
  const PackDeviceVerdict* const device = p.device_judged ? &p.device : nullptr;
  Outcome out;
  out.spec = spec;
  out.knobs = opt.knobs;
  out.backend = backend;
  out.ops = p.w->ops();
  out.run_ms = p.h.kernel_ms;
  if (device && (device->flags & kPackNotJudged) == 0) {
    out.checked_on_gpu = true;
    out.check_ms = device->check_ms;
    out.device_check_ms = device->device_ms;
    out.device_check_end_s = device->end_s;
  }
  if (!host_judges(device, opt.policy.checker)) {  // passed on the device: its history never left it
    out.total_retries = device->total_retries;
    out.max_retries = device->max_retries;
    return out;
  }
  if (stopped_by_another(p.h)) return std::nullopt;
  add_retries(p.h, out);
  if (!inputs_for_host(p, out)) return out;
  if (!judge_on_host(*p.w, *p.s, p.h, opt, out)) return out;
  if (out.checked_on_gpu && trail_test_alone(*device)) {
    const bool device_ok = passed_on_device(*device);
    if (device_ok != out.finding.ok()) {
      out.verdict = Verdict::Error;
      out.finding = checkers_disagree(device_ok, out.finding);
    }
  }
  return out;
}

}  // namespace atomstress
