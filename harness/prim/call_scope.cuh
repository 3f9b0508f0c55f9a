// Code that is not ours: a user's atomic or lock, running unchanged inside a
// trial.  It cannot take a prim::Retry, so the trial's Retry is reached
// through a per-thread "call scope" that the intercepted CUDA intrinsics
// (harness/byo/intercept.cuh) consult on every call: every call after the
// first is a retry; a block-scope call marks the op for the scope rule; and a
// loop past its retry budget or the trial's deadline is stopped, since it
// cannot be asked to return:
//   device: the reason goes to a host-mapped word, then the kernel traps (the
//           runner reports a hang; the supervised worker restarts);
//   host:   LoopStopped is thrown and caught where the user code was entered.
#pragma once

#include <cstdint>

#include "harness/prim/retry.cuh"

namespace prim {

struct CallScope {
  Retry* retry = nullptr;
  uint32_t calls = 0;  // intercepted calls so far in this op
  uint32_t polls = 0;  // intercepted loads, stores and waits so far in this op
  uint32_t releases = 0;  // compare-and-swaps of this op released after its loop gave up
};

// Thrown on the host out of a user loop that must stop.
struct LoopStopped {};

// What a stopped device loop leaves in RetryShared::stop_note: Retry::gave_up
// plus this tag, so that the host can tell a watchdog stop from a fault; the
// word after it holds the largest retry count of a stopped loop.
inline constexpr unsigned int kStopNoteTag = 0x57000000u;

#if !defined(__CUDA_ARCH__)
inline thread_local CallScope* host_call_scope = nullptr;
#endif

#if defined(__CUDACC__)
// The calling device thread's slot: one pointer per thread of the block in
// shared memory (a pointer to the thread's own CallScope, in its local memory).
__device__ inline CallScope*& device_call_scope_slot() {
  __shared__ CallScope* slots[1024];
  const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  return slots[t];
}
#endif

AS_HD AS_FI CallScope* current_call_scope() {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return device_call_scope_slot();), (return host_call_scope;))
}
AS_HD AS_FI void set_call_scope(CallScope* s) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (device_call_scope_slot() = s;), (host_call_scope = s;))
}

// Leaves a stopped loop's reason in the trial's stop note (device only).
AS_HD AS_FI void note_stop(const Retry& r) {
  NV_IF_TARGET(NV_IS_DEVICE, (if (r.shared != nullptr && r.shared->stop_note != nullptr) {
                 atomicMax(r.shared->stop_note + 1, r.count);
                 atomicCAS(r.shared->stop_note, 0u, kStopNoteTag | r.gave_up);
                 __threadfence_system();
               }))
}

// Stops a loop that gave up (never returns).
AS_HD inline void stop_loop(const Retry& r) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (note_stop(r); __trap();), ((void)r; throw LoopStopped{};))
}

// How many times a device loop that gave up is released (below) before it
// is stopped by a trap.
inline constexpr uint32_t kReleasesBeforeTrap = 16;

// Notes in the trial's shared word that a block-scope intrinsic ran (read
// first: one write per trial, not one per call).
AS_HD AS_FI void note_block_scope_call(RetryShared* rs) {
  if (rs == nullptr) return;
  NV_IF_ELSE_TARGET(NV_IS_DEVICE,
                    (if (*reinterpret_cast<volatile unsigned int*>(&rs->block_scope_calls) == 0u)
                         atomicExch(&rs->block_scope_calls, 1u);),
                    (std::atomic_ref<unsigned int>(rs->block_scope_calls).store(1u, std::memory_order_relaxed);))
}

// Notes in the trial's shared word that a user's code made an intercepted
// call (host only: the CPU backend asks whether its host branch ran any).
AS_HD AS_FI void note_intercepted_call(RetryShared* rs) {
  NV_IF_TARGET(NV_IS_HOST, (if (rs != nullptr) {
                 std::atomic_ref<unsigned int> seen(rs->intercepted_calls);
                 if (seen.load(std::memory_order_relaxed) == 0u) seen.store(1u, std::memory_order_relaxed);
               }))
}

// Counts an intercepted call of scope `s`: true when it is the op's first or
// its loop may go on.
AS_HD AS_FI bool count_call(CallScope* s, bool block_scope) {
  if (block_scope) {
    s->retry->block_scope = 1;
    note_block_scope_call(s->retry->shared);
  }
  if (s->calls++ == 0) {
    if (s->polls == 0) note_intercepted_call(s->retry->shared);
    // The CPU backend may hand over here, before the op's first atomic: a
    // loop that reads its word plainly first (`old = *p`) has its race in
    // that window, and without a point there only two free cores showed it
    // (a CAS loop returning its first load passed 5 of 12 runs beside two
    // CPU hogs).  A retry's point is in again().
    interleave_point();
    return true;
  }
  Retry& r = *s->retry;
  // Every 64 retries, as again() checks its deadline: has the trial stalled?
  return r.again() && ((r.count & 63u) != 0 || r.progressing());
}

// An intercepted intrinsic is about to run: count it, and stop the loop
// once its Retry gives up.  Outside a trial (no scope) it does nothing.
AS_HD AS_FI void intercepted_call(bool block_scope) {
  CallScope* s = current_call_scope();
  if (s != nullptr && !count_call(s, block_scope)) stop_loop(*s->retry);
}

// What an intercepted compare-and-swap does: run, or, its loop having
// given up on the device, return without swapping, reading as a success
// (the caller returns its `compare`) or, on every second release, as zero.
enum class CasCall { Run, ReleaseAsCompare, ReleaseAsZero };

// An intercepted compare-and-swap is about to run: counted like any call.
// A loop that gave up on the device is released rather than trapped: a trap
// takes the CUDA context, and with it the worker process and every trial
// running beside it, and costs about 0.35 s on an H100 before the host even
// learns of it.  The swap then returns its `compare` (a success, so a loop
// written the usual way ends), and if the loop calls again, zero: a loop
// that compares floats cannot see a NaN `compare` come back as equal, but
// takes the zero as its next compare and ends on the release after.  The
// op's Retry says it gave up, so the trial is a HANG all the same; a loop
// that still calls after kReleasesBeforeTrap releases is trapped.  On the
// host a stop throws, as for any call.
AS_HD AS_FI CasCall intercepted_cas_call(bool block_scope) {
  CallScope* s = current_call_scope();
  if (s == nullptr || count_call(s, block_scope)) return CasCall::Run;
  NV_IF_TARGET(NV_IS_HOST, (stop_loop(*s->retry);))
  if (++s->releases > kReleasesBeforeTrap) stop_loop(*s->retry);
  // From the second release the loop runs on a value it never supplied:
  // should that fault, the note says its loop had been stopped (a HANG).
  if (s->releases == 2) note_stop(*s->retry);
  return s->releases % 2 == 1 ? CasCall::ReleaseAsCompare : CasCall::ReleaseAsZero;
}

// An intercepted compare-and-swap found `value` in memory, or an intercepted
// load read it: its loop saw it (Retry::saw: a loop that keeps seeing its
// word change is live; of a value wider than eight bytes, its first eight).
template <class T>
AS_HD AS_FI void intercepted_saw(const T& value) {
  CallScope* s = current_call_scope();
  if (s == nullptr) return;
  uint64_t word = 0;
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(&value);
  for (unsigned i = 0; i < sizeof(T) && i < 8; ++i) word |= uint64_t(bytes[i]) << (8 * i);
  s->retry->saw(word);
}

// An intercepted load, store or wait (libcu++'s atomic_ref) is about to run:
// not a retry, but a loop of them is stopped at the trial's deadline (checked
// every 256 polls: a clock read per poll would slow a correct spin), unless
// the values its loads read kept changing (intercepted_saw): a fair lock's
// waiter whose queue moves is live, as a compare-and-swap loop is.
AS_HD AS_FI void intercepted_poll() {
  CallScope* s = current_call_scope();
  if (s == nullptr) return;
  if (s->polls == 0 && s->calls == 0) note_intercepted_call(s->retry->shared);
  if ((++s->polls & 255u) == 0 && !(s->retry->in_time() && s->retry->progressing())) stop_loop(*s->retry);
}

// Runs user code `f()` with `r` as its call scope.  Returns false when it
// was stopped (r.gave_up says why).
template <class F>
AS_HD AS_FI bool run_in_call_scope(Retry& r, F&& f) {
  CallScope scope{&r, 0};
  CallScope* const outer = current_call_scope();
  set_call_scope(&scope);
  bool finished = true;
  // On the device a stop either never returns (a trap) or released the loop
  // (intercepted_cas_call): then its Retry says it gave up.
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (f(); finished = r.gave_up == 0;),
                    (try { f(); } catch (const LoopStopped&) { finished = false; }))
  set_call_scope(outer);
  return finished;
}

}  // namespace prim
