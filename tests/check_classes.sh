#!/usr/bin/env bash
# Every built-in bug the CPU can show gets its class (issue 27): on the
# verdict line, in check's JSON records, and in selftest's table.
# Usage: check_classes.sh <atomstress program>
set -uo pipefail
prog=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
declare -A want=(
  [buggy.plain_rmw.add.i32]=atomicity [buggy.returns_new.add.f32]=return-value [buggy.float_compare.add.f32]=hang
  [buggy.ge_zero.intorder.max.f32]=semantics [buggy.drops_nan.max.f32]=semantics [buggy.narrowed.max.f64]=semantics
  [buggy.inc_gt.u32]=semantics [buggy.dec_no_above.u32]=semantics [buggy.block_scope.add.i32]=scope
  [buggy.exch_store.add.i32]=atomicity [buggy.clobber.add.u16]=neighbour [buggy.stale_read.add.i32]=hang
  [buggy.argmax.tie_any@native.cas.u64]=semantics)
impls=$(IFS=,; echo "${!want[*]}")
out=$("$prog" check --impl "$impls" --backend cpu --trials 3 --json "$work/check.jsonl" 2>&1)
echo "$out"
for e in "${!want[@]}"; do
  grep -qE "^(FAIL|HANG|CRASH) +${e//./\\.} .*\[${want[$e]}\]$" <<<"$out" \
    || { echo "check_classes: $e is not classed ${want[$e]} on its verdict line" >&2; fail=1; }
  grep -q "\"impl\":\"$e\".*\"class\":\"${want[$e]}\"\|\"class\":\"${want[$e]}\".*\"impl\":\"$e\"" "$work/check.jsonl" \
    || { echo "check_classes: no JSON record of $e with class ${want[$e]}" >&2; fail=1; }
done
# selftest's table has the class column; each caught bug's class as above.
st=$("$prog" selftest --backend cpu --bugs 'buggy.returns_new.add.f32' --budget-s 2 --correct-specs 1 --algo-specs 1 2>&1)
echo "$st"
grep -qE "^implementation +caught +how +class " <<<"$st" || { echo "check_classes: selftest has no class column" >&2; fail=1; }
grep -qE "^buggy\.returns_new\.add\.f32 +yes +FAIL +return-value " <<<"$st" \
  || { echo "check_classes: selftest does not class buggy.returns_new.add.f32 return-value" >&2; fail=1; }
exit $fail
