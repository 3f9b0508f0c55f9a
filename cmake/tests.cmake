# The test suite, registered with paths relative to the binary folder so that
# the device bundle (.ci/device-bundle) can replay it on the GPU machine.
# Tests that need a GPU exit 77 where there is none: CTest reports them as
# skipped, never as passed.

# Unit tests one CTest case each (read from the binaries when ctest runs, so
# the device bundle re-reads them there), for `ctest --output-junit`.
include(GoogleTest)
gtest_discover_tests(atomstress_tests TEST_PREFIX "unit." DISCOVERY_MODE PRE_TEST)

add_test(NAME gpu COMMAND atomstress_gpu_tests)
set_tests_properties(gpu PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu)

# The GPU checker against the CPU checker and a brute-force search.
add_test(NAME gpu_checker COMMAND atomstress_gpu_checker_tests)
set_tests_properties(gpu_checker PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu)

# Packs judged on the GPU against packs judged on the host: the same verdicts
# over the packable catalogue and the buggy entries.
add_test(NAME gpu_pack_judging COMMAND atomstress_gpu_pack_judging_tests)
set_tests_properties(gpu_pack_judging PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu)

# End to end on the CPU backend: the whole catalogue, every pattern, both
# memory spaces, a small geometry.
atomstress_add_entry_tests(atomstress PREFIX "e2e_cpu." ARGS --backend cpu --trials 2 --grid 3 --block 40
                                                              --ops-per-thread 3)

# End to end on the GPU: the default geometry (twice the SM count x 256).
add_test(NAME e2e_check_cuda
  COMMAND atomstress check --all --backend cuda --skip-without-gpu --trials 3 --profile 3)
set_tests_properties(e2e_check_cuda PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu)

# The property campaign on the CPU backend: every bug a CPU can show must be
# caught, the correct catalogue must show no false failure.
add_test(NAME selftest_cpu
  COMMAND atomstress selftest --backend cpu --budget-s 2 --correct-specs 500)

# The same on the GPU (10 s per bug, 10,000 correct specs).
add_test(NAME selftest_cuda COMMAND atomstress selftest --backend cuda --skip-without-gpu)
set_tests_properties(selftest_cuda PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu)

# The catalogue's other scopes and calls (atomics_under_test/native_scopes.cuh):
# system scope is stated and keeps the forms a device-scope atomic fits;
# libcu++'s float max is gpu only, and says why.  On the GPU they meet their
# specs with half their operands special (NaN, zeros, subnormals, limits).
add_test(NAME catalogue_scopes_list
  COMMAND atomstress list -v --impl "libcu.max.f32,native.add_system.u32,sum.block@native.add_system.u32")
set_tests_properties(catalogue_scopes_list PROPERTIES
  PASS_REGULAR_EXPRESSION "libcu\\.max\\.f32 .*gpu only \\(libcu\\+\\+'s host fetch_max/fetch_min is other code.*native\\.add_system\\.u32 .*scope: +system.*sum\\.block@native\\.add_system\\.u32")
# The native group registers from three units in one listing order
# (native_listing.cuh): integers, floats and the other scopes interleave.
add_test(NAME catalogue_native_order COMMAND atomstress list --impl "native.*")
set_tests_properties(catalogue_native_order PROPERTIES
  PASS_REGULAR_EXPRESSION "^native\\.add\\.i32 [^\n]*\nnative\\.add\\.u32 [^\n]*\nnative\\.add\\.i64 [^\n]*\nnative\\.add\\.u64 [^\n]*\nnative\\.add\\.f32 .*native\\.add\\.bf16 [^\n]*\nnative\\.sub\\.i32 .*native\\.exch\\.u64 [^\n]*\nnative\\.exch\\.f32 [^\n]*\nnative\\.min\\.i32 .*native\\.add_block\\.i32 [^\n]*\nnative\\.add_system\\.u32 ")
add_test(NAME catalogue_scopes_cuda
  COMMAND atomstress check --impl "native.add.i64,native.*_system.*,builtin.*,libcu.*,*@native.add_system.u32"
          --backend cuda --skip-without-gpu --trials 40 --special 500)
set_tests_properties(catalogue_scopes_cuda PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu
  FAIL_REGULAR_EXPRESSION "FAIL|HANG|CRASH|ERROR")

# An entry from a unit outside atomics_under_test/ joins list and check, and
# the forms it fits are paired with it by themselves.
add_test(NAME outside_entry_list COMMAND atomstress_outside_entry list --impl "*outside.*")
set_tests_properties(outside_entry_list PROPERTIES
  PASS_REGULAR_EXPRESSION "outside\\.add\\.u32 +u32 +old \\+ a.*sum\\.block@outside\\.add\\.u32 +algorithm on outside\\.add\\.u32")
add_test(NAME outside_entry_check
  COMMAND atomstress_outside_entry check --impl "outside.add.u32,sum.block@outside.add.u32,hist.global@outside.add.u32"
          --backend cpu --trials 2 --grid 3 --block 40 --ops-per-thread 3)
set_tests_properties(outside_entry_check PROPERTIES
  PASS_REGULAR_EXPRESSION "PASS  outside\\.add\\.u32 .*PASS  sum\\.block@outside\\.add\\.u32 .*PASS  hist\\.global@outside\\.add\\.u32"
  FAIL_REGULAR_EXPRESSION "FAIL|HANG|ERROR")

# Isolated trials (tests/test_isolation.cpp): the Outcome's JSON round trip,
# the supervised worker process, and on the CPU backend an entry that never
# ends (HANG) and one that kills its process (CRASH), each one verdict in a
# run that goes on (check, repro, fuzz).
gtest_discover_tests(atomstress_isolation_tests TEST_PREFIX "isolation." DISCOVERY_MODE PRE_TEST)

# The same on the GPU: a kernel that outlives its watchdog (HANG), one that
# stores to an illegal address (CRASH), then a correct entry that passes in
# the same run (the GPU still usable).  The pattern is pinned: a CAS add of
# 2 x SMs x 1024 ops on one word takes seconds on an H100, past the short
# watchdog that keeps this test quick.
add_test(NAME isolation_cuda
  COMMAND atomstress_outside_entry check --impl "test.spin.forever.u32,test.fault.u32,outside.add.u32"
          --backend cuda --skip-without-gpu --trials 1 --watchdog-ms 1000 --pattern uniform --k 4096 --no-shrink
          --space global)
set_tests_properties(isolation_cuda PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu
  PASS_REGULAR_EXPRESSION "HANG  test\\.spin\\.forever\\.u32 .*CRASH test\\.fault\\.u32 .*PASS  outside\\.add\\.u32 ")

# A user's compare-and-swap loop that never ends is released when it gives
# up, not trapped (prim::intercepted_cas_call): HANG by the hang rule, and
# the CUDA context survives, so ten runs in one process (--isolate off, where
# a lost context would stop the run after the first) all end.  Both of
# examples/byo's never-ending loops, their shrunk one-thread tokens: one that
# never refreshes its compare (released as a success), and one that compares
# floats, which a NaN keeps unequal (released as zero, then as a success).
foreach(_release IN ITEMS "ref_add_stuck.u32.1.1.1.0.0.1.1.0.0.1.0.20.4.0.1048576.4aa633d8"
                          "add_floatcmp.f32.1.1.1.0.0.1.1.0.381.1.3.20.4.0.1048576.62130164")
  string(REGEX MATCH "^[a-z_]+" _name "${_release}")
  add_test(NAME byo_release_cuda.${_name}
    COMMAND atomstress_byo_example repro as2.0_1_0.mylib.${_release} --backend cuda --skip-without-gpu --runs 10
            --isolate off)
  set_tests_properties(byo_release_cuda.${_name} PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu
    PASS_REGULAR_EXPRESSION "exceeded its retry budget of 4096.*failed 10 of 10 runs")
endforeach()

# The stall watch (prim/retry.cuh): at check's geometry examples/byo's two
# loops that never end stop once no op of their trial has completed for
# 200 ms (both HANG, each worded so), long before their 1.7 s watchdogs.
add_test(NAME byo_stall_cuda
  COMMAND sh -c "out=$(\"$0\" check --impl 'mylib.add_floatcmp.f32,mylib.ref_add_stuck.u32' --backend cuda --skip-without-gpu --trials 3 --no-shrink 2>&1); s=$?; printf '%s\\n' \"$out\"; test $s -eq 77 && exit 77; test $s -eq 1 && test $(printf '%s\\n' \"$out\" | grep -c 'no op of the trial had completed for 200 ms while it ran') -eq 2"
          $<TARGET_FILE:atomstress_byo_example>)
set_tests_properties(byo_stall_cuda PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu)

# A correct spin lock (examples/byo mylib.spin) of 11,184 ops under 121
# stress blocks runs about 2 s alone on an H200: every run was a HANG ("the
# spin lock was never acquired") at its 1223 ms watchdog.  Its waiters see
# their lock pass among others (prim::Retry::lock_slot) and wait on.
add_test(NAME byo_lock_passing_cuda
  COMMAND atomstress_byo_example repro
          as3.0_1_0.mylib.spin.24.466.1.0.2.2.3.0.433.1.6de65b60de3c.20.4.0.1048576.121.1000.16.1.3.0.100.0.ee64c7ca
          --backend cuda --skip-without-gpu --runs 3)
set_tests_properties(byo_lock_passing_cuda PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu
  PASS_REGULAR_EXPRESSION "failed 0 of 3 runs")

# A user's atomic carries 8 KiB of static shared memory (the call scope,
# prim/call_scope.cuh): a trial whose shared region is 42000 bytes is past
# what its kernel may take without opting in (48 KiB less those 8 KiB), and
# the launch must opt in rather than fail.  A correct entry: PASS.
add_test(NAME byo_shared_opt_in_cuda
  COMMAND atomstress_byo_example check --impl mylib.ns_add.i32 --backend cuda --skip-without-gpu --space shared
          --pattern uniform --k 10500 --grid 1 --block 1024 --ops-per-thread 16 --trials 1 --no-shrink)
set_tests_properties(byo_shared_opt_in_cuda PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu
  PASS_REGULAR_EXPRESSION "PASS  mylib\\.ns_add\\.i32 " FAIL_REGULAR_EXPRESSION "error|ERROR|FAIL")

# atomstress fuzz on the CPU backend: JUnit, corpus and its replay, kill and
# --resume, shards and merge (tests/test_fuzz.cpp).
gtest_discover_tests(atomstress_fuzz_tests TEST_PREFIX "fuzz." DISCOVERY_MODE PRE_TEST)

# A short nightly campaign over two bugs the CPU catches and two correct
# entries.  Exit status 1 (failures found) is the expected outcome: a shell
# wrapper requires exactly 1 (WILL_FAIL would also accept a crash or bad
# input), and no correct entry may be reported failing.
add_test(NAME e2e_fuzz_cpu
  COMMAND sh -c "\"$0\" fuzz --backend cpu --time 20s --impl 'buggy.plain_rmw.add.i32,buggy.inc_gt.u32,native.add.i32,cas.add.f32' --junit e2e_fuzz_cpu.xml; test $? -eq 1"
          $<TARGET_FILE:atomstress>)
set_tests_properties(e2e_fuzz_cpu PROPERTIES FAIL_REGULAR_EXPRESSION "(FAIL|HANG) +(native|cas)\\.")

# The same campaign on the GPU, a round's trials four to twelve at once in the
# worker (fuzz --trials-at-once, automatic on cuda): the bugs caught (the algorithm's
# in a round at once: algorithms do not pack), no false failure among the
# correct entries, and the time line says it ran them at once.
add_test(NAME e2e_fuzz_cuda
  COMMAND sh -c "out=$(\"$0\" fuzz --backend cuda --skip-without-gpu --time 20s --impl 'buggy.plain_rmw.add.i32,buggy.inc_gt.u32,buggy.append.warp_agg_lane0@native.add.u32,native.add.i32,cas.add.f32,cas.max.f32,hist.global@cas.add.i32' 2>&1); s=$?; printf '%s\\n' \"$out\"; test $s -eq 77 && exit 77; test $s -eq 1 && printf '%s' \"$out\" | grep -q 'busy share, 4 to 12 trials at once' && printf '%s' \"$out\" | grep -q '^FAIL  buggy.append.warp_agg_lane0'"
          $<TARGET_FILE:atomstress>)
set_tests_properties(e2e_fuzz_cuda PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu
  FAIL_REGULAR_EXPRESSION "(FAIL|HANG|CRASH|ERROR) +(native|cas|hist)\\.")

# `profile` on the cpu backend: reports that parse back, refusals of bad axes.
gtest_discover_tests(atomstress_profile_tests TEST_PREFIX "profile." DISCOVERY_MODE PRE_TEST)

# `profile` on the GPU: two native adds over k with the bare-kernel baseline
# (a short time cap per point; no CAS loop with the whole grid on one word,
# which can take seconds per launch).
add_test(NAME profile_cuda
  COMMAND atomstress profile --impl native.add.u32,native.add.f32 --backend cuda --skip-without-gpu
          --baseline --k pow2:0:20:5 --max-time-per-point 0.5)
set_tests_properties(profile_cuda PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu)

# atomstress_bench_algos, Google Benchmark over profile's points: a small
# sweep on the GPU (with the bare kernel, hot and cold); one line and exit 77
# without one.
add_test(NAME bench_algos
  COMMAND atomstress_bench_algos --impl native.add.u32,sum.block@native.add.u32 --k 1,1024 --baseline
          --max-time-per-point 0.2)
set_tests_properties(bench_algos PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu)
add_test(NAME bench_algos_cold
  COMMAND atomstress_bench_algos --impl native.add.u32 --k 1,1024 --baseline --cold --max-time-per-point 0.2)
set_tests_properties(bench_algos_cold PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu)

# Bring your own: the example project built out of tree against the installed
# package, its CPU-capable entries checked for their expected verdicts
# (examples/byo/README.md).  Needs cmake and the toolchain: host only.
add_test(NAME byo_example COMMAND ${PROJECT_SOURCE_DIR}/tests/byo_example.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(byo_example PROPERTIES LABELS host TIMEOUT 1200)
# The README's "I have a header with atomics" (examples/header_with_atomics/)
# built with CMake's default generator, serial and parallel, on fresh
# folders (byo_example uses Ninja), and its verdicts.
add_test(NAME header_with_atomics COMMAND ${PROJECT_SOURCE_DIR}/tests/header_with_atomics.sh ${PROJECT_BINARY_DIR}
                                          ${PROJECT_SOURCE_DIR})
set_tests_properties(header_with_atomics PROPERTIES LABELS host TIMEOUT 1200)

# FetchContent (and so add_subdirectory): a consumer configures and generates
# with the suite and the per-entry tests defined from its own directory.
add_test(NAME fetchcontent_configure COMMAND ${PROJECT_SOURCE_DIR}/tests/fetchcontent_configure.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(fetchcontent_configure PROPERTIES LABELS host)

# atomstress_add_entry_tests under `ctest --output-junit`: a failing entry's
# <failure message> names its class, never "" (tests/entry_tests_junit.sh).
add_test(NAME entry_tests_junit
  COMMAND ${PROJECT_SOURCE_DIR}/tests/entry_tests_junit.sh $<TARGET_FILE:atomstress> ${PROJECT_SOURCE_DIR})
set_tests_properties(entry_tests_junit PROPERTIES LABELS host)

# Every built-in bug the CPU shows gets its class on its verdict line, in
# check's JSON records and in selftest's table (issue 27).
add_test(NAME check_classes_cpu COMMAND ${PROJECT_SOURCE_DIR}/tests/check_classes.sh $<TARGET_FILE:atomstress>)
set_tests_properties(check_classes_cpu PROPERTIES LABELS host TIMEOUT 300)

# fuzz shrinks each deterministic built-in bug the CPU shows as far as check
# does (issue 27).
add_test(NAME shrink_parity_cpu COMMAND ${PROJECT_SOURCE_DIR}/tests/shrink_parity.sh $<TARGET_FILE:atomstress>)
set_tests_properties(shrink_parity_cpu PROPERTIES LABELS host TIMEOUT 300)

# Folders depend one way (docs/layering.md): every #include "..." in the
# layered folders is checked against the order written in the script.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME layering COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/check_layering.py ${PROJECT_SOURCE_DIR})
set_tests_properties(layering PROPERTIES LABELS host)

# The README's command reference and layout table stay true: every option
# of every command's --help is documented, every documented one exists,
# every folder is in the layout table.
add_test(NAME readme_reference COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/check_readme.py
                                       ${PROJECT_SOURCE_DIR} $<TARGET_FILE:atomstress>)
set_tests_properties(readme_reference PROPERTIES LABELS host)

# No function over 80 lines outside the checker's kernels (issue 29, item 5):
# the script lists the long ones; its exemptions carry their reasons.
add_test(NAME function_length COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/check_function_length.py ${PROJECT_SOURCE_DIR})
set_tests_properties(function_length PROPERTIES LABELS host)

# Kernel entries' host parts (issue #30): draws, oracles, guard damage,
# tokens, shrinking through the pipeline, the cpu backend's SKIP, 16-bit
# buffers and the float-sum bound, profile's plan, per-launch points and reports.
add_executable(atomstress_kernel_tests tests/test_kernel_host.cpp tests/test_kernel_half.cpp tests/test_sanitizer.cpp
                                       tests/test_kernel_profile.cpp)
target_link_libraries(atomstress_kernel_tests PRIVATE atomstress_cli GTest::gtest GTest::gtest_main)
atomstress_link_engine(atomstress_kernel_tests)
gtest_discover_tests(atomstress_kernel_tests TEST_PREFIX "kernel." DISCOVERY_MODE PRE_TEST)

# The kernel examples (examples/kernels/), in the tree for the device bundle,
# and out of tree against the installed package (CTest kernel_example).
atomstress_add_suite(atomstress_kernel_examples SOURCES examples/kernels/last_block_reduction.cu
  examples/kernels/warp_aggregated_append.cu examples/kernels/shared_histogram.cu examples/kernels/hash_table.cu
  examples/kernels/block_lock.cu examples/kernels/compaction.cu examples/kernels/half_scatter_add.cu
  examples/kernels/unbounded.cu examples/kernels/float_scatter_add.cu examples/kernels/geometry_bugs.cu GPU_ONLY)
add_test(NAME kernel_example COMMAND ${PROJECT_SOURCE_DIR}/tests/kernel_example.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(kernel_example PROPERTIES LABELS host TIMEOUT 1200)
# atomstress's own kernel path checked on the GPU (tests/kernel_harness_entries.cu).
atomstress_add_suite(atomstress_kernel_harness SOURCES tests/kernel_harness_entries.cu GPU_ONLY)
atomstress_add_entry_tests(atomstress_kernel_harness IMPL kernels PREFIX "kernel_harness_gpu." LABELS gpu
                           ARGS --backend cuda --skip-without-gpu --trials 10)
# One GPU case per correct kernel example (exit 77, a skip, without a GPU).
atomstress_add_entry_tests(atomstress_kernel_examples IMPL kernels PREFIX "kernels_gpu." LABELS gpu
                           ARGS --backend cuda --skip-without-gpu --trials 3)
# `profile` of kernel entries on the GPU (time per launch, docs/profiling.md):
# a correct example over two key shapes, each point timed (a number of
# microseconds, not "-") and PASS; cold; a buggy twin's point FAIL with its
# explanation, the sweep going on to the next entry; a kernel that faults
# is its point's CRASH, and the sweep stops there saying why (the CUDA
# context is lost).  Exit 77 (a skip) without a GPU.
set(_kernel_profile atomstress_kernel_examples profile --backend cuda --skip-without-gpu --k 64
                    --max-time-per-point 0.5)
set(_timed_pass "[0-9] +[^ ]+ +PASS +kernels\\.shared_hist/k:64")
add_test(NAME kernels_gpu.profile.patterns COMMAND ${_kernel_profile} --impl kernels.shared_hist --pattern uniform,zipf)
set_tests_properties(kernels_gpu.profile.patterns PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu
  PASS_REGULAR_EXPRESSION "us/launch.*${_timed_pass}/pattern:uniform/.*${_timed_pass}/pattern:zipf/"
  FAIL_REGULAR_EXPRESSION "FAIL|HANG|CRASH|ERROR|error")
add_test(NAME kernels_gpu.profile.cold COMMAND ${_kernel_profile} --impl kernels.shared_hist --pattern uniform --cold)
set_tests_properties(kernels_gpu.profile.cold PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu
  PASS_REGULAR_EXPRESSION "cold: L2 .*${_timed_pass}/pattern:uniform/"
  FAIL_REGULAR_EXPRESSION "FAIL|HANG|CRASH|ERROR|error")
add_test(NAME kernels_gpu.profile.buggy_twin
  COMMAND ${_kernel_profile} --impl kernels.shared_hist.past_end,kernels.shared_hist --pattern uniform)
set_tests_properties(kernels_gpu.profile.buggy_twin PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu
  PASS_REGULAR_EXPRESSION "FAIL +kernels\\.shared_hist\\.past_end/k:64/[^ ]+ +wrote past the end of 'bins'.*${_timed_pass}/pattern:uniform/"
  FAIL_REGULAR_EXPRESSION "HANG|CRASH|ERROR|error")
add_test(NAME kernels_gpu.profile.crash COMMAND ${_kernel_profile} --impl kernels.faults,kernels.shared_hist --pattern uniform)
set_tests_properties(kernels_gpu.profile.crash PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu
  PASS_REGULAR_EXPRESSION "CRASH +kernels\\.faults/k:64/.*the sweep stops after kernels\\.faults/k:64/.*CUDA context is lost"
  FAIL_REGULAR_EXPRESSION "PASS +kernels\\.shared_hist")
