#!/usr/bin/env bash
# A project that takes atomstress with FetchContent (as add_subdirectory
# does): it must configure and generate, with atomstress_add_suite and
# atomstress_add_entry_tests working from the consumer's directory.  Only
# configured (building it is byo_example's job, from the installed package).
# Usage: fetchcontent_configure.sh <atomstress source dir>
set -euo pipefail
src=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$src/examples/byo/my_atomics.cu" "$work/"
cat > "$work/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
set(CMAKE_CUDA_ARCHITECTURES 90)
project(fetchcontent_consumer LANGUAGES CXX CUDA)
include(FetchContent)
FetchContent_Declare(atomstress SOURCE_DIR "$src")
FetchContent_MakeAvailable(atomstress)
atomstress_add_suite(fc_stress SOURCES my_atomics.cu)
enable_testing()
atomstress_add_entry_tests(fc_stress IMPL "mylib.*" ARGS --backend cpu --trials 2)
CMAKE
cmake -S "$work" -B "$work/build" -G Ninja > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
# Tests and benchmarks are atomstress's own business: off for a consumer.
if grep -q "atomstress_tests" "$work/build/build.ninja"; then echo "consumer builds atomstress's tests" >&2; exit 1; fi
grep -q "fc_stress" "$work/build/build.ninja" || { echo "no fc_stress target" >&2; exit 1; }
script=$(sed -n 's/^include(\[==\[\(.*\)\]==\])$/\1/p' "$work"/build/*_entry_tests.cmake)
[ -f "$script" ] || { echo "entry tests include '$script', which does not exist" >&2; exit 1; }
echo "FetchContent consumer configured; entry tests script: $script"
