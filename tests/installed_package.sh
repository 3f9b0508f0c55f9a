# Sourced by the tests that build a user's project out of tree
# (byo_example.sh, kernel_example.sh, header_with_atomics.sh) with their
# arguments, <atomstress build dir> <atomstress source dir>: sets build, src
# and work (a scratch folder removed at exit) and installs atomstress to
# $work/prefix, as a user installs it.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
