// Bounded retries: every loop that can retry (CAS loops, spin locks) asks
// Retry::again() before each further attempt.  It gives up after `budget`
// retries, when another thread of the same trial already gave up (the shared
// abort flag), or when the trial's watchdog deadline has passed.  A loop that
// gives up returns at once; the runner reports the trial as a hang.  So no
// bug can hang a kernel.
//
// A compare-and-swap loop that keeps seeing its word change (Retry::saw) is
// live: every failed attempt of a correct loop is another op's success.  Past
// the deadline it may go on, kLiveStallNs at a time, up to live_cap_ns: a
// correct loop on one contended word slowed by stress or a shared GPU is
// slow, not stuck (a correct atomic_ref add of 210,180 ops under 217 stress
// blocks ran 1.4 s alone and was called a hang at its 5.2 s watchdog once in
// a fuzz run).  A loop whose word stands still (a wrong compare, a NaN that
// never compares equal) still gives up at the deadline.
//
// The stall watch (RetryShared::stall_ns; the host turns it on for a user's
// single atomic on the GPU with the automatic watchdog): every op that
// completes stamps the time (stamp_done), and a loop of the user's code
// that, running all along, sees no op of its trial complete for stall_ns
// gives up (6) long before the watchdog (Retry::progressing, called where
// intercepted calls retry and poll; not from check_stop, which every
// built-in loop inlines: there it took registers from every kernel).
// Progress of the whole trial, not of the loop's own word, is what it
// watches: a lock's waiter sees its word stand still while the lock passes
// among others, but each holder's op completes.
//
// A lock's waiter (Retry::lock_slot) is live the same way past its deadline
// while its lock passes among others: on the GPU each critical section
// stamps its lock's slot of the same words (stamp_slot), and a waiter whose
// slot was stamped within kLiveStallNs goes on as a live loop does.  A
// correct spin lock of 11,184 ops under 121 stress blocks needed about 2 s
// alone on an H200, and every run of it was a HANG ("the spin lock was never
// acquired") at its 1223 ms watchdog.
#pragma once

#include <atomic>
#include <cstdint>

#include "harness/prim/config.cuh"

#if !defined(__CUDA_ARCH__)
#include <chrono>
#include <ctime>
#include <thread>
#endif

namespace prim {

// The stall watch's completion stamps: one word for each of kDoneSlots
// groups of 32 ops (a warp's lanes write one word), 64 bytes apart.
inline constexpr uint32_t kDoneSlots = 16, kDoneStride = 8;

struct RetryShared {
  unsigned int abort_flag;  // set to 1 by the first loop that gives up
  // Host-mapped word where code that cannot return (an intercepted user loop
  // that gave up) leaves its reason before it traps: readable by the host
  // after the trap has poisoned the device context.  Null on the host.
  unsigned int* stop_note;
  // Set to 1 by the first intercepted block-scope intrinsic of the trial (a
  // user's code): the scope rule of the algorithm families reads it.
  unsigned int block_scope_calls;
  // The stall watch: how long no op may complete while a loop runs (0: off).
  uint64_t stall_ns;
  uint64_t done_ns[kDoneSlots * kDoneStride];  // the latest completions (now_ns)
  // Set to 1 by the first intercepted call of a user's code in the trial, on
  // the host only: a user's trial on the CPU backend that performed none ran
  // a host branch (NV_IF_TARGET, __CUDA_ARCH__), not the code the GPU runs.
  // Last, so the aggregate initialisers above leave it 0.
  unsigned int intercepted_calls;
};

// How long a loop that saw its word (or its queue) move may go on past its
// deadline before it must see it move again.
inline constexpr uint64_t kLiveStallNs = 1000000000ull;

struct Retry {
  uint32_t budget = 1u << 20;
  uint32_t count = 0;
  // 1: budget, 2: watchdog, 3: aborted by another thread, 4: waited in a
  // queue that kept moving past its allowance (algorithms/program.cuh), 5:
  // its word kept changing past the deadline and live_cap_ns.
  uint32_t gave_up = 0;
  uint32_t block_scope = 0;  // 1: a block-scope atomic was used (scope checked by the runner)
  uint32_t moved = 0;        // saw its word change since the last deadline check
  RetryShared* shared = nullptr;
  uint64_t deadline_ns = 0;  // 0: no deadline
  uint64_t live_cap_ns = 0;  // how far a live loop's deadline may move (0: not at all)
  uint64_t seen = 0;         // the word its last compare-and-swap returned
  // A lock's waiter: 1 + the slot of shared->done_ns its lock's critical
  // sections stamp (done_slot_of); 0: not a lock's waiter.
  uint32_t lock_slot = 0;
  // The stall watch: since when this loop has seen no op of its trial
  // complete, and when it last looked (0: not yet).
  uint64_t quiet_from = 0, watched_at = 0;

  AS_HD AS_FI bool again();
  // A compare-and-swap of the loop returned `word` (the value it found).
  AS_HD AS_FI void saw(uint64_t word) {
    moved |= word != seen ? 1u : 0u;
    seen = word;
  }
  // Past the deadline at `now`: a loop that saw its word change since the
  // last check gets kLiveStallNs more, never past live_cap_ns.
  AS_HD AS_FI bool still_live(uint64_t now);
  // Whether a loop that is not retrying (polling a value) may go on: false
  // once another thread gave up or the deadline passed (then gave_up says
  // so); past the deadline, a loop whose polled value moved since the last
  // check (saw) goes on as a live compare-and-swap loop does (a fair lock's
  // waiter watching its queue).
  AS_HD AS_FI bool in_time();
  // The checks every so many retries or polls: another thread gave up, or
  // the deadline passed and the loop is not live (sets gave_up).
  AS_HD AS_FI void check_stop();
  // The stall watch's check, where code that is not ours retries or polls
  // (prim/call_scope.cuh): false once the trial stalled (gave_up 6, the
  // other loops asked to stop) or the loop gave up already; true when not
  // watched.
  AS_HD AS_FI bool progressing();
  // The stall watch at `now`: gives up (6) once no op of the trial has
  // completed for shared->stall_ns while this loop kept checking.  A gap of
  // over a quarter of that between two checks (the loop was not running:
  // its context was switched out, or its retries are slow) starts the
  // window again, so time the loop did not run never counts.
  AS_HD AS_FI void watch_stall(uint64_t now);
};

// The workers of one CPU-backend trial, as a yield sees them.  A loaded host
// (CI's two busy cores) runs the workers one after another, each for a whole
// time slice, and a race between them never shows: a fuzz corpus's plain
// read-add-write race passed 10 runs of 10 and was called fixed.  So a yield
// waits, briefly, until another live worker has passed an interleaving point.
struct HostSchedule {
  std::atomic<uint32_t> live{0};     // workers still running their body
  std::atomic<uint32_t> waiting{0};  // workers waiting in a yield
  std::atomic<uint64_t> steps{0};    // interleaving points passed while one waited
};

// Host threads: the CPU backend sets a per-thread probability of yielding at
// interleaving points, so that races show up even on two cores.  (Host-only
// state: the one #if of this kind, since a device pass must not see a
// thread_local.)
#if !defined(__CUDA_ARCH__)
struct HostInterleave {
  uint32_t yield_permille = 0;
  uint64_t state = 0x9e3779b97f4a7c15ull;
  bool shared_space = false;  // the trial runs in (emulated) shared memory
  uint64_t cpu_start_ns = 0;  // this thread's CPU time when it started as a worker
  HostSchedule* schedule = nullptr;  // the trial's workers (none: a plain yield)
};
inline thread_local HostInterleave host_interleave;

inline uint64_t host_thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return uint64_t(t.tv_sec) * 1000000000ull + uint64_t(t.tv_nsec);
}

// A yield that hands over: it waits until another worker has stepped, all
// live workers wait, or kHandOverUs have passed (a worker may be blocked
// where it passes no interleaving point).  The CPU time spent waiting is not
// the code's: the watchdog (host_now_ns) does not count it.  The bound is a
// scheduler's time slice: on a loaded host the worker to hand over to waits
// milliseconds for a core, and with 500 us a CAS without retry went unseen
// in 64 trials beside two CPU hogs (the hand-overs ran out before it ran).
inline constexpr uint32_t kHandOverUs = 5000;
inline void host_hand_over() {
  HostSchedule* s = host_interleave.schedule;
  std::this_thread::yield();
  if (s == nullptr) return;
  const uint64_t cpu0 = host_thread_cpu_ns();
  const uint64_t seen = s->steps.load();
  s->waiting.fetch_add(1);
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kHandOverUs);
  while (s->steps.load() == seen && s->waiting.load() < s->live.load() && std::chrono::steady_clock::now() < until)
    std::this_thread::yield();
  s->waiting.fetch_sub(1);
  host_interleave.cpu_start_ns += host_thread_cpu_ns() - cpu0;
}

inline void host_interleave_point() {
  auto& h = host_interleave;
  if (h.yield_permille == 0) return;
  if (h.schedule != nullptr && h.schedule->waiting.load(std::memory_order_relaxed) != 0)
    h.schedule->steps.fetch_add(1, std::memory_order_relaxed);
  h.state ^= h.state << 13;
  h.state ^= h.state >> 7;
  h.state ^= h.state << 17;
  if (h.state % 1000 < h.yield_permille) host_hand_over();
}
// The CPU time this worker thread has run since it started: a loaded host
// that leaves a worker waiting for a core must not read as the code's hang
// (a correct ticket lock did on 2 busy cores), and other threads of the
// process (the judge of the previous trial) do not count.
inline uint64_t host_now_ns() { return host_thread_cpu_ns() - host_interleave.cpu_start_ns; }
#endif

// The calling host thread's interleaving settings (the CPU backend's workers
// call this as they start).
AS_HD AS_FI void set_host_interleave(uint32_t yield_permille, bool shared_space, uint64_t state) {
  NV_IF_ELSE_TARGET(NV_IS_HOST,
                    (host_interleave.yield_permille = yield_permille; host_interleave.shared_space = shared_space;
                     host_interleave.state = state; host_interleave.cpu_start_ns = host_thread_cpu_ns();),
                    ((void)yield_permille; (void)shared_space; (void)state;))
}

// The calling worker's trial (the CPU backend's workers call this as they
// start, and with null as they end).
AS_HD AS_FI void set_host_schedule(HostSchedule* schedule) {
  NV_IF_ELSE_TARGET(NV_IS_HOST, (host_interleave.schedule = schedule;), ((void)schedule;))
}

// A point where the CPU backend may yield to another host thread.
AS_HD AS_FI void interleave_point() { NV_IF_TARGET(NV_IS_HOST, (host_interleave_point();)) }

// Nanoseconds: %globaltimer on the device; on the host, the calling worker
// thread's CPU time since set_host_interleave (host_now_ns).
AS_HD AS_FI uint64_t now_ns() {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE,
                    (uint64_t t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;),
                    (return host_now_ns();))
}

// Relaxed read and set of the shared abort flag.
AS_HD AS_FI bool abort_requested(RetryShared* s) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return *reinterpret_cast<volatile unsigned int*>(&s->abort_flag) != 0;),
                    (return std::atomic_ref<unsigned int>(s->abort_flag).load(std::memory_order_relaxed) != 0;))
}
AS_HD AS_FI void request_abort(RetryShared* s) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (atomicExch(&s->abort_flag, 1u);),
                    (std::atomic_ref<unsigned int>(s->abort_flag).store(1u, std::memory_order_relaxed);))
}

AS_HD AS_FI bool Retry::still_live(uint64_t now) {
  if (moved == 0 || live_cap_ns <= now) return false;
  deadline_ns = now < live_cap_ns - kLiveStallNs ? now + kLiveStallNs : live_cap_ns;
  return true;
}

// Slot `slot`'s latest stamp.
AS_HD AS_FI uint64_t done_at(const RetryShared* s, uint32_t slot) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return *reinterpret_cast<const volatile uint64_t*>(&s->done_ns[slot * kDoneStride]);),
                    (return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(s->done_ns[slot * kDoneStride]))
                         .load(std::memory_order_relaxed);))
}
// The latest completion stamped in `s` (one load at a time: the scan is
// rare, and sixteen loads at once took registers from the loop).
AS_HD AS_FI uint64_t latest_done(const RetryShared* s) {
  uint64_t latest = 0;
#if defined(__CUDA_ARCH__)  // the device pass only: nvcc's host pass hands it to the host compiler
#pragma unroll 1
#endif
  for (uint32_t i = 0; i < kDoneSlots; ++i) {
    const uint64_t t = done_at(s, i);
    latest = t > latest ? t : latest;
  }
  return latest;
}
// A completion's stamp (device only: the host never watches).
AS_HD AS_FI void stamp_slot(RetryShared* s, uint32_t slot) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (*reinterpret_cast<volatile uint64_t*>(&s->done_ns[slot * kDoneStride]) = now_ns();),
                    ((void)s; (void)slot;))
}
AS_HD AS_FI void stamp_done(RetryShared* s, uint64_t op) { stamp_slot(s, uint32_t((op >> 5) % kDoneSlots)); }
// The slot a lock's critical sections stamp (lock `key`).
AS_HD AS_FI uint32_t done_slot_of(uint64_t key) { return uint32_t(key % kDoneSlots); }

AS_HD AS_FI void Retry::watch_stall(uint64_t now) {
  const uint64_t window = shared->stall_ns;
  if (watched_at == 0 || now - watched_at > window / 4) quiet_from = now;
  watched_at = now;
  if (int64_t(now - quiet_from) < int64_t(window)) return;
  const uint64_t latest = latest_done(shared);
  // An op completed after the window began: watch from there (a stamp from
  // another SM may read a little ahead of this one's clock).
  if (int64_t(latest - quiet_from) > 0) quiet_from = latest;
  else gave_up = 6;
}

AS_HD AS_FI void Retry::check_stop() {
  // A loop that gave up keeps its reason: a released user loop that calls
  // again must not turn into one stopped by another (its own request).
  if (gave_up == 0 && shared != nullptr && abort_requested(shared)) gave_up = 3;
  if (gave_up == 0 && deadline_ns != 0) {
    const uint64_t now = now_ns();
    // A lock's waiter whose lock passed within kLiveStallNs saw it move.
    if (now > deadline_ns && lock_slot != 0 && shared != nullptr) {
      const uint64_t passed = done_at(shared, lock_slot - 1);
      if (passed != 0 && int64_t(now - passed) < int64_t(kLiveStallNs)) moved = 1;
    }
    // Still moving at the cap: too slow, not shown stuck (5).
    if (now > deadline_ns && !still_live(now)) gave_up = moved != 0 && live_cap_ns != 0 ? 5 : 2;
  }
  moved = 0;
}

AS_HD AS_FI bool Retry::progressing() {
  if (shared == nullptr || shared->stall_ns == 0 || gave_up != 0) return gave_up == 0;
  watch_stall(now_ns());
  if (gave_up == 0) return true;
  request_abort(shared);
  return false;
}

AS_HD AS_FI bool Retry::again() {
  ++count;
  if (count > budget) {
    gave_up = 1;
  } else if ((count & 63u) == 0) {
    check_stop();
  }
  if (gave_up != 0) {
    if (shared != nullptr && gave_up != 3) request_abort(shared);
    return false;
  }
  interleave_point();
  return true;
}

AS_HD AS_FI bool Retry::in_time() {
  if (gave_up == 0) check_stop();
  if (gave_up != 0) {
    if (shared != nullptr && gave_up != 3) request_abort(shared);
    return false;
  }
  interleave_point();
  return true;
}

// A deadline `ms` milliseconds after `now`, saturating instead of wrapping
// into the past.
AS_HD AS_FI uint64_t deadline_after_ms(uint64_t now, uint64_t ms) {
  const uint64_t ns = ms > UINT64_MAX / 1000000u ? UINT64_MAX : ms * 1000000u;
  return now > UINT64_MAX - ns ? UINT64_MAX : now + ns;
}

}  // namespace prim

namespace prim {
// The SM's cycle counter (0 on the host), and a compiler barrier that makes a
// later clock read wait for `v`.
AS_HD AS_FI long long clock_cycles() { NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return clock64();), (return 0;)) }
AS_HD AS_FI void order_after(uint64_t v) {
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (asm volatile("" ::"l"(v));), ((void)v;))
}
}  // namespace prim
