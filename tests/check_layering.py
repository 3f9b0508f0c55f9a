#!/usr/bin/env python3
"""Fails on an #include "..." that runs against the layering (docs/layering.md).

Usage: check_layering.py <source dir>

Every quoted include of every C++/CUDA file in the layered folders is
resolved (from the source root, else beside the including file) and checked
against two rules:
  order:     a file may include its own layer and the layers below it, never
             one above;
  internals: a backend's own folder (backend/cuda/, backend/cpu/) is included
             only by the backend and by the units that instantiate its
             runners (catalogue); everything else goes through backend.hpp.
Each offence is printed as file:line, the include, and the rule it breaks.
"""
import os
import re
import sys

# The layering order, bottom first: one row per layer, its folders.  A layer
# may include the rows above it in this list (lower layers), never the rows
# below it.  Read it as "each layer builds on everything listed before it".
LAYERS = [
    ("support", ["harness/support/"]),                 # hashing, numbers, files, timestamps, CUDA checks
    ("prim", ["harness/prim/"]),                       # the host/device mapping of every primitive
    ("atomics_under_test", ["atomics_under_test/"]),   # the built-in atomics and forms
    ("trial", ["harness/trial/"]),                     # TrialSpec, tokens, patterns, validation
    ("registry", ["harness/registry/"]),               # entries, families' interface, value kinds
    ("workload", ["harness/workload/"]),               # a spec expanded into ops
    ("backend", ["harness/backend/"]),                 # running a program: History
    ("check", ["harness/check/"]),                     # judging a History: checkers, families' oracles
    ("kernel", ["harness/kernel/"]),                   # a user's kernel entry: case, draws, guards, oracles
    ("catalogue", ["harness/catalogue/"]),             # registering units: kernels instantiated
    ("byo", ["harness/byo/"]),                         # bring your own: the public header
    ("pipeline", ["harness/pipeline/"]),               # spec to verdict, isolation, profile engine
    ("properties", ["properties/"]),                   # RapidCheck generators and properties
    ("reports", ["reports/"]),                         # printers and their records
    ("fuzz", ["fuzz/"]),                               # campaigns, shrinking, nightly runs
    ("cli", ["harness/cli/"]),                         # the commands
    ("consumers", ["tests/", "bench/", "examples/"]),  # may include anything
]

# Folders private to one layer, and the layers (besides their own) that may
# include them.
INTERNALS = {
    # kernel: a user's kernel launches on the CUDA backend's stream, beside its memory stress.
    "harness/backend/cuda/": {"catalogue", "kernel", "consumers"},
    "harness/backend/cpu/": {"catalogue", "consumers"},
}

# Known offences, each with the reason it is still here; remove a line when
# its include goes.  (file, included path)
EXCEPTIONS = set()

SOURCE_ENDINGS = (".cpp", ".hpp", ".cu", ".cuh", ".inc", ".h")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(path):
    """The layer index of a path relative to the root, or None when unlayered."""
    best = None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if path.startswith(prefix) and (best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    return None if best is None else best[0]


def internal_folder(path):
    return next((f for f in INTERNALS if path.startswith(f)), None)


def resolve(root, including, target):
    """The included file relative to the root, or None when outside the tree."""
    for base in (root, os.path.join(root, os.path.dirname(including))):
        candidate = os.path.normpath(os.path.join(base, target))
        if os.path.isfile(candidate):
            return os.path.relpath(candidate, root)
    return None


USED_EXCEPTIONS = set()


def offences(root, path):
    here = layer_of(path)
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            target = resolve(root, path, match.group(1))
            if target is None:
                continue
            if (path, target) in EXCEPTIONS:
                USED_EXCEPTIONS.add((path, target))
                continue
            there = layer_of(target)
            where = f"{path}:{number}: includes {target}"
            if there is not None and there > here:
                yield (f"{where}: layer '{LAYERS[here][0]}' may not include layer "
                       f"'{LAYERS[there][0]}' above it")
            folder = internal_folder(target)
            if folder and LAYERS[here][0] not in INTERNALS[folder] | {LAYERS[there][0]}:
                yield (f"{where}: {folder} is the backend's internals; "
                       f"layer '{LAYERS[here][0]}' goes through harness/backend/backend.hpp")


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    found = []
    checked = 0
    for top in sorted({p.split("/")[0] for _, ps in LAYERS for p in ps}):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(SOURCE_ENDINGS):
                    continue
                path = os.path.relpath(os.path.join(folder, name), root)
                if layer_of(path) is None:
                    continue
                checked += 1
                found.extend(offences(root, path))
    # An exception the code no longer needs is taken off the list, so the
    # list stays the truth about the layering.
    for path, target in sorted(EXCEPTIONS - USED_EXCEPTIONS):
        found.append(f"{path}: no longer includes {target}: remove it from EXCEPTIONS")
    for line in found:
        print(line)
    print(f"check_layering: {checked} files, {len(found)} offence(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
