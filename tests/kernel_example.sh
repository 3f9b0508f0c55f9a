#!/usr/bin/env bash
# The kernel example (examples/kernels/) as a user builds it: atomstress
# installed to a temporary prefix, the project configured and built out of
# tree against the package, its entries listed, and on the cpu backend each
# kernel entry a SKIP with its one-line reason (a CUDA kernel has no host build).
# Usage: kernel_example.sh <atomstress build dir> <atomstress source dir>
source "$(dirname "$0")/installed_package.sh" "$@"
test -f "$work/prefix/include/atomstress/kernel.cuh" || { echo "kernel_example: kernel.cuh is not installed" >&2; exit 1; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
cmake -S "$src/examples/kernels" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" "${launcher[@]}" >/dev/null
cmake --build "$work/build"
suite="$work/build/mylib_kernels"
fail=0

list=$("$suite" list --impl 'kernels.*')
echo "$list"
for e in last_block_sum warp_append shared_hist hash_find_or_insert block_lock compact half_scatter_add; do
  grep -qE "^kernels\.$e " <<<"$list" || { echo "kernel_example: $e is not listed" >&2; fail=1; }
done
[ "$(grep -c '^kernels\.' <<<"$list")" -eq 26 ] || { echo "kernel_example: expected 26 kernel entries" >&2; fail=1; }
verbose=$("$suite" list -v --impl 'kernels.shared_hist')
grep -q "gpu only (a CUDA kernel: kernel entries run on the cuda backend only)" <<<"$verbose" \
  || { echo "$verbose"; echo "kernel_example: list -v does not say gpu only" >&2; fail=1; }
# A twin only memcheck sees says so (its needs_sanitizer trait).
verbose=$("$suite" list -v --impl 'kernels.half_scatter_add.past_end')
grep -q "seen by:     --sanitize memcheck only" <<<"$verbose" \
  || { echo "$verbose"; echo "kernel_example: list -v does not name the sanitizer the twin needs" >&2; fail=1; }

set +e
out=$("$suite" check --impl 'kernels.*' --backend cpu --trials 2 2>&1)
status=$?
set -e
echo "$out"
[ "$status" -eq 0 ] || { echo "kernel_example: check on the cpu backend exited $status, expected 0 (all skipped)" >&2; fail=1; }
skips=$(grep -cE "^SKIP +kernels\." <<<"$out" || true)
[ "$skips" -eq 26 ] || { echo "kernel_example: expected 26 SKIP lines, got $skips" >&2; fail=1; }
grep -qE "^SKIP +kernels\.compact .*a CUDA kernel" <<<"$out" || grep -A1 -E "^SKIP +kernels\.compact " <<<"$out" | grep -q "a CUDA kernel" \
  || { echo "kernel_example: the SKIP does not give its reason" >&2; fail=1; }
grep -qE "^(PASS|FAIL|HANG|CRASH|ERROR) +kernels\." <<<"$out" && { echo "kernel_example: a kernel entry ran on the cpu backend" >&2; fail=1; }
exit $fail
