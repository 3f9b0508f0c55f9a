#!/usr/bin/env bash
# A user's suite built with CMake's default generator on fresh folders,
# serial and parallel, against atomstress installed to a temporary prefix;
# then its entry checked on the cpu backend (the host probe ran first: it
# is host-callable).
# Usage: default_generator.sh <atomstress build dir> <atomstress source dir>
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
for jobs in 1 2; do
  # No -G: whatever CMake picks when the user names none (Unix Makefiles here).
  env -u CMAKE_GENERATOR cmake -S "$src/tests/default_generator" -B "$work/build-$jobs" \
    -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
  grep -q 'CMAKE_GENERATOR:INTERNAL=Unix Makefiles' "$work/build-$jobs/CMakeCache.txt" \
    || echo "default_generator: note: the default generator here is not Unix Makefiles"
  cmake --build "$work/build-$jobs" -j "$jobs" > "$work/build-$jobs.log" 2>&1 \
    || { tail -20 "$work/build-$jobs.log"; echo "default_generator: the first build with -j $jobs failed" >&2; exit 1; }
done
out=$("$work/build-2/default_generator_suite" check --impl lib.max.f32 --backend cpu --trials 4 2>&1)
echo "$out"
grep -qE '^PASS +lib\.max\.f32 ' <<<"$out" || { echo "default_generator: lib.max.f32 did not pass" >&2; exit 1; }
