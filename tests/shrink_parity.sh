#!/usr/bin/env bash
# fuzz shrinks a built-in bug as far as check does (issue 27): the shrunk
# case of each deterministic bug the CPU shows has the same op count in both.
# Usage: shrink_parity.sh <atomstress program>
set -uo pipefail
prog=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bugs=buggy.returns_new.add.f32,buggy.inc_gt.u32,buggy.drops_nan.max.f32,buggy.dec_no_above.u32,buggy.ge_zero.intorder.max.f32,buggy.narrowed.max.f64,buggy.clobber.add.u16,buggy.block_scope.add.i32
"$prog" check --impl "$bugs" --backend cpu --trials 3 --json "$work/check.jsonl" >/dev/null 2>&1
"$prog" fuzz --impl "$bugs" --backend cpu --time 30s --json "$work/fuzz.jsonl" >/dev/null 2>&1
fail=0
for b in ${bugs//,/ }; do
  c=$(grep "\"record\":\"shrunk\"" "$work/check.jsonl" | grep "\"impl\":\"$b\"" | grep -oE '"ops":[0-9]+' | head -1 | cut -d: -f2)
  f=$(grep "\"record\":\"entry\"" "$work/fuzz.jsonl" | grep "\"impl\":\"$b\"" | grep -oE '\(([0-9]+) ops\)' | head -1 | tr -dc 0-9)
  echo "$b: check $c ops, fuzz $f ops"
  [ -n "$c" ] && [ -n "$f" ] && [ "$c" = "$f" ] || { echo "shrink_parity: $b shrinks to ${c:-?} ops in check, ${f:-?} in fuzz" >&2; fail=1; }
done
exit $fail
