#!/usr/bin/env python3
"""A hostile user's probe of the cpu backend (issue 61): planted links, forged
entry names, appended logs, pipes and FIFOs, signals to the trial worker,
damaged tokens and state files.  Not part of ctest (it takes minutes); run it
by hand after a change to what fuzz, merge or repro read and write:

    tests/hostile_probe.py BUILD/bin [--only CATEGORY] [--seed N]

Every input is judged by properties a serious tool keeps, never by an
expected text: the exit status is 0, 1 or 2 (never a crash, never killed by
the probe's timeout); a refusal (2) is one line on stderr; nothing outside
the folders the probe named is written (a victim file beside each scratch
folder keeps its bytes); a correct entry never gets FAIL, CRASH or HANG.
Prints one line per failed input and the counts per category; exits 1 when
any input failed.
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

CORRECT = "native.add.i32,cas.max.f32"
VICTIM_TEXT = "victim: never to be written\n"


class Probe:
    def __init__(self, bindir, root, rng):
        self.atomstress = os.path.join(bindir, "atomstress")
        self.root = root
        self.rng = rng
        self.counts = {}
        self.failures = []
        self.n = 0

    def scratch(self):
        """A fresh folder, and a victim file beside it that nothing may touch."""
        self.n += 1
        d = os.path.join(self.root, f"case{self.n}")
        os.makedirs(d)
        victim = os.path.join(self.root, f"victim{self.n}")
        with open(victim, "w") as f:
            f.write(VICTIM_TEXT)
        return d, victim

    def run(self, args, timeout=60, stdin=None, raw=False, env=None):
        cmd = args if raw else [self.atomstress] + args
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout,
                               env=env, stdin=stdin)
            return p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            return None, "", "(killed by the probe's timeout)"

    def judge(self, category, what, status, err, victims=(), refused_ok=True, extra=None):
        self.counts.setdefault(category, [0, 0])
        self.counts[category][0] += 1
        problems = []
        if status is None:
            problems.append("hung (the probe's timeout)")
        elif status not in (0, 1, 2) and not (status == -signal.SIGPIPE or status == 141):
            problems.append(f"exit status {status}")
        if status == 2 and len([l for l in err.splitlines() if l.strip()]) != 1:
            problems.append(f"a refusal of {len(err.splitlines())} lines on stderr")
        if status == 2 and not refused_ok:
            problems.append("refused: " + err.strip()[:160])
        for v in victims:
            if not os.path.isfile(v) or os.path.islink(v) or open(v).read() != VICTIM_TEXT:
                problems.append(f"{v} was written")
        if extra:
            problems += [p for p in extra if p]
        if problems:
            self.counts[category][1] += 1
            self.failures.append(f"{category}: {what}: " + "; ".join(problems) + (f" [{err.strip()[:200]}]" if err else ""))


def quick_fuzz(corpus, seconds="1s", more=()):
    return ["fuzz", "--backend", "cpu", "--impl", CORRECT, "--time", seconds, "--corpus", corpus] + list(more)


def planted_links(p):
    """Links and hard links planted where fuzz reads and writes in a corpus."""
    names = ["fuzz-state.json", "fuzz-state.json.lock", "x.case", "fuzz-state-lanes",
             "fuzz-state-lanes/lane-0.json", "fuzz-state-lanes/lane-0.jsonl", "fuzz-state-lanes/lane-0.appended",
             "fuzz-state-lanes/lane-0.json.lock", "fuzz-state.json.tmp", "native.add.i32-0000000000000000.case"]
    kinds = ["symlink-file", "symlink-dir", "dangling", "hardlink", "fifo", "symlink-self"]
    for name in names:
        for kind in kinds:
            d, victim = p.scratch()
            corpus = os.path.join(d, "c")
            os.makedirs(os.path.dirname(os.path.join(corpus, name)), exist_ok=True)
            at = os.path.join(corpus, name)
            if kind == "symlink-file":
                os.symlink(victim, at)
            elif kind == "symlink-dir":
                os.symlink(os.path.dirname(victim), at)
            elif kind == "dangling":
                os.symlink(os.path.join(p.root, f"nothing{p.n}"), at)
            elif kind == "hardlink":
                os.link(victim, at)
            elif kind == "fifo":
                os.mkfifo(at)
            else:
                os.symlink(at, at)
            jobs = ["--jobs", "2"] if "lanes" in name else []
            status, _, err = p.run(quick_fuzz(corpus, more=jobs), timeout=60)
            extra = []
            if kind == "dangling" and os.path.exists(os.path.join(p.root, f"nothing{p.n}")):
                extra.append("a dangling link's target was created")
            p.judge("links", f"{kind} at {name}", status, err, [victim], extra=extra)


def forged_names(p, base_log):
    """Entry names in a merged log that would name files outside --corpus."""
    lines = [json.loads(l) for l in open(base_log)]
    token = next((l.get("token") for l in lines if l.get("token")), None)
    names = ["/abs/x", "../../escaped", "a/b", "..", ".", "", "x" * 5000, "native.add.i32/../../x",
             "\u202eevil", "native.add.i32\n", "native.add.i32 ", "NATIVE.ADD.I32", "native.add.i32\x00x",
             "~/x", "$(touch pwned)", "native.*", "*", "all", "-rf", "native.add.i32.case"]
    for name in names:
        for with_slice in (True, False):
            for in_entries in (True, False):
                d, victim = p.scratch()
                corpus = os.path.join(d, "corp")
                out = []
                for l in lines:
                    l = dict(l)
                    if l["record"] == "run" and in_entries:
                        l["entries"] = list(l.get("entries", [])) + [name]
                    out.append(l)
                if with_slice:
                    out.append({"record": "slice", "impl": name, "backend": "cpu", "round": 0, "seconds": 1,
                                "trials": 1, "ops": 1, "verdict": "FAIL", "why": "x", "token": token or "as2.x",
                                "spec": "x", "timestamp": "2026-01-01T00:00:00Z"})
                log = os.path.join(d, "forged.jsonl")
                with open(log, "w") as f:
                    for l in out:
                        f.write(json.dumps(l) + "\n")
                before = set(walk(p.root))
                status, _, err = p.run(["merge", "--junit", os.path.join(d, "m.xml"), "--corpus", corpus, log])
                after = set(walk(p.root))
                stray = [f for f in after - before
                         if f != corpus and not f.startswith(corpus + os.sep) and f != os.path.join(d, "m.xml")]
                p.judge("names", f"{name[:30]!r} slice={with_slice} listed={in_entries}", status, err, [victim],
                        extra=[f"wrote {stray[:3]}" if stray else None,
                               "green over a forged FAIL" if status == 0 and with_slice and in_entries else None])


def walk(root):
    for dirpath, dirnames, filenames in os.walk(root):
        for f in filenames + dirnames:
            yield os.path.join(dirpath, f)


def appended_logs(p, passing_log, failing_log):
    """Two runs of one shard, in one log or two, in every order: never green over a failure."""
    runs = {"pass": open(passing_log).read(), "fail": open(failing_log).read()}
    for order in (("pass", "fail"), ("fail", "pass"), ("pass", "pass"), ("fail", "fail")):
        for layout in ("one-file", "two-files"):
            for resumed in (False, True):
                for cut in (0, 1, 2):
                    d, victim = p.scratch()
                    texts = []
                    for i, k in enumerate(order):
                        t = runs[k]
                        if resumed and i == 1:
                            t = t.replace('"resumed":"false"', '"resumed":"true"', 1)
                        if cut and i == 1:
                            t = "\n".join(t.splitlines()[:-cut]) + "\n"
                        texts.append(t.replace("2026", f"20{30 + i}", 1))
                    if layout == "one-file":
                        paths = [os.path.join(d, "l.jsonl")]
                        open(paths[0], "w").write("".join(texts))
                    else:
                        paths = [os.path.join(d, f"l{i}.jsonl") for i in range(2)]
                        for path, t in zip(paths, texts):
                            open(path, "w").write(t)
                    status, _, err = p.run(["merge", "--junit", os.path.join(d, "m.xml")] + paths)
                    green = status == 0
                    p.judge("appended", f"{order} {layout} resumed={resumed} cut={cut}", status, err, [victim],
                            extra=["green over a failed run" if green and "fail" in order and not resumed else None])


def pipes(p):
    """Outputs on pipes and FIFOs: never a hang, a closed pipe ends the run."""
    a = p.atomstress
    cmds = [
        f"{a} check --backend cpu --impl native.add.i32 --trials 300 --json /dev/stdout | head -c {{n}}",
        f"{a} check --backend cpu --impl native.add.i32 --trials 300 | head -c {{n}}",
        f"{a} fuzz --backend cpu --impl {CORRECT} --time 3s --progress-s 0.05 | head -c {{n}}",
        f"{a} fuzz --backend cpu --impl {CORRECT} --time 3s --json /dev/stdout | head -c {{n}}",
        f"{a} profile --backend cpu --impl native.add.i32 --k 1,4 --max-time-per-point 0.2 | head -c {{n}}",
        f"{a} list -v | head -c {{n}}",
        f"{a} fuzz --backend cpu --impl {CORRECT} --time 3s --json >(head -c {{n}} >/dev/null)",
    ]
    for cmd in cmds:
        for n in (0, 1, 100, 5000):
            status, _, err = p.run(["bash", "-c", "set -o pipefail; " + cmd.format(n=n)], raw=True, timeout=90)
            # (under pipefail: the program's status, SIGPIPE's 141 included; a
            # fuzz log must be a file, which merge and --resume read: refused)
            refusable = " fuzz " in cmd and "--json" in cmd
            p.judge("pipes", cmd.format(n=n)[len(a) + 1:][:70], status, err, refused_ok=refusable)
    for opt in ("--json", "--junit", "--state"):
        for command in ("fuzz", "check"):
            if command == "check" and opt == "--state":
                continue
            d, victim = p.scratch()
            fifo = os.path.join(d, "fifo")
            os.mkfifo(fifo)
            args = (["fuzz", "--backend", "cpu", "--impl", CORRECT, "--time", "1s"] if command == "fuzz"
                    else ["check", "--backend", "cpu", "--impl", "native.add.i32", "--trials", "5"])
            status, _, err = p.run(args + [opt, fifo], timeout=30)
            p.judge("pipes", f"{command} {opt} FIFO", status, err, [victim])


def worker_signals(p):
    """Signals sent to the trial worker from outside: never a CRASH or HANG of a correct entry."""
    sigs = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2,
            signal.SIGALRM, signal.SIGKILL, signal.SIGSTOP]
    for sig in sigs:
        for delay in (0.5, 1.5, 2.5, 3.5):
            d, victim = p.scratch()
            corpus = os.path.join(d, "c")
            proc = subprocess.Popen([p.atomstress] + quick_fuzz(corpus, "5s"), stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, errors="replace")
            time.sleep(delay + p.rng.random() * 0.3)
            workers = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
            for w in workers:
                try:
                    os.kill(int(w), sig)
                except ProcessLookupError:
                    pass
            if sig == signal.SIGSTOP:
                time.sleep(8)  # stopped past its deadline
                for w in workers:
                    try:
                        os.kill(int(w), signal.SIGCONT)
                    except ProcessLookupError:
                        pass
            try:
                out, err = proc.communicate(timeout=90)
                status = proc.returncode
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = proc.communicate()
                status = None
            verdicts = [l for l in out.splitlines() if l.startswith(("FAIL ", "CRASH", "HANG "))]
            cases = [f for f in os.listdir(corpus) if f.endswith(".case")] if os.path.isdir(corpus) else []
            p.judge("signals", f"{signal.Signals(sig).name} after {delay} s ({len(workers)} workers)", status, err,
                    [victim], extra=[f"a correct entry's verdict: {verdicts[0][:80]}" if verdicts else None,
                                     f"a corpus case written: {cases}" if cases else None,
                                     "exit 1 for correct entries" if status == 1 else None])


def tokens(p, good):
    """Damaged tokens: one line, exit 2, no raw control characters echoed."""
    damages = []
    for i in range(40):
        t = list(good)
        k = p.rng.randrange(len(t))
        op = i % 5
        if op == 0:
            t[k] = p.rng.choice("/\n\t\x1b\x7f\x00.x9-+ ")
        elif op == 1:
            del t[k]
        elif op == 2:
            t.insert(k, p.rng.choice(["/", "\n", "\u202e", "..", "\x1b[2J", "%s%n"]))
        elif op == 3:
            t = t[:k]
        else:
            t = t + list(p.rng.choice(["/", ".case", "\n", " x", "\u202e"]))
        damages.append("".join(t))
    damages += ["as2.", "as3.", "as1", "as2./etc/passwd", "as9.x.y", "as2." + "9" * 400]
    for t in damages:
        if "\x00" in t:
            t = t.replace("\x00", "")  # (no argv holds a NUL)
        status, out, err = p.run(["repro", t, "--backend", "cpu", "--runs", "1"], timeout=30)
        raw = any(c in err for c in ("\x1b", "\u202e", "\x7f"))
        p.judge("tokens", repr(t[:40]), status, err,
                extra=["echoed a control character raw" if raw else None,
                       f"status {status} for a damaged token" if status not in (1, 2) and t != good else None])


def state_files(p, good_state):
    """Mutated state files for --resume: refused in one line, or resumed."""
    base = json.load(open(good_state))
    mutants = []
    for key in list(base.keys()):
        m = dict(base)
        del m[key]
        mutants.append(("missing " + key, json.dumps(m)))
        for bad in (None, -1, "x", [], {}, 1e300, True):
            m = dict(base)
            m[key] = bad
            mutants.append((f"{key}={bad!r}", json.dumps(m)))
    mutants.append(("replayed_cases with a path", json.dumps(dict(base, replayed=False,
                                                                   replayed_cases=["../../victim"]))))
    mutants.append(("truncated", json.dumps(base)[:50]))
    mutants.append(("empty", ""))
    for what, text in mutants:
        d, victim = p.scratch()
        corpus = os.path.join(d, "c")
        os.makedirs(corpus)
        open(os.path.join(corpus, "fuzz-state.json"), "w").write(text)
        status, _, err = p.run(["fuzz", "--resume", "--corpus", corpus], timeout=60)
        p.judge("state", what, status, err, [victim], extra=["json.exception in the message" if "json.exception"
                                                             in err else None])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bindir")
    ap.add_argument("--only")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="atomstress-probe-")
    p = Probe(a.bindir, root, random.Random(a.seed))
    try:
        # The material: a passing and a failing log, a state, a token.
        d, _ = p.scratch()
        passing, failing = os.path.join(d, "pass.jsonl"), os.path.join(d, "fail.jsonl")
        p.run(["fuzz", "--backend", "cpu", "--impl", "native.add.i32,buggy.exch_store.add.i32", "--time", "2s",
               "--cpu-threads", "1", "--json", passing])
        p.run(["fuzz", "--backend", "cpu", "--impl", "native.add.i32,buggy.exch_store.add.i32", "--time", "2s",
               "--json", failing, "--corpus", os.path.join(d, "c")])
        token = next(json.loads(l)["token"] for l in open(failing) if json.loads(l).get("token"))
        p.run(["fuzz", "--backend", "cpu", "--impl", "native.add.i32", "--time", "1s", "--corpus",
               os.path.join(d, "s")])
        state = os.path.join(d, "s", "fuzz-state.json")
        parts = {"links": lambda: planted_links(p), "names": lambda: forged_names(p, failing),
                 "appended": lambda: appended_logs(p, passing, failing), "pipes": lambda: pipes(p),
                 "signals": lambda: worker_signals(p), "tokens": lambda: tokens(p, token),
                 "state": lambda: state_files(p, state)}
        for name, part in parts.items():
            if a.only and name != a.only:
                continue
            t = time.time()
            part()
            total, failed = p.counts.get(name, [0, 0])
            print(f"{name}: {total} inputs, {failed} failed ({time.time() - t:.0f} s)", flush=True)
        for f in p.failures:
            print("FAILED " + f)
        total = sum(c[0] for c in p.counts.values())
        failed = sum(c[1] for c in p.counts.values())
        print(f"probe: {total} inputs, {failed} failed")
        return 1 if failed else 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
