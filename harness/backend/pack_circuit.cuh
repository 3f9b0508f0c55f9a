// The checker's verdict (check/checker.hpp) on one small history, for a
// packed instance judged on the device: at every word, the ops' edges
// from -> to plus a closing edge final -> init must form an Eulerian circuit
// (every state balanced, every edge in one weakly connected component).
//
// It runs on a block's threads, the lanes (cuda/packed_judge.cu: one block
// an instance, so a launch's instances need no sort of the launch's edges
// and no trip to the host between steps), and on the host (tests, against
// the host's checker: lanes taking turns).  Each step is a loop over lanes
// whose writes are atomic or disjoint; the caller separates the steps (a
// barrier on the device).
//
// Vertices are the slots of an open-addressing table keyed by (word, state):
// the first endpoint to claim a slot owns it, and later endpoints with the
// same key find it there.  Components are a union-find over those slots
// whose unions hook the larger root under the smaller with a compare-and-
// swap, so lanes may join at once.  Every loop is bounded by the slots.
#pragma once

#include <cstdint>

#include "harness/prim/config.cuh"

namespace atomstress::pack_circuit {

inline constexpr uint32_t kEmpty = 0xffffffffu;

// One instance's edges, its own words numbered from 0; states canonical.
struct Edges {
  uint64_t ops = 0;
  uint32_t words = 0;
  const uint32_t* word = nullptr;               // per op, < words
  const uint64_t *from = nullptr, *to = nullptr;  // per op
  const uint64_t *init = nullptr, *final_state = nullptr;  // per word
};

// Per instance: slots(ops, words) of each slot array, 2 (ops + words) of
// vertex (one an endpoint).  At most half the slots are ever taken.
struct Scratch {
  uint32_t* owner = nullptr;   // per slot: the endpoint that claimed it, or kEmpty
  uint32_t* parent = nullptr;  // per slot: union-find
  int32_t* balance = nullptr;  // per slot: edges out minus edges in
  uint32_t* vertex = nullptr;  // per endpoint: its slot
  uint32_t slots = 0;
};

AS_HD inline uint64_t endpoints(uint64_t ops, uint64_t words) { return 2 * (ops + words); }
AS_HD inline uint64_t slots(uint64_t ops, uint64_t words) { return 2 * endpoints(ops, words); }

// Endpoint k: op k/2's from (k even) or to (k odd); past the ops, word
// (k - 2 ops)/2's closing edge, from its final state to its initial one.
AS_HD inline uint32_t endpoint_word(const Edges& e, uint64_t k) {
  return k < 2 * e.ops ? e.word[k / 2] : uint32_t((k - 2 * e.ops) / 2);
}
AS_HD inline uint64_t endpoint_state(const Edges& e, uint64_t k) {
  if (k < 2 * e.ops) return (k & 1) ? e.to[k / 2] : e.from[k / 2];
  const uint64_t w = (k - 2 * e.ops) / 2;
  return (k & 1) ? e.init[w] : e.final_state[w];
}

namespace detail {

AS_HD inline uint32_t cas(uint32_t* p, uint32_t expected, uint32_t desired) {
#ifdef __CUDA_ARCH__
  return atomicCAS(p, expected, desired);
#else
  const uint32_t seen = *p;  // one lane on the host
  if (seen == expected) *p = desired;
  return seen;
#endif
}
AS_HD inline void add(int32_t* p, int32_t v) {
#ifdef __CUDA_ARCH__
  atomicAdd(p, v);
#else
  *p += v;
#endif
}
// A slot's parent as another lane may just have hooked it.
AS_HD inline uint32_t load(const uint32_t* p) { return *static_cast<const volatile uint32_t*>(p); }

AS_HD inline uint32_t home(uint32_t word, uint64_t state, uint32_t slots) {
  uint64_t z = state ^ (uint64_t(word) * 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ull;
  return uint32_t((z ^ (z >> 29)) % slots);
}

// The root of slot x; kEmpty past `slots` steps (a broken table).
AS_HD inline uint32_t find(const Scratch& s, uint32_t x) {
  for (uint32_t step = 0; step <= s.slots; ++step) {
    const uint32_t p = load(s.parent + x);
    if (p == x) return x;
    x = p;
  }
  return kEmpty;
}

}  // namespace detail

// Step 1: every slot empty, its own root, balanced.
AS_HD inline void clear(const Scratch& s, uint32_t lane, uint32_t lanes) {
  for (uint32_t i = lane; i < s.slots; i += lanes) {
    s.owner[i] = kEmpty;
    s.parent[i] = i;
    s.balance[i] = 0;
  }
}

// Step 2: each endpoint's slot, claimed or found, and its balance counted.
// False: the table is full (not with slots(ops, words) slots).
AS_HD inline bool place(const Edges& e, const Scratch& s, uint32_t lane, uint32_t lanes) {
  const uint64_t n = endpoints(e.ops, e.words);
  for (uint64_t k = lane; k < n; k += lanes) {
    const uint32_t word = endpoint_word(e, k);
    const uint64_t state = endpoint_state(e, k);
    uint32_t slot = detail::home(word, state, s.slots), probes = 0;
    for (;; slot = (slot + 1 == s.slots) ? 0 : slot + 1) {
      if (++probes > s.slots) return false;
      uint32_t held = detail::load(s.owner + slot);
      if (held == kEmpty) held = detail::cas(s.owner + slot, kEmpty, uint32_t(k));
      if (held == kEmpty) break;  // claimed
      if (endpoint_word(e, held) == word && endpoint_state(e, held) == state) break;  // found
    }
    s.vertex[k] = slot;
    detail::add(s.balance + slot, (k & 1) ? -1 : 1);
  }
  return true;
}

// Step 3: each edge's two vertices in one component.  False: a bound was
// passed (a broken table).
AS_HD inline bool join(const Edges& e, const Scratch& s, uint32_t lane, uint32_t lanes) {
  const uint64_t edges = e.ops + e.words;
  for (uint64_t i = lane; i < edges; i += lanes) {
    uint32_t a = s.vertex[2 * i], b = s.vertex[2 * i + 1];
    for (uint32_t tries = 0;; ++tries) {
      if (tries > s.slots) return false;  // each failed hook is another lane's success
      a = detail::find(s, a);
      b = detail::find(s, b);
      if (a == kEmpty || b == kEmpty) return false;
      if (a == b) break;
      if (a < b) {
        const uint32_t t = a;
        a = b;
        b = t;
      }
      if (detail::cas(s.parent + a, a, b) == a) break;  // the larger root hooked under the smaller
    }
  }
  return true;
}

// Step 4: whether some endpoint's vertex is unbalanced or apart from its
// word's closing edge.
AS_HD inline bool any_unexplained(const Edges& e, const Scratch& s, uint32_t lane, uint32_t lanes) {
  const uint64_t n = endpoints(e.ops, e.words);
  bool bad = false;
  for (uint64_t k = lane; k < n && !bad; k += lanes) {
    const uint32_t v = s.vertex[k];
    const uint32_t closing = s.vertex[2 * (e.ops + endpoint_word(e, k))];
    bad = s.balance[v] != 0 || detail::find(s, v) != detail::find(s, closing);
  }
  return bad;
}

}  // namespace atomstress::pack_circuit
