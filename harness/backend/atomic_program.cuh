// A single atomic as a trial program, for the two runners: on the device each
// thread performs its ops in order (in shared memory when the trial says so,
// copying its block's region in and out), timing each call; on the host each
// virtual thread's op is one call (the CPU runner interleaves them).
#pragma once

#include <cstdint>

#include "atomics_under_test/algorithms/program.cuh"

namespace atomstress {

template <class A>
struct AtomicProgram {
  using M = typename A::T;
  static constexpr bool thread_scheduled = true;  // host: virtual threads, not blocks
  static constexpr bool records_cycles = true;
  static constexpr bool resident_capable = true;  // cuda: may expand and check on the device (resident.hpp)
  static constexpr uint64_t host_stream = 99;     // the CPU runner's yield stream
  static constexpr const char* name = A::name;

  // One op, as the host runs it.
  AS_HD AS_FI static void op(const Args& g, M* base, uint64_t o) {
    prim::Retry r = make_retry(g);
    const M ov = A{}(base + g.key[o], prim::from_bits<M>(g.x[o]), prim::from_bits<M>(g.y[o]), r);
    g.old[o] = prim::to_bits(ov);
    g.retries[o] = r.count;
    g.gave[o] = static_cast<uint8_t>(r.gave_up | (r.block_scope ? kBlockScopeBit : 0u));
  }

  // Op o on the device, on `target`: the call timed, its result recorded
  // (the packed runner calls it too: cuda/packed_program.cuh).
  AS_HD AS_FI static void device_op(const Args& g, M* target, uint64_t o) {
    prim::Retry r = make_retry(g);
    const M av = prim::from_bits<M>(g.x[o]), bv = prim::from_bits<M>(g.y[o]);
    const long long c0 = prim::clock_cycles();
    const M ov = A{}(target, av, bv, r);
    const uint64_t ob = prim::to_bits(ov);
    prim::order_after(ob);  // the clock read below waits for the result
    const long long c1 = prim::clock_cycles();
    if (g.cycles) g.cycles[o] = static_cast<uint32_t>(c1 - c0);
    record(g, o, ob, r);  // nothing when timing only (g.old null)
    // Progress for the stall watch: an op that gave up did not complete.
    if (g.stall_watch != 0 && r.gave_up == 0) prim::stamp_done(g.rs, o);
  }

  // A block, as the device runs it.
  template <class Ctx>
  AS_HD static void run(Ctx& c, const Args& g) {
    M* mem = static_cast<M*>(g.mem);
    M* s = reinterpret_cast<M*>(c.smem);
    const uint64_t region_off = g.shared ? uint64_t(c.bid()) * g.region_elems : 0;
    if (g.shared) {
      c.each([&](uint32_t t) {
        for (uint32_t e = t; e < g.region_elems; e += g.block) s[e] = mem[region_off + e];
      });
      c.sync();
    }
    c.each([&](uint32_t t) {
      const uint64_t tid = uint64_t(c.bid()) * g.block + t;
      for (uint32_t k = 0; k < g.per_thread; ++k) {
        const uint64_t o = uint64_t(k) * g.threads + tid;
        // Addresses are global element indices; in shared memory, the block's copy.
        device_op(g, g.shared ? s + (g.key[o] - region_off) : mem + g.key[o], o);
      }
    });
    if (g.shared) {
      c.sync();
      c.each([&](uint32_t t) {
        for (uint32_t e = t; e < g.region_elems; e += g.block) mem[region_off + e] = s[e];
      });
    }
  }
};

}  // namespace atomstress
