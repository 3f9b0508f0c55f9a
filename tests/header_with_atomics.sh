#!/usr/bin/env bash
# The README's "I have a header with atomics" as a newcomer follows it:
# examples/header_with_atomics/ built against atomstress installed to a
# temporary prefix with CMake's default generator (no -G), on fresh folders,
# serial and parallel (a first build once failed there, "No rule to make
# target ...probe.cu.o", while Ninja built it); then the verdicts and list -v
# lines the README shows, on the cpu backend.
# Usage: header_with_atomics.sh <atomstress build dir> <atomstress source dir>
source "$(dirname "$0")/installed_package.sh" "$@"
for jobs in 1 2; do
  # No -G: whatever CMake picks when the user names none (Unix Makefiles here).
  env -u CMAKE_GENERATOR cmake -S "$src/examples/header_with_atomics" -B "$work/build-$jobs" \
    -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
  grep -q 'CMAKE_GENERATOR:INTERNAL=Unix Makefiles' "$work/build-$jobs/CMakeCache.txt" \
    || echo "header_with_atomics: note: the default generator here is not Unix Makefiles"
  cmake --build "$work/build-$jobs" -j "$jobs" > "$work/build-$jobs.log" 2>&1 \
    || { tail -20 "$work/build-$jobs.log"; echo "header_with_atomics: the first build with -j $jobs failed" >&2; exit 1; }
done
suite="$work/build-2/mylib_stress"
fail=0
list=$("$suite" list -v --impl 'mylib.*')
echo "$list"
section() { awk -v e="$1" '$1 == e {on = 1; print; next} on && /^[^ ]/ {on = 0} on' <<<"$list"; }
section mylib.max.f32 | grep -q "spec:        cas.max.f32" || { echo "header_with_atomics: mylib.max.f32 is not registered against cas.max.f32" >&2; fail=1; }
section mylib.min_nan_sticky.f32 | grep -q "spec:        its own (ATOMSTRESS_ATOMIC_SPEC)" \
  || { echo "header_with_atomics: mylib.min_nan_sticky.f32 does not show its own spec" >&2; fail=1; }
section mylib.min_nan_sticky.f32 | grep -q "NaN:         a NaN wins and stays" \
  || { echo "header_with_atomics: the own spec's NaN rule is not listed" >&2; fail=1; }
section mylib.add_noret.f64 | grep -q "returns:     nothing (a void update)" \
  || { echo "header_with_atomics: mylib.add_noret.f64 is not a void update" >&2; fail=1; }
section mylib.histogram | grep -q "gpu only" || { echo "header_with_atomics: the kernel is not gpu only" >&2; fail=1; }
set +e
out=$("$suite" check --impl 'mylib.*' --backend cpu --trials 4 2>&1)
status=$?
set -e
echo "$out"
for e in mylib.max.f32 mylib.min_nan_sticky.f32 mylib.add_noret.f64; do
  grep -qE "^PASS +$e " <<<"$out" || { echo "header_with_atomics: $e did not pass" >&2; fail=1; }
done
grep -qE "^SKIP +mylib\.histogram " <<<"$out" || { echo "header_with_atomics: the kernel is not a SKIP on the cpu backend" >&2; fail=1; }
[ "$status" -eq 0 ] || { echo "header_with_atomics: check exited $status" >&2; fail=1; }
# The special values (NaNs, signed zeros, subnormals) the own spec speaks of.
special=$("$suite" check --impl mylib.min_nan_sticky.f32 --backend cpu --special 500 --trials 4 2>&1) \
  || { echo "$special"; echo "header_with_atomics: the sticky-NaN min fails with special values" >&2; fail=1; }
exit "$fail"
