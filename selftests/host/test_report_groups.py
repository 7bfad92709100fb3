#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests: the readers (report, top -i, dump -i) of recordings with
rotated event groups, as a user sees them (Documentation/design.rst,
"Estimates from rotated groups"; tdctl-report(8)). Written from the
docs and the file format, as an outsider:

 - a Level 2 configuration of a real set (its groups as `tdctl list -j`
   shows them, the label `load --level 2` would write), recorded by a
   slice-by-slice simulation whose per-task truth is known exactly
   (tdfile_gen.simulate);
 - report -j: every count and metric with its coverage (exactly the share
   of the task's time its group(s) measured) and its error; the truth
   within the reported error at the normal rates; unknown is null, never 0;
 - CSV carries the same values in NAME, NAME_coverage, NAME_error; the
   table prints value+-error [coverage], the Level 2 classes under their
   Level 1 class, and says what unknown means;
 - top -i and dump -i show the same file (dump: each slice's group);
 - stat and serve on a fake device with rotated groups (rdbench
   --groups): serve's per-group counters are the records' sums.
TAP.
"""
import csv
import io
import json
import math
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
import tdfile_gen as T  # noqa: E402
from tap import TOP, fixture, main, ok, require, run, skip_all, test  # noqa: E402

MKFIXTURE = os.path.join(os.environ.get("OUT") or os.path.join(TOP, "build/host/"),
                         "mkfixture")
SLOTS = 5   # Neoverse N2's slot width (the set's slots=5)


def plan_of(tmp):
    """The pool, groups and label of `--level 2 -M TLB`-like groups l1 and
    dt of arm_neoverse_n2, from `tdctl list -j` on an N2 fixture."""
    fx = os.path.join(tmp, "fx")
    os.system("%s %s neoverse_n2_r0p3 >/dev/null" % (MKFIXTURE, fx))
    rc, out, err = run("list", "--root", os.path.join(fx, "neoverse_n2_r0p3"),
                       "-s", "arm_neoverse_n2", "-j")
    if rc:
        return None, err
    sel = json.loads(out)["selected"]
    groups = {g["id"]: g for g in sel["groups"]}
    pool, idx = [], []
    for gid in ("l1", "dt"):
        ix = []
        for e in groups[gid]["events"]:
            if e["name"] not in pool:
                pool.append(e["name"])
            ix.append(pool.index(e["name"]))
        idx.append(ix)
    return (pool, idx, sel["label"] + " g=l1,dt",
            {g: groups[g]["metrics"] for g in ("l1", "dt")}), ""


# True rates per microsecond: slots = 5 cycles.
BASE = {"CPU_CYCLES": 2000, "OP_RETIRED": 3500, "OP_SPEC": 4000,
        "STALL_SLOT": 5000, "STALL_SLOT_FRONTEND": 2000,
        "STALL_SLOT_BACKEND": 3000, "INST_RETIRED": 3000, "L1D_TLB": 1500,
        "L1D_TLB_REFILL": 30, "DTLB_WALK": 5, "L2D_TLB": 30,
        "L2D_TLB_REFILL": 6}

# The metrics whose formulas the docs give without a correction term
# (event-sets.rst; `tdctl list` prints them), from a task's true sums.
TRUTH = {
    "backend_bound": lambda c: c["STALL_SLOT_BACKEND"] / (SLOTS * c["CPU_CYCLES"]),
    "ipc": lambda c: c["INST_RETIRED"] / c["CPU_CYCLES"],
    "l1d_tlb_miss_ratio": lambda c: c["L1D_TLB_REFILL"] / c["L1D_TLB"],
    "dtlb_mpki": lambda c: 1000 * c["DTLB_WALK"] / c["INST_RETIRED"],
    "l2_tlb_miss_ratio": lambda c: c["L2D_TLB_REFILL"] / c["L2D_TLB"],
}
HOME = {"backend_bound": 0, "ipc": 0, "l1d_tlb_miss_ratio": 1,
        "dtlb_mpki": 1, "l2_tlb_miss_ratio": 1}


def simulate(seed, pool, groups, label, rotate_ms=5, dur=600_000_000,
             short=False):
    rng = random.Random(seed)
    tasks, pid = [], 2000
    for c in range(4):
        for _ in range(4):
            rates = [BASE[e] * rng.uniform(0.7, 1.3) for e in pool]
            ph = []
            if rng.random() < 0.5:   # a task that changes halfway
                ph = [(0.5, [r * rng.uniform(0.6, 1.5) for r in rates])]
            tasks.append(T.Task(pid, pid, "w%d" % pid, rates,
                                [c] if rng.random() < 0.7 else [c, (c + 1) % 4],
                                slice_ns=rng.choice([100_000, 300_000]),
                                phases=ph, rho=0.3,
                                weight=0.03 if short and pid % 4 == 0 else 1.0))
            pid += 1
    return T.simulate(rng, pool, groups, tasks, nr_cpus=4, rotate_ms=rotate_ms,
                      duration_ns=dur, p_error=0.01, label=label)


def check_report(path, sc, truth, pool, groups, zs, unknown, problems,
                 exact):
    rc, out, err = run("report", "-i", path, "--by", "task", "-j")
    if rc:
        problems.append("report -j: rc %d %s" % (rc, err))
        return None
    d = json.loads(out)
    for row in d["rows"]:
        tr = truth.get(row["tid"])
        if tr is None:
            continue
        c = dict(zip(pool, tr["counts"]))
        T_ns = tr["time_ns"]
        for name in list(pool) + list(TRUTH):
            is_count = name in pool
            val = row["counts" if is_count else "metrics"].get(name, "absent")
            cov = row["coverage"].get(name)
            e = row["error"].get(name, "absent")
            if is_count:
                k = pool.index(name)
                meas = sum(tr["measured_ns"][g] for g, grp in enumerate(groups)
                           if k in grp)
                want = c[name]
            else:
                meas = tr["measured_ns"][HOME[name]]
                want = TRUTH[name](c)
            if cov is None or abs(cov - meas / T_ns) > 1e-12:
                problems.append("pid %d %s: coverage %s, measured %d of %d ns"
                                % (row["tid"], name, cov, meas, T_ns))
            if val is None:
                unknown.append((name, e, meas))
            elif val == "absent" or e == "absent":
                problems.append("pid %d %s: no value or error" % (row["tid"], name))
            elif e is None or not (e > 0 or (e == 0 and cov == 1)):
                problems.append("pid %d %s: value %s with error %s, "
                                "coverage %s" % (row["tid"], name, val, e, cov))
            elif e == 0:
                exact.append(name)
            else:
                zs.append(abs(val - want) / e)
    return d


def shares(zs):
    n = len(zs)
    return [sum(1 for z in zs if z <= k) / n for k in (1, 2, 3)] if n else [0] * 3


@test
def test_estimates(tmp, group_plan):
    pool, groups, label, _ = group_plan
    path = os.path.join(tmp, "l2.td")
    zs, unknown, problems, exact = [], [], [], []
    for seed, kw in enumerate([dict(), dict(rotate_ms=2),
                               dict(rotate_ms=10, dur=1_000_000_000),
                               dict(short=True, dur=200_000_000)]):
        sc, truth = simulate(100 + seed, pool, groups, label, **kw)
        sc.write(path)
        check_report(path, sc, truth, pool, groups, zs, unknown, problems,
                     exact)
    ok(not problems, "report -j of a Level 2 recording: every count and metric "
       "has its coverage, exactly the share of the task's time its group(s) "
       "measured, and a positive error where it has a value (0 only when "
       "measured all the time: %d)" % len(exact),
       "\n".join(problems[:20]))
    w = shares(zs)
    print("# %d estimates (counts and Level 1/2 metrics of 4 recordings): "
          "within 1, 2, 3 errors of the truth %.1f %.1f %.1f %% "
          "(normal 68.3 95.4 99.7)" % (len(zs), 100 * w[0], 100 * w[1], 100 * w[2]))
    ok(len(zs) > 800 and 0.55 < w[0] < 0.92 and w[1] > 0.88 and w[2] > 0.96,
       "report's estimates within 1, 2, 3 reported errors of the truth: "
       "%.3f %.3f %.3f of %d" % (w[0], w[1], w[2], len(zs)))
    ok(unknown and all(e is None for _, e, _ in unknown),
       "too few measured stretches: value and error null (unknown, never 0), "
       "%d of them" % len(unknown), str(unknown[:5]))


@test
def test_formats(tmp, group_plan):
    pool, groups, label, metrics = group_plan
    path = os.path.join(tmp, "f.td")
    sc, truth = simulate(7, pool, groups, label, dur=300_000_000, short=True)
    sc.write(path)
    rc, out, err = run("report", "-i", path, "--by", "task", "-j")
    rc2, out2, err2 = run("report", "-i", path, "--by", "task", "--csv")
    if not ok(rc == 0 and rc2 == 0, "report -j and --csv read the file",
              err + err2):
        return
    rows = {(r["pid"], r["tid"], r["comm"]): r for r in json.loads(out)["rows"]}
    good, detail = True, ""
    names = list(pool) + metrics["l1"] + metrics["dt"]
    lines = list(csv.DictReader(io.StringIO(out2)))
    for line in lines:
        if line["type"] != "group":
            continue
        r = rows[(int(line["pid"]), int(line["tid"]), line["comm"])]
        for n in names:
            grp = "counts" if n in pool else "metrics"
            for col, jv in ((n, r[grp][n]), (n + "_coverage", r["coverage"][n]),
                            (n + "_error", r["error"][n])):
                cv = line.get(col)
                same = (cv == "" and jv is None) if jv is None or cv == "" else \
                    cv is not None and math.isclose(float(cv), jv, rel_tol=1e-5,
                                                    abs_tol=1e-6)
                if not same:
                    good, detail = False, "tid %s %s: csv %r json %r" % (
                        line["tid"], col, cv, jv)
    ok(good and lines, "CSV: NAME, NAME_coverage, NAME_error of every count "
       "and metric, the JSON's values (unknown: empty)", detail)
    rc, out, err = run("report", "-i", path, "--by", "task")
    ok(rc == 0 and "\u00b1" in out and "BACKEND.DTLB" not in out and
       "unknown [" in out and "standard error" in out and "unknown" in out,
       "the table: value\u00b1error [coverage], unknown with its coverage, "
       "the legend says what both are", out[-1500:] + err)
    hdr = [x for x in out.splitlines() if "PID" in x and "COMM" in x]
    ok(hdr and "BACKEND" in hdr[0] and "DTLB_MPKI" in hdr[0],
       "the table's titles: Level 1 classes and the drill-down metrics",
       hdr[0] if hdr else out[:600])
    rc, out, err = run("report", "-i", path, "-j")
    d = json.loads(out) if rc == 0 else {}
    ok(d.get("groups") == groups and d.get("rotate_ms") == 5 and
       [e["name"] for e in d.get("events", [])] == pool and
       d.get("set") == "arm_neoverse_n2",
       "report -j's header: the pool, the groups, the rotation, the set",
       err + str({k: d.get(k) for k in ("groups", "rotate_ms", "set")}))
    rc, out, err = run("top", "-i", path, "--batch", "-n", "1", "-j")
    d = json.loads(out.splitlines()[0]) if rc == 0 and out else {}
    ok(d.get("rows") and all("coverage" in r and "error" in r for r in d["rows"]),
       "top -i: the rows have their coverage and error", err + out[:300])
    rc, out, err = run("dump", "-i", path, "-j")
    recs = json.loads(out) if rc == 0 else []
    good = bool(recs)
    for r, src in zip(sorted(recs, key=lambda x: (x["time_ns"], x["cpu"])),
                      sorted(sc.records, key=lambda x: (x.time_ns, x.cpu))):
        g = (src.flags >> 16) & 0xf
        want = {pool[p]: None for p in range(len(pool))}
        if not src.flags & T.REC_ROTATED:
            for j, p in enumerate(groups[g]):
                want[pool[p]] = None if src.flags & (1 << j) else src.deltas[j]
        if r["group"] != g or r["rotated"] != bool(src.flags & T.REC_ROTATED) \
                or r["counts"] != want:
            good = False
            detail = "%s\n%s" % (r, want)
            break
    ok(good and len(recs) == len(sc.records),
       "dump -i -j: each slice's group, rotated flag and the counts of its "
       "group's events by name (the others null)", detail if not good else "")


@test
def test_hierarchy(tmp):
    """Intel Level 2 (intel_icl, groups l1, bs, be, re on an Ice Lake
    server fixture): each Level 1 class is followed by its Level 2 classes
    titled PARENT.CHILD, and the total row marks the bottleneck path: the
    largest Level 1 class and its largest child, as the JSON values say;
    JSON level2 and the legend say which Level 2 classes come from
    another group than their parent (need not add up to it)."""
    fx = os.path.join(tmp, "fxi")
    os.system("%s %s icelake_server >/dev/null" % (MKFIXTURE, fx))
    rc, out, err = run("list", "--root", os.path.join(fx, "icelake_server"), "-j")
    if not ok(rc == 0, "tdctl list -j on Ice Lake", err):
        return
    sel = json.loads(out)["selected"]
    pool, groups = [], []
    for g in sel["groups"]:
        ix = []
        for e in g["events"]:
            if e["name"] not in pool:
                pool.append(e["name"])
            ix.append(pool.index(e["name"]))
        groups.append(ix)
    label = sel["label"] + " g=" + ",".join(g["id"] for g in sel["groups"])
    rng = random.Random(5)
    tasks = [T.Task(3000 + i, 3000 + i, "icl%d" % i,
                    [rng.uniform(100, 2000) for _ in pool], [i % 4])
             for i in range(8)]
    sc, _ = T.simulate(rng, pool, groups, tasks, nr_cpus=4, rotate_ms=4,
                       duration_ns=300_000_000, label=label)
    path = os.path.join(tmp, "icl.td")
    sc.write(path)
    rc, out, err = run("report", "-i", path, "--metric-only")
    hdr = [ln for ln in out.splitlines() if ln.split()[:1] == ["PID"]]
    titles = hdr[0].split()[4:] if hdr else []
    want = ["RETIRING", "RETIRING.HEAVY_OPS", "RETIRING.LIGHT_OPS", "BAD_SPEC",
            "BAD_SPEC.BR_MISPRED", "BAD_SPEC.MACH_CLEAR", "FRONTEND",
            "FRONTEND.FETCH_LAT", "FRONTEND.FETCH_BW", "BACKEND",
            "BACKEND.MEM_BOUND", "BACKEND.CORE_BOUND", "IPC"]
    ok(titles == want, "--level 2 table: each Level 1 class, then its Level 2 "
       "classes titled PARENT.CHILD", "%s\n%s" % (titles, err))
    total = [ln for ln in out.splitlines() if ln.startswith("total")]
    cells = re.findall(r"\S+ \[\d+%\]|unknown \[\d+%\]", total[0]) if total else []
    marked = [t for t, c in zip(titles, cells) if c.startswith("*")]
    rc, out, err = run("report", "-i", path, "-j")
    m = json.loads(out)["total"]["metrics"] if rc == 0 else {}
    l1 = max(("retiring", "bad_speculation", "frontend_bound", "backend_bound"),
             key=lambda k: m[k])
    kids = {"retiring": ("heavy_operations", "light_operations"),
            "bad_speculation": ("branch_mispredicts", "machine_clears"),
            "frontend_bound": ("fetch_latency", "fetch_bandwidth"),
            "backend_bound": ("memory_bound", "core_bound")}[l1]
    kid = max(kids, key=lambda k: m[k])
    names = ["retiring", "heavy_operations", "light_operations",
             "bad_speculation", "branch_mispredicts", "machine_clears",
             "frontend_bound", "fetch_latency", "fetch_bandwidth",
             "backend_bound", "memory_bound", "core_bound", "ipc"]
    ok(titles == want and len(cells) == len(titles) and
       [names[want.index(t)] for t in marked] == [l1, kid],
       "the bottleneck path marked '*': %s (JSON: %s %.3f, then %s %.3f)"
       % (" > ".join(marked), l1, m[l1], kid, m[kid]),
       "%s\n%s" % (cells, marked))
    # Children from another group than their parent need not add up to
    # it: the JSON says which (level2), the legend names their parents.
    home = {}
    for g in sel["groups"]:
        for name in g["metrics"]:
            home.setdefault(name, g["id"])
    parent = {k: p for p, ks in {
        "retiring": ("heavy_operations", "light_operations"),
        "bad_speculation": ("branch_mispredicts", "machine_clears"),
        "frontend_bound": ("fetch_latency", "fetch_bandwidth"),
        "backend_bound": ("memory_bound", "core_bound")}.items() for k in ks}
    rc, out, err = run("report", "-i", path, "-j")
    got = json.loads(out).get("level2") if rc == 0 else None
    want2 = {k: {"parent": p, "same_slices": home[k] == home[p]}
             for k, p in parent.items()}
    ok(got == want2 and any(not v["same_slices"] for v in want2.values()),
       "JSON level2: each Level 2 class's parent, and same_slices true "
       "only where its group is the parent's (%s)"
       % ", ".join(k for k, v in want2.items() if v["same_slices"]),
       "%s\n%s" % (got, want2))
    apart = sorted({p for k, p in parent.items() if home[k] != home[p]},
                   key=names.index)
    rc, out, err = run("report", "-i", path)
    legend = [ln for ln in out.splitlines() if "need not add up" in ln]
    short = {"retiring": "RETIRING", "bad_speculation": "BAD_SPEC",
             "frontend_bound": "FRONTEND", "backend_bound": "BACKEND"}
    ok(len(legend) == 1 and legend[0].startswith(
        ", ".join(short[p] + ".*" for p in apart) + " Level 2 classes"),
       "the legend names the parents whose Level 2 classes come from "
       "other groups (%s)" % ", ".join(short[p] for p in apart), out[-600:])


@test
def test_stat_live(tmp):
    """stat against a fake /dev/topdown whose configuration has 3 rotated
    groups (rdbench --groups 3: the anchor CPU_CYCLES in every group, each
    other event in one): the anchor's coverage is the sum of the groups'."""
    import subprocess
    b = subprocess.run(["make", "-s", "-C", os.path.join(TOP, "selftests/bench"),
                        "reader"], capture_output=True, text=True)
    if not ok(b.returncode == 0, "rdbench builds (the fake device)", b.stderr):
        return
    fx = os.path.join(tmp, "fx")
    os.system("%s %s neoverse_n2_r0p0 >/dev/null" % (MKFIXTURE, fx))
    p = subprocess.run([os.path.join(TOP, "build/host/bench/rdbench"), "--fixture",
                        os.path.join(fx, "neoverse_n2_r0p0"), "-n", "3000",
                        "--cpus", "2", "--live", "--groups", "3", "--", "stat",
                        "-a", "--duration", "0.3", "-j"],
                       capture_output=True, text=True)
    d = json.loads(p.stdout) if p.returncode == 0 else {}
    rows = d.get("rows", []) + ([d["total"]] if "total" in d else [])
    good, detail = bool(rows), p.stderr[-800:]
    for r in rows:
        cov, err = r.get("coverage", {}), r.get("error", {})
        ev = list(r["counts"])
        if len(ev) != 7 or set(cov) != set(ev) or set(err) != set(ev):
            good, detail = False, "%s" % r
            break
        share = [cov[ev[1 + k]] for k in range(3)]
        if not all(cov[ev[1 + k]] == cov[ev[4 + k]] for k in range(3)) or \
                abs(cov[ev[0]] - sum(share)) > 1e-9 or not 0 < cov[ev[0]] <= 1:
            good, detail = False, "coverage %s" % cov
            break
    ok(good, "stat -a -j on 3 rotated groups: every count with its coverage "
       "and error; the anchor's coverage is the sum of its groups' (%d rows)"
       % len(rows), detail)


@test
def test_serve(tmp):
    """serve on the fake device with 3 rotated groups: each process's
    counts per event group (label group) and the time each group measured
    equal the sums of the same records recorded by tdctl record (the
    per-group sums as tdestimate, the estimator's test helper, reads
    them)."""
    import socket
    import subprocess
    import time
    import urllib.request
    fx = os.path.join(tmp, "fx")
    fixture = os.path.join(fx, "neoverse_n2_r0p0")
    rdbench = os.path.join(TOP, "build/host/bench/rdbench")
    tdest = os.path.join(os.path.dirname(MKFIXTURE), "tdestimate")
    base = [rdbench, "--fixture", fixture, "-n", "3000", "--cpus", "2",
            "--groups", "3"]
    path = os.path.join(tmp, "sv.td")
    # the same records as serve's run gets: recorded live (the fake
    # rings are deterministic), the file's times set around them
    subprocess.run(base + ["--live", "--", "record", "-a", "--duration", "0.3",
                           "-o", path], check=True, capture_output=True)
    import test_groups
    test_groups.retime(path)
    est = json.loads(subprocess.run([tdest, path, "--by", "process"],
                                    capture_output=True, text=True,
                                    check=True).stdout)
    img = open(path, "rb").read()
    import struct
    nev = struct.unpack_from("<I", img, 28)[0]
    pool = [img[704 + 64 * i + 32:704 + 64 * i + 64].split(b"\0")[0].decode()
            for i in range(nev)]
    groups = json.loads(run("report", "-i", path, "-j")[1])["groups"]
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        port = so.getsockname()[1]
    p = subprocess.Popen(base + ["--live", "--rate", "1e9", "--", "serve",
                                 "--listen", "127.0.0.1:%d" % port, "--by",
                                 "process", "--duration", "20"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    text = ""
    try:
        for _ in range(50):
            try:
                time.sleep(0.2)
                text = urllib.request.urlopen(
                    "http://127.0.0.1:%d/metrics" % port, timeout=2).read().decode()
                if "topdown_records_total 3000" in text:
                    break
            except OSError:
                pass
    finally:
        p.terminate()
        p.wait()
    got_ns, got_c = {}, {}
    for ln in text.splitlines():
        if ln.startswith("topdown_group_run_seconds_total{"):
            pid = ln.split('pid="')[1].split('"')[0]
            k = ln.split('group="')[1].split('"')[0]
            got_ns[(pid, k)] = round(float(ln.split()[-1]) * 1e9)
        elif ln.startswith("topdown_events_total{"):
            pid = ln.split('pid="')[1].split('"')[0]
            k = ln.split('group="')[1].split('"')[0]
            ev = ln.split('event="')[1].split('"')[0]
            got_c[(pid, k, ev)] = int(ln.split()[-1])
    # the idle tasks (pid 0) are a row per CPU in the file, one series
    # per comm in serve: left out
    got_ns = {k: v for k, v in got_ns.items() if k[0] != "0"}
    got_c = {k: v for k, v in got_c.items() if k[0] != "0"}
    want_ns, want_c = {}, {}
    for r in est["rows"]:
        if not r["pid"]:
            continue
        for k, g in enumerate(r["groups"]):
            want_ns[(str(r["pid"]), str(k))] = g["time_ns"]
            for j, e in enumerate(groups[k]):
                want_c[(str(r["pid"]), str(k), pool[e])] = g["counts"][j]
    ok(want_ns and got_ns == want_ns and got_c == want_c,
       "serve with 3 rotated groups: per process and event group, the time "
       "it measured and its events' counts (label group) are the file's "
       "sums (%d series)" % (len(got_ns) + len(got_c)),
       "%s\n%s" % (sorted(set(want_ns.items()) ^ set(got_ns.items()))[:6],
                   sorted(set(want_c.items()) ^ set(got_c.items()))[:6]))


@fixture
def group_plan(tmp):
    """tdctl list -j's plan of arm_neoverse_n2's groups (plan_of), the
    fixture of the tests on them (this file's and test_timeline_groups.py's);
    they are skipped when it cannot be had."""
    require(os.access(MKFIXTURE, os.X_OK), "%s not built" % MKFIXTURE)
    pl, err = plan_of(tmp)
    if not ok(pl is not None, "tdctl list -j shows arm_neoverse_n2's groups", err):
        skip_all("no plan of arm_neoverse_n2's groups")
    return pl


if __name__ == "__main__":
    main()
