// The class of a failure (check/finding.hpp FailureClass), decided the way
// docs/diagnosing.md says: what the oracle found (a hang, a crash, the scope rule),
// what the entry is (a weak-memory bug), and otherwise the failing case
// replayed alone (RunOptions::policy.sequential: its ops one at a time in program
// order, on the same backend, isolated as the run is).  Wrong alone: a
// `semantics` or `return-value` bug (or `neighbour`), told as the op that
// went wrong with its operands, and which semantics the code implements
// instead; right alone: `atomicity`.
#pragma once

#include "harness/backend/backend.hpp"
#include "harness/check/finding.hpp"
#include "harness/pipeline/run_trial.hpp"

namespace atomstress {

Diagnosis diagnose(const TrialSpec& failing, Verdict verdict, const Finding& finding, BackendKind backend,
                   const RunOptions& opt);

}  // namespace atomstress
