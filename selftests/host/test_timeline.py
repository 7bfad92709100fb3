#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of `tdctl timeline`: the Chrome Trace Event Format JSON it
writes from record files (tdfile_gen.py's, written from the format's
specification) is valid by the format's rules (trace_check.py) and holds
exactly the records: one X event per slice on its CPU's track, at the
slice's time in microseconds, with its pid, tid, comm and counts; lost
records as instant events adding up to the file's lost counts; counter
events per thread; the --min-slice and --from/--to filters. A bad input
is refused with a clear error and never destroys a file: not the input
(-o naming it is refused), not an existing output (written to a
temporary file and renamed). And every file of the fuzz corpus is either
refused with an error or gives a valid trace. TAP.
"""
import json
import os
import random
import signal
import subprocess
import sys
import time
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]  # tap.py: selftests/lib
import tdfile_gen  # noqa: E402
import trace_check  # noqa: E402
from tap import TDCTL, TOP, main, ok, test  # noqa: E402

CPU_PID = 1 << 22


def timeline(*args):
    p = subprocess.run([TDCTL, "timeline"] + list(args), capture_output=True,
                       text=True)
    return p.returncode, p.stdout, p.stderr


def random_scenario(n=3000, cpus=4, lost=None, target="all tasks", seed=7):
    rnd = random.Random(seed)
    recs, t = [], [tdfile_gen.START_NS + 1000 * c for c in range(cpus)]
    seq = [0] * cpus
    for i in range(n):
        c = i % cpus
        d = 1000 * rnd.randint(1, 400) + rnd.randint(0, 999)
        t[c] += d + rnd.choice((0, 0, 5000))
        tgid = 100 + rnd.randint(0, 5) * 10
        pid = tgid + rnd.randint(0, 2)
        seq[c] += 1 + (1 if rnd.random() < 0.01 else 0)
        recs.append(tdfile_gen.Rec(c, pid, tgid, "t%d \"q\"\\" % pid, t[c], d,
                                   [3 * d, 2 * d], cgroup=1 + pid % 3,
                                   seq=seq[c]))
    return tdfile_gen.Scenario("set=generic", ["cycles", "instructions"], cpus,
                               recs, lost=lost, target=target,
                               duration_ns=max(t) - tdfile_gen.START_NS + 1)


def expected_slices(sc):
    base = min([sc.start_ns] + [r.time_ns - r.duration_ns for r in sc.records])
    exp = []
    for r in sc.records:
        exp.append((CPU_PID + 1 + r.cpu, r.time_ns - r.duration_ns - base,
                    r.duration_ns, tdfile_gen.comm_text(r.comm), r.tgid, r.pid,
                    tuple(r.deltas)))
    return sorted(exp), base


def got_slices(t):
    out = []
    for e in t["traceEvents"]:
        if e["ph"] != "X":
            continue
        a = e["args"]
        out.append((e["tid"], int(e["ts"] * 1000), int(e["dur"] * 1000),
                    e["name"], a["pid"], a["tid"], tuple(a["counts"].values())))
    return sorted(out)


def lost_by_cpu(t):
    out = {}
    for e in t["traceEvents"]:
        if e["ph"] == "i":
            c = e["tid"] - CPU_PID - 1
            out[c] = out.get(c, 0) + e["args"]["lost"]
    return out


def check_file(tmp, name, sc, *args):
    src = os.path.join(tmp, name + ".td")
    out = os.path.join(tmp, name + ".json")
    sc.write(src)
    rc, _, err = timeline("-i", src, "-o", out, *args)
    if not ok(rc == 0, "%s: timeline succeeds" % name, err):
        return None
    t = trace_check.load(out)
    bad = trace_check.problems(t)
    ok(not bad, "%s: valid Chrome Trace Event Format (%d events)"
       % (name, len(t["traceEvents"])), "\n".join(bad))
    return t


@test
def test_scenarios(tmp):
    for name in ("generic", "software", "n2"):
        sc = tdfile_gen.SCENARIOS[name]()
        t = check_file(tmp, name, sc, "--counters", "slice")
        if not t:
            continue
        exp, _ = expected_slices(sc)
        got = got_slices(t)
        ok(got == exp, "%s: one X event per record on its CPU's track, ts/dur "
           "in microseconds, comm, pid, tid, counts" % name,
           "got %r\nexpected %r" % (got[:3], exp[:3]))
        ok(lost_by_cpu(t) == {c: n for c, n in enumerate(sc.lost) if n},
           "%s: lost instant events add up to the file's lost counts %r"
           % (name, sc.lost), lost_by_cpu(t))
    # n2 decodes: counter tracks per thread with the TopDown fractions,
    # the same values as the slice's own metrics.
    if not ok(os.path.exists(os.path.join(tmp, "n2.json")), "n2: a trace"):
        return
    t = trace_check.load(os.path.join(tmp, "n2.json"))
    xs = [e for e in t["traceEvents"] if e["ph"] == "X"]
    cs = [e for e in t["traceEvents"] if e["ph"] == "C"]
    want = {"retiring", "bad_speculation", "frontend_bound", "backend_bound"}
    ok(len(cs) == len(xs) and all(want <= set(c["args"]) for c in cs) and
       all(c["name"] == "tid %d" % c["tid"] for c in cs),
       "n2, --counters slice: a counter event per slice, named after its "
       "thread, with the four TopDown fractions", cs[:2])
    pairs = {(x["ts"], x["args"]["tid"]): x["args"]["metrics"] for x in xs}
    ok(all(all(pairs[(c["ts"], c["tid"])][k] == v for k, v in c["args"].items())
           for c in cs), "n2: counter values equal the slice's metrics")
    bad = []
    for x in xs:
        c = x["args"]["counts"]
        p = subprocess.run(
            [TDCTL, "-j", "decode", "--set", "arm_neoverse_n2", "--slots", "5",
             "--revision", "r0p0"] + ["%s=%d" % kv for kv in c.items()],
            capture_output=True, text=True)
        want_m = json.loads(p.stdout)["metrics"]
        got_m = x["args"]["metrics"]
        if set(got_m) != set(want_m) or any(
                abs(got_m[k] - Decimal(repr(want_m[k]))) > Decimal("0.000001")
                for k in want_m):
            bad.append("%r != %r" % (got_m, want_m))
    ok(not bad, "n2: each slice's metrics are what tdctl decode gives for "
       "its counts", "\n".join(bad))
    procs = {e["pid"]: e["args"]["name"] for e in t["traceEvents"]
             if e["ph"] == "M" and e["name"] == "process_name"}
    ok(procs == {CPU_PID: "CPUs", 500: "n2task0", 501: "n2task1"},
       "n2: process names: the CPUs and each process", procs)


@test
def test_random(tmp):
    # Gaps in the sequence numbers of an all-tasks recording place the
    # lost records in time; the rest of the trailer's count is at the end.
    sc = random_scenario(lost=[2, 0, 50, 1])
    t = check_file(tmp, "random", sc)
    if t:
        exp, base = expected_slices(sc)
        ok(got_slices(t) == exp, "random: every record, exactly")
        ok(lost_by_cpu(t) == {0: 2, 2: 50, 3: 1}, "random: lost per CPU",
           lost_by_cpu(t))
        gaps = [e for e in t["traceEvents"] if e["ph"] == "i" and
                e["args"]["why"] == "ring full"]
        ok(gaps and all(e["ts"] < Decimal(sc.stop_ns - base) / 1000 for e in gaps),
           "random: losses at sequence gaps are placed where they happened",
           len(gaps))
    # Lost records of a CPU without a slice: still on a named track.
    sc3 = random_scenario(n=200, cpus=2)
    sc3.nr_cpus, sc3.lost = 3, [0, 0, 7]
    t = check_file(tmp, "lostonly", sc3)
    if t:
        ok(lost_by_cpu(t) == {2: 7}, "lost records of a CPU without slices",
           lost_by_cpu(t))
    # With a selection, gaps are other tasks' records, not losses.
    sc2 = random_scenario(lost=[0, 0, 0, 0], target="pids 100")
    t = check_file(tmp, "selected", sc2)
    if t:
        ok(lost_by_cpu(t) == {}, "selected: sequence gaps are not losses",
           lost_by_cpu(t))
    # --min-slice and the window.
    t = check_file(tmp, "minslice", sc, "--min-slice", "200")
    if t:
        exp = [s for s in expected_slices(sc)[0] if s[2] >= 200000]
        ok(got_slices(t) == exp, "--min-slice 200: slices of 200 us and more (%d)"
           % len(exp))
    t = check_file(tmp, "window", sc, "--from", "0.1", "--to", "0.2")
    if t:
        lo, hi = sc.start_ns + 100_000_000, sc.start_ns + 200_000_000
        keep = [r for r in sc.records
                if r.time_ns > lo and r.time_ns - r.duration_ns < hi]
        got = got_slices(t)
        ok(len(got) == len(keep) and keep,
           "--from 0.1 --to 0.2: the slices that overlap the window (%d)"
           % len(keep), "%d %d" % (len(got), len(keep)))


N2_OPTS = ["--slots", "5", "--revision", "r0p0"]


def drifting(threads=4, n=300, seed=10):
    """Set arm_neoverse_n2: each thread's breakdown drifts slowly from
    slice to slice (frontend from 10% to 60% of the slots), with noise."""
    rnd = random.Random(seed)
    recs, t = [], [tdfile_gen.START_NS] * 2
    for j in range(n):
        for k in range(threads):
            c = (j * threads + k) % 2
            d = rnd.randint(200_000, 900_000)
            t[c] += d + 1000
            cyc = d * 2
            slots = 5 * cyc
            fe = int(slots * (0.10 + 0.5 * j / n + rnd.uniform(-0.004, 0.004)))
            be = int(slots * (0.50 - 0.4 * j / n))
            stall = fe + be + cyc      # rev r0p0 takes CPU_CYCLES off
            spec = rnd.randint(cyc, 2 * cyc)
            recs.append(tdfile_gen.Rec(c, 700 + k, 700, "drift%d" % k, t[c], d,
                                       [cyc, spec * 9 // 10, spec, stall,
                                        fe + cyc, be, cyc // 2]))
    return tdfile_gen.Scenario("set=arm_neoverse_n2 slots=5 rev=r0p0",
                               tdfile_gen.N2_EVENTS, 2, recs, slots=5,
                               duration_ns=max(t) - tdfile_gen.START_NS + 1)


def decoded(counts):
    p = subprocess.run([TDCTL, "-j", "decode", "--set", "arm_neoverse_n2"] +
                       N2_OPTS + ["%s=%d" % kv for kv in counts.items()],
                       capture_output=True, text=True)
    return json.loads(p.stdout)["metrics"] if p.returncode == 0 else {}


@test
def test_counters(tmp):
    """--counters: when a thread's counter track gets a
    value, and what it is."""
    sc = drifting()
    src = os.path.join(tmp, "drift.td")
    sc.write(src)
    traces = {}
    for mode in ("none", "slice", "change", "change:0", "interval:0.05",
                 "interval", None):
        out = os.path.join(tmp, "drift-%s.json" % mode)
        rc, _, err = timeline("-i", src, "-o", out,
                              *(["--counters", mode] if mode else []))
        t = trace_check.load(out) if rc == 0 else {"traceEvents": []}
        bad = trace_check.problems(t) if rc == 0 else [err]
        ok(not bad, "--counters %s: a valid trace" % (mode or "(the default)"),
           "\n".join(bad))
        traces[mode] = t["traceEvents"]
    xs = [e for e in traces["slice"] if e["ph"] == "X"]
    n = len(xs)

    def cs(mode):
        return [e for e in traces[mode] if e["ph"] == "C"]
    ok(not cs("none"), "--counters none: no counter events")
    ok(len(cs("slice")) == n, "--counters slice: one per slice (%d)" % n)
    ok(len(cs("change:0")) == n,
       "--counters change:0: one per slice whose values differ (%d)" % n)
    # change: every slice's values within 0.05 of what its track shows
    shown, worst, bad = {}, 0.0, []
    events = sorted(xs + cs("change"), key=lambda e: (e["ts"], e["ph"] == "X"))
    for e in events:
        tid = e["tid"] if e["ph"] == "C" else e["args"]["tid"]
        if e["ph"] == "C":
            shown[tid] = e["args"]
            continue
        if tid not in shown:
            bad.append("slice at %s before its thread's first value" % e["ts"])
            continue
        for k, v in e["args"]["metrics"].items():
            lim = Decimal("0.05") * (abs(shown[tid][k]) if k == "ipc" else 1)
            d = abs(shown[tid][k] - v)
            worst = max(worst, float(d / lim) if lim else 0)
            if d > lim + Decimal("1e-6"):
                bad.append("%s %s: shown %s, slice %s" % (e["ts"], k, shown[tid][k], v))
    nc = len(cs("change"))
    ok(not bad and nc < n / 3,
       "--counters change (0.05): %d counter events for %d slices, every "
       "slice within 0.05 of its track (worst %.2f of the bound)"
       % (nc, n, worst), "\n".join(bad[:5]))
    # interval: per thread per interval, the breakdown of its slices' sums
    base = Decimal(0)
    sums = {}
    for x in xs:
        k = int((x["ts"] - base) // Decimal("50000"))
        acc = sums.setdefault((x["args"]["tid"], k), {})
        for ev, v in x["args"]["counts"].items():
            acc[ev] = acc.get(ev, 0) + v
    got = {(e["tid"], int(e["ts"] // Decimal("50000"))): e
           for e in cs("interval:0.05")}
    bad = []
    for key in sorted(sums)[:40] + sorted(sums)[-10:]:
        want = decoded(sums[key])
        e = got.get(key)
        if not e or e["ts"] % Decimal("50000") or any(
                abs(e["args"][m] - Decimal(repr(v))) > Decimal("1e-6")
                for m, v in want.items() if m in e["args"]):
            bad.append("%r: %r, want %r" % (key, e and e["args"], want))
    ok(len(got) == len(sums) and not bad,
       "--counters interval:0.05: one per thread per interval (%d), at its "
       "start, the breakdown of the sums of its slices there" % len(sums),
       "%d events, %d (thread, interval)s\n%s" % (len(got), len(sums),
                                                  "\n".join(bad[:5])))
    ok(traces[None] == traces["interval"] and
       len(cs("interval")) < len(cs("interval:0.05")),
       "no --counters: --counters interval, of 0.1 s")
    for bad_mode in ("bogus", "change:-1", "change:x", "change:", "interval:0",
                     "interval:x", "slice:1", "none:0"):
        rc, _, err = timeline("-i", src, "-o", os.path.join(tmp, "x.json"),
                              "--counters", bad_mode)
        ok(rc != 0 and "--counters" in err and
           not os.path.exists(os.path.join(tmp, "x.json")),
           "--counters %s: refused, nothing written" % bad_mode, err)


@test
def test_files(tmp):
    sc = tdfile_gen.generic()
    src = os.path.join(tmp, "in.td")
    sc.write(src)
    with open(src, "rb") as fh:
        orig = fh.read()
    link = os.path.join(tmp, "link.td")
    os.link(src, link)
    for out in (src, link):
        rc, _, err = timeline("-i", src, "-o", out)
        with open(src, "rb") as fh:
            same = fh.read() == orig
        ok(rc == 1 and "input file" in err and same,
           "-o %s (the input) is refused, the input intact"
           % os.path.basename(out), err)
    # A bad input: an error naming the offset, the old output intact and
    # no temporary file left behind.
    outdir = os.path.join(tmp, "out")
    os.mkdir(outdir)
    out = os.path.join(outdir, "trace.json")
    with open(out, "w") as fh:
        fh.write("precious")
    bad = os.path.join(tmp, "bad.td")
    with open(bad, "wb") as fh:
        fh.write(orig[:len(orig) - 200])
    rc, _, err = timeline("-i", bad, "-o", out)
    with open(out) as fh:
        kept = fh.read() == "precious"
    ok(rc == 1 and "offset" in err and kept and os.listdir(outdir) == ["trace.json"],
       "a truncated file: refused with its offset, the old output kept",
       err + repr(os.listdir(outdir)))
    rc, _, err = timeline("-i", src, "-o", out)
    ok(rc == 0 and trace_check.load(out)["traceEvents"] and
       os.listdir(outdir) == ["trace.json"],
       "a good file replaces the old output, no temporary file left", err)
    rc, _, err = timeline("-i", src, "-o", os.path.join(tmp, "nodir", "t.json"))
    ok(rc == 1 and "nodir" in err, "an output directory that does not exist: an error", err)
    rc, _, err = timeline("-i", src, "--from", "2", "--to", "1")
    ok(rc == 2 and "--to" in err, "--to before --from: an error", err)
    rc, _, err = timeline("-i", src, "--duration", "1")
    ok(rc == 2 and "exclude" in err, "-i and --duration exclude each other", err)
    rc, outp, err = timeline("-i", src)
    try:
        t = json.loads(outp, parse_float=Decimal)
    except ValueError:
        t = None
    ok(rc == 0 and t and not trace_check.problems(t),
       "without -o: the trace on stdout", err)


@test
def test_fuzz(tmp):
    corpus = os.path.join(TOP, "selftests/fuzz/corpus")
    files = sorted(os.listdir(corpus)) if os.path.isdir(corpus) else []
    bad, valid, refused = [], 0, 0
    outdir = os.path.join(tmp, "fuzz")
    os.mkdir(outdir)
    for name in files:
        out = os.path.join(outdir, "t.json")
        rc, _, err = timeline("-i", os.path.join(corpus, name), "-o", out)
        if rc == 0:
            probs = trace_check.problems(trace_check.load(out))
            if probs:
                bad.append("%s: %s" % (name, probs[0]))
            valid += 1
            os.unlink(out)
        elif rc == 1 and "Error" in err and not os.listdir(outdir):
            refused += 1
        else:
            bad.append("%s: rc %d, %r, %r" % (name, rc, err.strip(), os.listdir(outdir)))
    ok(files and not bad, "fuzz corpus: %d files, %d refused with an error, "
       "%d give valid traces" % (len(files), refused, valid), "\n".join(bad))


@test
def test_live(tmp):
    """--duration: live, from the reader benchmark's fake rings."""
    b = subprocess.run(["make", "-s", "-C", os.path.join(TOP, "selftests/bench"),
                        "reader"], capture_output=True, text=True)
    if not ok(b.returncode == 0, "rdbench builds (the fake rings)", b.stderr):
        return
    out_dir = os.environ.get("OUT") or os.path.join(TOP, "build/host/")
    fx = os.path.join(tmp, "fx")
    subprocess.run([os.path.join(out_dir, "mkfixture"), fx, "qemu_arm64_max"],
                   check=True, stdout=subprocess.DEVNULL)
    out = os.path.join(tmp, "live.json")
    p = subprocess.run([os.path.join(TOP, "build/host/bench/rdbench"), "--fixture",
                        os.path.join(fx, "qemu_arm64_max"), "-n", "3000", "--cpus",
                        "2", "--live", "--", "timeline", "--duration", "0.3",
                        "-o", out], capture_output=True, text=True)
    t = trace_check.load(out) if p.returncode == 0 else {}
    bad = trace_check.problems(t) if t else [p.stderr]
    n = sum(1 for e in t.get("traceEvents", []) if e["ph"] == "X")
    ok(not bad and n == 3000 and t["otherData"]["source"] == "live",
       "--duration 0.3: the 3000 records of the rings as a valid trace",
       "\n".join(bad) + " %d slices" % n)
    # ^C while the trace is written: the temporary file goes, the old
    # trace stays.
    big = os.path.join(tmp, "big.td")
    subprocess.run([os.path.join(TOP, "build/host/bench/rdbench"), "--fixture",
                    os.path.join(fx, "qemu_arm64_max"), "-n", "400000", "--cpus",
                    "4", "--write", big], check=True)
    outdir = os.path.join(tmp, "sig")
    os.mkdir(outdir)
    out = os.path.join(outdir, "t.json")
    with open(out, "w") as fh:
        fh.write("old")
    p = subprocess.Popen([TDCTL, "timeline", "-i", big, "-o", out],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen = False
    for _ in range(1000):
        if any(f.startswith("t.json.") for f in os.listdir(outdir)):
            seen = True
            break
        if p.poll() is not None:
            break
        time.sleep(0.005)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    with open(out) as fh:
        kept = fh.read() == "old"
    ok(seen and p.returncode == 1 and "interrupted" in err and kept and
       os.listdir(outdir) == ["t.json"],
       "SIGINT while writing: an error, the temporary file removed, the old "
       "trace kept", "seen %s rc %s %r %r" % (seen, p.returncode, err, os.listdir(outdir)))
    os.unlink(big)


@test
def test_size(tmp):
    """The size warning (tdctl-timeline(8), SIZE): before writing, the
    trace's size is estimated from the slices it will show; above
    --max-size (default 512 MiB, what a browser can open) a warning gives
    the estimate and names the options that make the trace smaller. The
    trace is still written, rc 0."""
    import re
    sc = random_scenario()
    path = os.path.join(tmp, "size.td")
    sc.write(path)
    out = os.path.join(tmp, "size.json")
    rc, _, err = timeline("-i", path, "-o", out)
    size = os.path.getsize(out) if rc == 0 else 0
    ok(rc == 0 and "max-size" not in err,
       "a %d-byte trace: no size warning by default" % size, err)
    rc, _, err = timeline("-i", path, "-o", out, "--max-size", str(size // 2))
    m = re.search(r"about \S+ \S+ \((\d+) slices of about (\d+) bytes\), "
                  r"more than --max-size", err)
    est = int(m.group(1)) * int(m.group(2)) if m else 0
    ok(rc == 0 and m and int(m.group(1)) == len(sc.records) and
       abs(est - size) < 0.1 * size and os.path.getsize(out) == size,
       "--max-size half the trace: a warning with the estimate (%d bytes for "
       "%d), and the trace written" % (est, size), err)
    ok(all(o in err for o in ("--from/--to", "--min-slice", "--pid",
                              "--counters none", "512 MiB", "slices fit")),
       "the warning names what makes the trace smaller", err)
    rc, _, err = timeline("-i", path, "-o", out, "--max-size",
                          "%dK" % (size * 2 // 1024))
    ok(rc == 0 and "max-size" not in err,
       "--max-size %dK, twice the trace: no warning" % (size * 2 // 1024), err)
    # the estimate counts the slices shown: --min-slice cuts it
    rc, _, err = timeline("-i", path, "-o", out, "--max-size", str(size // 2),
                          "--min-slice", "300")
    ok(rc == 0 and "max-size" not in err,
       "--min-slice 300 leaves a quarter of the slices: no warning", err)
    rc, _, err = timeline("-i", path, "-o", out, "--max-size", "0")
    ok(rc == 0 and "max-size" not in err, "--max-size 0: never a warning", err)
    rc, _, err = timeline("-i", path, "-o", out, "--max-size", "5X")
    ok(rc == 2 and "--max-size" in err, "--max-size 5X: a usage error", err)


@test
def test_stable_keys(tmp):
    """Every slice's args have the same keys, as tdctl-timeline(8) lists
    them (preempted and first true or false, metrics {} when none)."""
    path = os.path.join(tmp, "keys.td")
    tdfile_gen.generic().write(path)
    out = os.path.join(tmp, "keys.json")
    rc, _, err = timeline("-i", path, "-o", out)
    ev = json.loads(open(out).read())["traceEvents"] if rc == 0 else []
    keys = {tuple(sorted(e["args"])) for e in ev if e.get("ph") == "X"}
    want = ("cgroup_id", "counts", "first", "metrics", "pid", "preempted",
            "tid")
    ok(rc == 0 and keys == {want},
       "every slice's args: %s" % ", ".join(want), "%s\n%s" % (keys, err))
    sc = tdfile_gen.grouped_small()
    gpath = os.path.join(tmp, "keys-groups.td")
    sc.write(gpath)
    rc, _, err = timeline("-i", gpath, "-o", out)
    ev = json.loads(open(out).read())["traceEvents"] if rc == 0 else []
    keys = {tuple(sorted(e["args"])) for e in ev if e.get("ph") == "X"}
    want = tuple(sorted(want + ("group", "rotated")))
    ok(rc == 0 and keys == {want},
       "rotated groups: every slice's args: %s" % ", ".join(want),
       "%s\n%s" % (keys, err))


@test
def test_left_out(tmp):
    """The last line counts apart the slices the filters leave out and
    those outside the --from/--to window."""
    import re
    path = os.path.join(tmp, "left.td")
    tdfile_gen.generic().write(path)
    out = os.path.join(tmp, "left.json")
    rc, _, err = timeline("-i", path, "-o", out, "--comm", "beta",
                          "--to", "1")
    m = re.search(r"(\d+) slices, .*; (\d+) left out by the filters, "
                  r"(\d+) outside the window", err)
    beta = [r for r in tdfile_gen.generic().records if r.comm == "beta"]
    late = [r for r in beta
            if r.time_ns - r.duration_ns >= tdfile_gen.START_NS + 10**9]
    got = tuple(int(x) for x in m.groups()) if m else None
    ok(rc == 0 and got == (len(beta) - len(late), 60 - len(beta), len(late)),
       "--comm beta --to 1: %s shown, left out by --comm, outside the "
       "window" % (got,), err)


@test
def test_numbers(tmp):
    """The numbers are the shortest text that reads back (tdctl(8),
    COLUMNS), not six decimals."""
    import re
    path = os.path.join(tmp, "nums.td")
    tdfile_gen.generic().write(path)
    out = os.path.join(tmp, "nums.json")
    rc, _, err = timeline("-i", path, "-o", out)
    text = open(out).read() if rc == 0 else ""
    six = re.findall(r'"ipc":-?\d+\.\d*0\b', text)
    ok(rc == 0 and not six and '"ipc":0.5' in text,
       "numbers as their shortest text (ipc 0.5, not 0.500000)",
       "%s\n%s" % (six[:5], err))


if __name__ == "__main__":
    main()
