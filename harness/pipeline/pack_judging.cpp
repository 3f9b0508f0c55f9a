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
  }
  if (!host_judges(device, opt.policy.checker)) {  // passed on the device: its history never left it
    out.total_retries = device->total_retries;
    out.max_retries = device->max_retries;
    return out;
  }
  if (stopped_by_another(p.h)) return std::nullopt;
  add_retries(p.h, out);
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
