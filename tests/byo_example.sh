#!/usr/bin/env bash
# The bring-your-own example as a user builds it: atomstress installed to a
# temporary prefix, examples/byo configured and built out of tree against the
# package (find_package + atomstress_add_suite), then what the CPU can run.
# Usage: byo_example.sh <atomstress build dir> <atomstress source dir>
source "$(dirname "$0")/installed_package.sh" "$@"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
cmake -S "$src/examples/byo" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" "${launcher[@]}"
# Built with no warning of ours: nvcc once warned (#177) about every entry's
# unreferenced member in the user's build.
cmake --build "$work/build" 2>&1 | tee "$work/build.log"
if grep -E 'warning.*(atomstress_entry_|atomstress_registered_|include/atomstress/)' "$work/build.log"; then
  echo "byo_example: atomstress's header warned in the user's build" >&2
  exit 1
fi
suite="$work/build/mylib_stress"

list=$("$suite" list -v --impl 'mylib.*')
echo "$list"
set +e
out=$("$suite" check --impl 'mylib.*' --backend cpu --trials 4 2>&1)
status=$?
set -e
echo "$out"
fail=0
# Each failed check says so at once and again in the summary at the end, so
# that a log cut to its head and tail (CI's) still names it.
failures=()
complain() {
  echo "byo_example: $1" >&2
  failures+=("$1")
  fail=1
}
expect() {  # verdict entry...
  local entry
  for entry in "${@:2}"; do
    if ! grep -qE "^$1 +$entry " <<<"$out"; then
      complain "expected $1 for $entry"
    fi
  done
}
expect PASS mylib.max.f32
expect FAIL mylib.atomicmax.f32
expect HANG mylib.add_floatcmp.f32
expect PASS mylib.add.f64
expect FAIL mylib.count.i32
expect PASS mylib.add.f16
expect PASS mylib.inc.u64
expect FAIL mylib.inc_late.u64
expect CRASH mylib.add_trace.u32
expect PASS mylib.spin
expect PASS mylib.textbook_lock
expect SKIP mylib.ptx_add.u32
# Library styles (library_styles.cu): qualified names, a template id and an
# overload set register; libcu++'s atomic_ref is seen like the intrinsics.
expect PASS mylib.ns_add.i32
expect PASS mylib.template_add.f64
expect PASS mylib.overload_max.u32
expect PASS mylib.overload_max.u64
# A bare function template (its T deduced) and <cstdint>'s 64-bit spellings.
expect PASS mylib.bare_template_add.f64
expect PASS mylib.bare_template_add.u32
expect PASS mylib.int64_max.i64
expect PASS mylib.uint64_add.u64
expect PASS mylib.uint64_cas.u64
grep -A12 "^mylib\.int64_max\.i64" <<<"$list" | grep -q "called as:   long f(long\* address, long val)" \
  || { complain "list -v does not show int64_max called as long f(long* address, long val)"; }
expect PASS mylib.ref_add.u32
expect PASS mylib.ref_add.f32
expect FAIL mylib.ref_add_block.i32
expect HANG mylib.ref_add_stuck.u32
expect PASS mylib.sat_add.u32
expect PASS mylib.object_add.i32
# PyTorch's max style against fmaxf's spec: a semantics bug, told as the op
# that went wrong alone and the semantics it implements; under its own spec
# it passes.
expect FAIL mylib.torch_max.f32
expect PASS mylib.torch_max_exact.f32
# CuPy's style: std::fmax beside the unit's own fmax overload, run on the host.
expect PASS mylib.std_fmax.f32
grep -qE "^mylib\.std_fmax\.f32 .*\(gpu only\)" <<<"$list" && complain "mylib.std_fmax.f32 is gpu only: atomstress's fmax mapping broke the unit's host build"
expect FAIL mylib.torch_max.f64
# Void updates (void_updates.cu): checked by the memory they leave and, alone,
# every state; no returned value, and no algorithm form paired with them.
expect PASS mylib.add_noret.f64 mylib.add_noret.f32 mylib.add_noret.u32 mylib.add_by_halves.u64 mylib.set_flag.u32
expect FAIL mylib.add_cas_once.f32 mylib.sub_noret.i32
grep -A12 "^mylib\.add_noret\.f64" <<<"$list" | grep -q "called as:   void f(double\* address, double val)" \
  || { complain "list -v does not show add_noret called as void f(double* address, double val)"; }
grep -A12 "^mylib\.add_noret\.f64" <<<"$list" | grep -q "returns:     nothing (a void update)" \
  || { complain "list -v does not say add_noret returns nothing"; }
grep -qE "^FAIL +mylib\.sub_noret\.i32 .*\[semantics\]$" <<<"$out" || { complain "mylib.sub_noret.i32 is not classed semantics"; }
grep -E "^FAIL +mylib\.sub_noret\.i32 " -A6 <<<"$out" | grep -qE "alone, in program order: op #[0-9]* .*sub\(old=.*: the spec stores [^;]*; stored" \
  || { complain "mylib.sub_noret.i32's trace does not tell the op's store alone"; }
grep -E "^FAIL +mylib\.sub_noret\.i32 " -A6 <<<"$out" | grep -q "and returns" \
  && { complain "mylib.sub_noret.i32's trace speaks of a returned value"; }
grep -qE "^FAIL +mylib\.add_cas_once\.f32 .*\[atomicity\]$" <<<"$out" || { complain "mylib.add_cas_once.f32 is not classed atomicity"; }
[ -z "$("$suite" list --impl '*@mylib.add_noret.*')" ] || { complain "a void update is paired with an algorithm form"; }
noret=$("$suite" repro "$(grep -m1 -oE "as2\.[0-9A-Za-z_]+\.mylib\.sub_noret\.i32\.[^ ]+" <<<"$out")" --backend cpu --trace 2>&1 || true)
grep -qE "^ +op +block +thread +address +a +b +returned" <<<"$noret" && grep -qE "^ +0 +.* none +" <<<"$noret" \
  || { echo "$noret"; complain "repro --trace of a void update does not say its returned value is none"; }
# AMReX's host branch (host_branch.cu): a SKIP that says why, never a verdict.
expect SKIP mylib.hd_add.i32
grep -E "^SKIP +mylib\.hd_add\.i32 " -A2 <<<"$out" | grep -q "its host build makes no atomic call that atomstress intercepts" \
  || { complain "the host-branch entry's SKIP does not say why"; }
grep -A12 "^mylib\.hd_add\.i32" <<<"$list" | grep -q "gpu only (its host build makes no atomic call" \
  || { complain "list -v does not say the host-branch entry is gpu only"; }
# Two bugs in one function: the contention bug (right alone) with its class,
# and the NaN/signed-zero bug a longer replay finds, apart, each with a token.
# (16 trials: beside two CPU hogs and the rest of the suite, the cpu
# backend's threads overlap less, and 4 trials missed the race (PASS, 64
# trials) in one of three loaded runs; 16 caught it in 8 of 8, and, since an
# intercepted call's first op is an interleaving point, in 36 of 36 beside
# two CPU hogs alone.)
two=$("$suite" check --impl mylib.two_bugs_max.f32 --backend cpu --special 0 --trials 16 2>&1 || true)
echo "$two"
grep -qE "^FAIL +mylib\.two_bugs_max\.f32 .*\[atomicity\]$" <<<"$two" \
  || { complain "mylib.two_bugs_max.f32's contention case is not classed atomicity"; }
grep -qE "also, a distinct failure \[semantics\]" <<<"$two" \
  || { complain "mylib.two_bugs_max.f32's second bug is not reported apart as semantics"; }
[ "$(grep -c "repro: mylib_stress repro as2\." <<<"$two")" -eq 2 ] \
  || { complain "mylib.two_bugs_max.f32's two failures do not each have a token"; }
# The double twin's concurrent failure is another known spec, not a lost update.
grep -qE "^FAIL +mylib\.torch_max\.f64 .*\[semantics\]$" <<<"$out" || { complain "mylib.torch_max.f64 is not classed semantics"; }
grep -E "^FAIL +mylib\.torch_max\.f64 " -A8 <<<"$out" | grep -q "matches: ties keep the operand" \
  || { complain "mylib.torch_max.f64 does not say it matches ties keep the operand"; }
grep -qE "^FAIL +mylib\.torch_max\.f32 .*\[semantics\]$" <<<"$out" || { complain "mylib.torch_max.f32 is not classed semantics"; }
torch=$(grep -E "^FAIL +mylib\.torch_max\.f32 " -A6 <<<"$out")
grep -q "alone, in program order: op #[0-9]* .*max(old=" <<<"$torch" || { complain "no sequential trace for mylib.torch_max.f32"; }
grep -q "matches: ties keep the operand, a NaN wins; differs from cas.max.f32 on NaN and signed zero" <<<"$torch" \
  || { echo "$torch"; complain "the inference does not name ties keep the operand and signed zero"; }
grep -qE "^FAIL +mylib\.inc_late\.u64 .*\[semantics\]$" <<<"$out" || { complain "mylib.inc_late.u64 is not classed semantics"; }
grep -qE "^FAIL +mylib\.count\.i32 .*\[scope\]$" <<<"$out" || { complain "mylib.count.i32 is not classed scope"; }
grep -qE "^HANG +mylib\.add_floatcmp\.f32 .*\[hang\]$" <<<"$out" || { complain "mylib.add_floatcmp.f32 is not classed hang"; }
grep -qE "^CRASH +mylib\.add_trace\.u32 .*\[crash\]$" <<<"$out" || { complain "mylib.add_trace.u32 is not classed crash"; }
grep -E "^FAIL +mylib\.ref_add_block\.i32 " -A3 <<<"$out" | grep -q "scope" \
  || { complain "mylib.ref_add_block.i32 did not fail by the scope rule"; }
grep -E "^HANG +mylib\.ref_add_stuck\.u32 " -A3 <<<"$out" | grep -qE "retr(y|ies)" \
  || { complain "mylib.ref_add_stuck.u32's HANG is not the retry budget's"; }
# The ptx unit's SKIP names the construct that keeps it off the host.
grep -E "^SKIP +mylib\.ptx_add\.u32 " -A2 <<<"$out" | grep -q "ptx_atomics.cu:[0-9]" \
  || { complain "the ptx entry's SKIP does not name ptx_atomics.cu:line"; }
# libcu++'s float add with every operand special (subnormals among them):
# the CPU backend models atom.add.f32's flushing, as for atomicAdd(float*).
special=$("$suite" check --impl mylib.ref_add.f32 --backend cpu --special 1000 --trials 8 --no-shrink 2>&1) \
  || { echo "$special"; complain "mylib.ref_add.f32 fails with special values on the CPU backend"; }
# The definition and include folder set after atomstress_add_suite reached the probe.
grep -qE "^mylib\.ns_add\.i32 .*\(gpu only\)" <<<"$list" && { complain "the probe missed the target's later settings"; }
# list -v: the call shape and the spec each entry was registered against;
# what atomstress cannot intercept.
grep -q "called as:   int f(int\* address, int val)" <<<"$list" || { complain "list -v lacks the call shape"; }
grep -q "spec:        its own (ATOMSTRESS_ATOMIC_SPEC)" <<<"$list" || { complain "list -v lacks the own spec"; }
grep -q "not seen:    not intercepted: a cuda::atomic object (libcu_objects.cu:8)" <<<"$list" \
  || { complain "the cuda::atomic object is not reported"; }
# The saturating add's pairings: only forms whose oracle follows its phi, all passing.
pairs=$("$suite" list --impl '*@mylib.sat_add.u32')
echo "$pairs"
grep -q "^hist\." <<<"$pairs" && { complain "the saturating add is paired with a histogram"; }
sat=$("$suite" check --impl '*@mylib.sat_add.u32' --backend cpu --trials 3 2>&1) || { echo "$sat"; complain "a pairing of the saturating add failed"; }
[ "$(grep -cE '^PASS +sum\.' <<<"$sat")" -ge 3 ] || { echo "$sat"; complain "expected >= 3 passing sum pairings"; }
# The suite says which architectures it was built for, and why.
"$suite" --version | grep -q "this suite's CUDA architectures 90 (the project's CMAKE_CUDA_ARCHITECTURES)" \
  || { "$suite" --version; complain "--version does not give the suite's architectures"; }
# A function with an extra parameter does not build, and the error names it.
set +e
shape=$(cmake -S "$src/tests/byo_shape_error" -B "$work/shape" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" "${launcher[@]}" 2>&1 \
        && cmake --build "$work/shape" 2>&1)
shape_status=$?
set -e
[ "$shape_status" -ne 0 ] || { complain "a function with an extra parameter built"; }
grep -qE "atomstress: shape_error_suite is built for CUDA architectures [0-9]+: (atomstress's own \(no CMAKE_CUDA_ARCHITECTURES chosen, no GPU found\)|the GPU found at configure time)" <<<"$shape" \
  || { complain "configure did not say which architectures a suite without CMAKE_CUDA_ARCHITECTURES takes"; }
grep -q "3rd parameter is not part of the call shape" <<<"$shape" \
  || { echo "$shape" | tail -20; complain "the shape error does not name the 3rd parameter"; }
grep -q "the function's address parameter is not a pointer to the spec's type" <<<"$shape" \
  || { echo "$shape" | tail -20; complain "the shape error does not say the address type is wrong"; }
grep -q "the function returns nothing (a void update), and the memory this spec's operation leaves depends on the order" <<<"$shape" \
  || { echo "$shape" | tail -20; complain "a void float max built, or its error does not say why"; }
# A header with atomics included before atomstress's: refused at build time
# with one line naming the header's line and function, never a CRASH at run time.
set +e
order=$(cmake -S "$src/tests/byo_include_order" -B "$work/order" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" "${launcher[@]}" 2>&1 \
        && cmake --build "$work/order" 2>&1)
order_status=$?
set -e
[ "$order_status" -ne 0 ] || { complain "a header with atomics before atomstress.cuh built"; }
grep -q "atomstress: early_atomics.cuh:11 (in lib_atomic_max) calls atomicCAS before <atomstress/atomstress.cuh> is included" <<<"$order" \
  || { echo "$order" | tail -20; complain "the include-order error does not name early_atomics.cuh:11 and lib_atomic_max"; }
grep -q "mylib.ptx_add.u32 .*(gpu only)" <<<"$("$suite" list --impl 'mylib.ptx*')" || { complain "ptx entry not marked gpu only"; }
# Each failure's repro line names the suite (atomstress itself lacks these
# entries) and, run as printed, fails again.
repro=$(grep -m1 -oE "repro: mylib_stress repro as2\.[0-9A-Za-z_]+\.mylib\.inc_late\.u64\.[^ ]+ --backend cpu" <<<"$out" | sed 's/^repro: mylib_stress //') \
  || { complain "no repro line naming mylib_stress for mylib.inc_late.u64"; }
if [ -n "${repro:-}" ]; then
  set +e
  # shellcheck disable=SC2086
  "$suite" $repro --runs 3; rs=$?
  set -e
  [ "$rs" -eq 1 ] || { complain "'$repro' exited $rs, expected 1 (fails again)"; }
fi
# The raw atomicAdd_block inside the algorithm forms paired with it: the
# scope rule reports those whose targets several blocks share.
forms=$("$suite" check --impl 'sum.block@mylib.count.i32,hist.global@mylib.count.i32,sum.block@mylib.add.f64' \
          --backend cpu --trials 2 --no-shrink 2>&1 || true)
echo "$forms"
for f in 'sum\.block@mylib\.count\.i32' 'hist\.global@mylib\.count\.i32'; do
  grep -qE "^FAIL +$f " <<<"$forms" || { complain "expected FAIL (scope) for $f"; }
done
grep -q "scope violation" <<<"$forms" || { complain "the forms' failure is not the scope rule's"; }
grep -qE "^PASS +sum\.block@mylib\.add\.f64 " <<<"$forms" || { complain "expected PASS for sum.block@mylib.add.f64"; }
# One CTest case per entry (atomstress_add_entry_tests): a correct entry
# passes, a wrong one fails, each on its own line.
ct=$(cd "$work/build" && ctest -R '^mylib_stress\.mylib\.(max\.f32|inc_late\.u64)$' 2>&1 || true)
echo "$ct"
grep -qE "mylib_stress\.mylib\.max\.f32 \.+ +Passed" <<<"$ct" || { complain "entry test mylib.max.f32 did not pass"; }
grep -qE "mylib_stress\.mylib\.inc_late\.u64 \.+\*+Failed" <<<"$ct" || { complain "entry test mylib.inc_late.u64 did not fail"; }
[ "$status" -eq 1 ] || { complain "check exited $status, expected 1 (failures found)"; }
if [ "$fail" -ne 0 ]; then
  echo "byo_example: ${#failures[@]} check(s) failed:" >&2
  printf '  %s\n' "${failures[@]}" >&2
fi
exit $fail
