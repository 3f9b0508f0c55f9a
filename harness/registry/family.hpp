// An algorithm family (or the family of single atomics) as a plug-in: what a
// trial of it means (its patterns, caps, the arrays derived from the
// workload), its oracle, and its spec text, behind one interface.  The
// registry only holds a pointer; harness/check/families/ implements each one
// and registers it by name, and each form names its family.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "atomics_under_test/spec.cuh"
#include "harness/registry/value_kind.hpp"
#include "harness/trial/validate.hpp"

namespace atomstress {

struct Entry;
struct Workload;
struct Setup;
struct History;
struct Finding;

class Family {
 public:
  virtual ~Family() = default;
  virtual const char* name() const = 0;
  // Trial rules of the entries in this family (forms may add caps).
  virtual uint32_t pattern_mask() const { return kAllPatterns; }
  virtual const char* pattern_rule() const { return ""; }
  virtual bool shared_space_ok() const { return false; }
  // Generation caps (Constraints): the largest region in bytes of a trial of
  // `entry`, and the most ops of any trial of the family; 0: none.
  virtual uint64_t max_region_bytes(const Entry& entry) const { return 0; }
  virtual uint64_t max_ops() const { return 0; }
  // The values a trial of `entry` draws (kind and domain).
  virtual VK value_kind(const Entry& entry) const;
  virtual Domain value_domain(const Entry& entry) const;
  // What a trial of `ops` ops may spend in a user's host code inside the
  // trial, which no watchdog bounds (a kernel entry's property: its
  // generation and oracle); the isolated trial's deadline adds it
  // (pipeline/isolated.hpp trial_deadline).  0: none.
  virtual uint64_t host_code_ms(uint64_t ops) const { return 0; }
  // How much longer than the trial's watchdog (`watchdog_ms`) a loop of
  // `entry` that sees its queue or its compare-and-swap's word keep moving
  // may go on (a fair lock's FIFO, or one contended word, is handed on
  // slowly under stress, yet is not stuck); the trial's host deadlines add
  // it, so code that never returns is killed that much later too.  0: none.
  // One watchdog by default.
  virtual uint64_t queue_wait_ms(const Entry& entry, uint64_t watchdog_ms) const { return watchdog_ms; }
  // What a bounded loop that gave up means in this family, in words.
  virtual const char* hang_cause() const { return "the loop does not terminate"; }
  // A live loop still moving at its allowance (GaveUp::WordKeptMoving), in
  // words: what it was doing, and what it saw until then.
  struct LiveWait {
    const char* doing;
    const char* seen;
  };
  virtual LiveWait live_wait() const {
    return {"retrying on a word that kept changing", "other ops were changing the word until then, so"};
  }
  // Whether hot addresses (ops, retries, cycles per element) mean something.
  virtual bool profiles_addresses() const { return false; }
  // The arrays of a trial; a one-line `error` for a geometry the form cannot run.
  virtual std::optional<Setup> setup(const Workload& w, std::string& error) const = 0;
  // The oracle: a finding whose kind is None when the history is explained.
  virtual Finding check(const Workload& w, const Setup& s, const History& h) const = 0;
  // With two blocks or more: whether the atomic calls of two blocks can
  // reach one global word in this trial (an algorithm's scope rule: a
  // block-scope atomic there races).  By default every block's calls reach
  // the form's one target (an append's counter, an argmax's best).
  virtual bool atomic_targets_shared(const Workload&, const Setup&) const { return true; }
  // The spec, in words, of an entry of this family built on `atomic`.
  virtual Semantics semantics(const Entry& entry, const Entry& atomic) const = 0;
};

// Families register themselves by name (from their own translation unit).
void register_family(const Family& f);
const Family* find_family(const char* name);

}  // namespace atomstress
