#!/usr/bin/env bash
# atomstress_add_entry_tests under `ctest --output-junit`: a failing entry's
# <failure message> names its class (the FAIL_REGULAR_EXPRESSION per class,
# cmake/atomstressEntryTestsAdd.cmake), never ""; a correct entry passes.
# Usage: entry_tests_junit.sh PROGRAM SOURCE_DIR
set -u
program=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(entry_tests_junit NONE)
enable_testing()
add_executable(atomstress IMPORTED)
set_property(TARGET atomstress PROPERTY IMPORTED_LOCATION [==[$program]==])
include([==[$src/cmake/atomstressEntryTests.cmake]==])
foreach(impl buggy.returns_new.add.f32 buggy.plain_rmw.add.i32 native.add.i32)
  atomstress_add_entry_tests(atomstress PREFIX "t." IMPL \${impl} ARGS --backend cpu --trials 2)
endforeach()
CMAKE
cmake -S "$work" -B "$work/b" >/dev/null || { echo "entry_tests_junit: configure failed" >&2; exit 1; }
(cd "$work/b" && ctest --output-junit j.xml >/dev/null 2>&1)
xml=$(cat "$work/b/j.xml")
fail=0
expect() { grep -qE "$1" <<<"$xml" || { echo "entry_tests_junit: expected /$1/" >&2; fail=1; }; }
expect '<testcase name="t\.buggy\.returns_new\.add\.f32"[^>]*status="fail"'
expect '<failure message="Error regular expression found in output\. Regex=\[class: return-value\]"'
expect '<failure message="Error regular expression found in output\. Regex=\[class: atomicity\]"'
expect '<testcase name="t\.native\.add\.i32"[^>]*status="run"'
if grep -q 'message=""' <<<"$xml"; then echo "entry_tests_junit: an empty failure message" >&2; fail=1; fi
[ "$fail" -eq 0 ] || echo "$xml"
exit $fail
