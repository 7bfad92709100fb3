#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests: `tdctl timeline` of recordings with rotated event groups
(record file format 2.0), written from the docs as an outsider
(tdctl-timeline(8), Documentation/file-format.rst, design.rst "In the
readers"):

 - a Level 2 configuration of arm_neoverse_n2 (groups l1 and dt as
   `tdctl list -j` shows them), simulated slice by slice
   (tdfile_gen.simulate): the trace is valid, has one X event per record
   and says in each which group measured the slice (its number and
   name), a rotated slice as such with no counts; the counts are those
   of the slice's group's events by name (null: unreadable), the metrics
   those of that group alone, computed from the slice's own counts;
 - otherData lists the groups, their events and the rotation interval;
 - counter tracks: --counters slice writes a series only at the slices
   of its home group, with that slice's values; --counters interval
   writes each series from its home group's slices in the interval (the
   ratio of their sums) and a coverage track with the share of the
   thread's time each group measured there; --counters change is valid;
 - error bars (--counters interval): a "tid N error" counter event per
   thread and interval with one standard error per series; over one
   interval holding the whole recording exactly report's errors (the
   same estimator) and none where report's is unknown; over short
   intervals an error exactly where the series' home group has at least
   8 clusters (TD_EST_MIN_CLUSTERS, design.rst) in the interval, none
   (unknown, never 0) where it has fewer, never for a series without a
   value, and 0 exactly where the group measured the whole interval;
 - a 2.0 file whose label does not decode: raw counts per group, a
   warning, no metrics;
 - a live collection with rotated groups (rdbench --groups, fake rings)
   gives the same kind of trace.
TAP.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
import tdfile_gen as T  # noqa: E402
import trace_check  # noqa: E402
from tap import TOP, main, ok, run, test  # noqa: E402
from test_report_groups import MKFIXTURE, simulate  # noqa: E402 (and its fixture group_plan)

CPU_PID = 1 << 22
SERIES = ("ipc", "retiring", "bad_speculation", "frontend_bound",
          "backend_bound")


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-6 * max(1, abs(b))


def load(tmp, path, *args):
    out = os.path.join(tmp, "t.json")
    rc, _, err = run("timeline", "-i", path, "-o", out, *args)
    if rc:
        return None, "rc %d: %s" % (rc, err)
    problems = trace_check.problems(trace_check.load(out))
    if problems:
        return None, "invalid trace: %s" % problems[:5]
    with open(out) as f:
        return json.load(f), err


def slice_metrics(pool, grp, deltas):
    """The metrics these tests check, from one group's counts."""
    c = {pool[p]: deltas[j] for j, p in enumerate(grp)}
    m = {}
    if c.get("CPU_CYCLES") and "INST_RETIRED" in c:
        m["ipc"] = c["INST_RETIRED"] / c["CPU_CYCLES"]
    if c.get("CPU_CYCLES") and "STALL_SLOT_BACKEND" in c:
        m["backend_bound"] = c["STALL_SLOT_BACKEND"] / (5 * c["CPU_CYCLES"])
    if c.get("L1D_TLB") and "L1D_TLB_REFILL" in c:
        m["l1d_tlb_miss_ratio"] = c["L1D_TLB_REFILL"] / c["L1D_TLB"]
    return m


@test
def test_slices(tmp, group_plan):
    pool, groups, label, metrics = group_plan
    path = os.path.join(tmp, "g.td")
    sc, _ = simulate(11, pool, groups, label, dur=60_000_000)
    sc.write(path)
    d, err = load(tmp, path, "--counters", "none")
    if not ok(d is not None, "timeline reads a 2.0 file (Level 2, groups l1 "
              "and dt) and writes a valid trace", err):
        return
    od = d["otherData"]
    ok(od.get("rotate_ms") == 5 and
       [g["events"] for g in od.get("groups", [])] ==
       [[pool[p] for p in g] for g in groups] and
       [g.get("id") for g in od["groups"]] == ["l1", "dt"],
       "otherData: the rotation interval and each group's id, name and events",
       json.dumps(od)[:800])
    names = {g["group"]: g.get("name") for g in od.get("groups", [])}
    xs = sorted((e for e in d["traceEvents"] if e["ph"] == "X"),
                key=lambda e: (e["args"]["tid"], e["tid"], e["ts"]))
    recs = sorted(sc.records, key=lambda r: (r.pid, r.cpu, r.time_ns))
    bad = []
    nrot = nmet = 0
    for e, r in zip(xs, recs):
        a = e["args"]
        g = (r.flags >> T.GROUP_SHIFT) & 0xf
        rotated = bool(r.flags & T.REC_ROTATED)
        if a.get("group") != g or a.get("group_name") != names.get(g) or \
                not names.get(g):
            bad.append("group: %s for %d" % (a, g))
        if rotated:
            nrot += 1
            if a.get("rotated") is not True or a["counts"] or a["metrics"]:
                bad.append("rotated slice: %s" % a)
            continue
        want = {pool[p]: None if r.flags & (1 << j) else r.deltas[j]
                for j, p in enumerate(groups[g])}
        if a["counts"] != want or a.get("rotated") is not False:
            bad.append("counts %s, want %s" % (a["counts"], want))
        if r.flags & 0xff:
            if a["metrics"]:
                bad.append("metrics of a slice with an unreadable counter: %s" % a)
            continue
        got = a.get("metrics", {})
        home = metrics["l1" if g == 0 else "dt"]
        if set(got) - set(home):
            bad.append("group %d's slice has %s" % (g, set(got) - set(home)))
        for k, v in slice_metrics(pool, groups[g], r.deltas).items():
            if k not in home:
                continue
            nmet += 1
            if not close(got.get(k), v):
                bad.append("%s: %s, want %s" % (k, got.get(k), v))
    ok(len(xs) == len(recs) and not bad and nrot and nmet,
       "each slice: its group's number and name, the counts of that "
       "group's events (null: unreadable), the metrics of that group alone "
       "from the slice's counts; rotated slices say so, without counts "
       "(%d slices, %d rotated, %d metric values checked)"
       % (len(xs), nrot, nmet), "%d X for %d records; %s" % (len(xs), len(recs), bad[:4]))


@test
def test_counters(tmp, group_plan):
    pool, groups, label, metrics = group_plan
    path = os.path.join(tmp, "c.td")
    sc, _ = simulate(12, pool, groups, label, dur=60_000_000)
    sc.write(path)
    recs = [r for r in sc.records if r.pid and not r.flags & T.REC_IDLE]
    # --counters slice: the series at the slices of their home group (l1)
    d, err = load(tmp, path, "--counters", "slice")
    if not ok(d is not None, "--counters slice: a valid trace", err):
        return
    base = min(r.time_ns - r.duration_ns for r in sc.records)
    base = min(base, sc.start_ns)
    cs = [e for e in d["traceEvents"] if e["ph"] == "C"]
    want = {}
    for r in recs:
        g = (r.flags >> T.GROUP_SHIFT) & 0xf
        if g != 0 or r.flags & (T.REC_ROTATED | 0xff):
            continue
        m = slice_metrics(pool, groups[0], r.deltas)
        ts = (r.time_ns - r.duration_ns - base) / 1000
        want[(r.pid, round(ts, 3))] = m
    bad = []
    for e in cs:
        w = want.get((e["tid"], round(e["ts"], 3)))
        if w is None:
            bad.append("a counter event at no l1 slice: %s" % e)
            continue
        if set(e["args"]) - set(SERIES) or \
                any(not close(e["args"].get(k), v) for k, v in w.items()):
            bad.append("%s, want %s" % (e, w))
    ok(cs and len(cs) == len(want) and not bad,
       "--counters slice: one counter event per slice of the series' home "
       "group (l1), none at the dt group's or rotated slices, with the "
       "slice's values (%d for %d slices)" % (len(cs), len(recs)),
       "%d events, %d wanted; %s" % (len(cs), len(want), bad[:3]))

    # --counters interval:0.01 (10 ms): sums of the l1 slices in it
    d, err = load(tmp, path, "--counters", "interval:0.01")
    if not ok(d is not None, "--counters interval: a valid trace", err):
        return
    iv = 10_000_000
    buckets = {}
    for r in recs:
        st = r.time_ns - r.duration_ns
        b = buckets.setdefault((r.pid, (st - base) // iv), {
            "time": 0, "gtime": [0] * len(groups),
            "sums": [[0] * len(g) for g in groups]})
        b["time"] += r.duration_ns
        g = (r.flags >> T.GROUP_SHIFT) & 0xf
        if r.flags & (T.REC_ROTATED | 0xff):
            continue
        b["gtime"][g] += r.duration_ns
        for j, v in enumerate(r.deltas):
            b["sums"][g][j] += v
    bad, nval, ncov = [], 0, 0
    series = {}
    cover = {}
    for e in d["traceEvents"]:
        if e["ph"] != "C":
            continue
        k = (e["tid"], round(e["ts"] * 1000) // iv)
        if e["name"] == "tid %d coverage" % e["tid"]:
            cover[k] = e["args"]
        elif e["name"] == "tid %d" % e["tid"]:
            series[k] = e["args"]
        elif e["name"] != "tid %d error" % e["tid"]:   # test_errors'
            bad.append("unexpected counter %s" % e["name"])
    for k, b in buckets.items():
        cov = cover.get(k)
        wc = {"l1": b["gtime"][0] / b["time"], "dt": b["gtime"][1] / b["time"]}
        names = {g["group"]: g["name"] for g in d["otherData"]["groups"]}
        if cov is None or set(cov) != set(names.values()) or \
                any(not close(cov[names[g]], wc[gid])
                    for g, gid in ((0, "l1"), (1, "dt"))):
            bad.append("coverage %s: %s, want %s" % (k, cov, wc))
        ncov += 1
        w = slice_metrics(pool, groups[0], b["sums"][0]) if b["gtime"][0] else {}
        got = series.get(k, {})
        for name, v in w.items():
            nval += 1
            if not close(got.get(name), v):
                bad.append("%s %s: %s, want %s" % (k, name, got.get(name), v))
        if not b["gtime"][0] and got:
            bad.append("%s: series %s in an interval the l1 group did not "
                       "measure" % (k, got))
    ok(buckets and not bad and len(cover) == len(buckets),
       "--counters interval: per thread and interval, the series from the "
       "sums of their home group's slices in it (none where it measured "
       "none) and the share of the thread's time each group measured "
       "(%d intervals, %d values)" % (ncov, nval), str(bad[:4]))
    d, err = load(tmp, path, "--counters", "change")
    ok(d is not None and any(e["ph"] == "C" for e in d["traceEvents"]),
       "--counters change: a valid trace with counter events", err)


def counter_events(d):
    """{tid: [(ts, name suffix, args)]} of the "tid N..." counter events."""
    out = {}
    for e in d["traceEvents"]:
        pre = "tid %d" % e.get("tid", -1)
        if e["ph"] == "C" and e["name"].startswith(pre):
            out.setdefault(e["tid"], []).append(
                (e["ts"], e["name"][len(pre):].strip(), e["args"]))
    return out


def clusters(sc, groups, base, iv):
    """{(tid, interval, group): clusters} as design.rst defines them: a
    task's measured slices on one CPU in one period of that CPU (ended by
    a rotated slice of any task, or a change of group), cut at the
    interval's edges; and {(tid, interval): [time, time per group]}."""
    period, last_g = {}, {}
    cl, times = {}, {}
    for r in sorted(sc.records, key=lambda r: (r.cpu, r.time_ns)):
        g = (r.flags >> T.GROUP_SHIFT) & 0xf
        if r.flags & T.REC_ROTATED or last_g.get(r.cpu) != g:
            period[r.cpu] = period.get(r.cpu, 0) + 1
        last_g[r.cpu] = g
        if not r.pid or r.flags & T.REC_IDLE:
            continue
        k = (r.time_ns - r.duration_ns - base) // iv
        tm = times.setdefault((r.pid, k), [0, [0] * len(groups)])
        tm[0] += r.duration_ns
        if r.flags & (T.REC_ROTATED | 0xff):
            continue
        tm[1][g] += r.duration_ns
        cl.setdefault((r.pid, k, g), set()).add((r.cpu, period[r.cpu]))
    return {k: len(v) for k, v in cl.items()}, times


@test
def test_errors(tmp, group_plan):
    pool, groups, label, metrics = group_plan
    path = os.path.join(tmp, "e.td")
    sc, _ = simulate(13, pool, groups, label, dur=400_000_000, short=True)
    sc.write(path)
    rc, out, err = run("report", "-i", path, "--by", "task", "-j")
    rows = {r["tid"]: r for r in json.loads(out)["rows"]} if not rc else {}
    d, err = load(tmp, path, "--counters", "interval:10")
    if not ok(d is not None and rows, "--counters interval:10 (the whole "
              "recording in one interval): a valid trace; report -j reads "
              "the file", err):
        return
    bad, nerr, nunk = [], 0, 0
    for tid, evs in counter_events(d).items():
        vals = [a for _, n, a in evs if n == ""]
        errs = [a for _, n, a in evs if n == "error"]
        row = rows.get(tid)
        if len(vals) != 1 or len(errs) > 1 or row is None:
            bad.append("tid %d: %d value, %d error events, report row %s"
                       % (tid, len(vals), len(errs), row is not None))
            continue
        got = errs[0] if errs else {}
        for name in vals[0]:
            want = row["error"].get(name, "absent")
            if want is None:
                nunk += 1
                if name in got:
                    bad.append("tid %d %s: error %s where report's is "
                               "unknown" % (tid, name, got[name]))
            elif not close(got.get(name), want):
                bad.append("tid %d %s: error %s, report's %s"
                           % (tid, name, got.get(name), want))
            else:
                nerr += 1
        if set(got) - set(vals[0]):
            bad.append("tid %d: errors of series without a value: %s"
                       % (tid, set(got) - set(vals[0])))
    ok(not bad and nerr and nunk, "one interval for the whole recording: a "
       "\"tid N error\" event with report's error of every series (%d), "
       "none where report's is unknown (%d)" % (nerr, nunk), str(bad[:4]))

    # short intervals: an error where the home group has >= 8 clusters
    base = min(min(r.time_ns - r.duration_ns for r in sc.records), sc.start_ns)
    for iv_s in ("0.05", "0.02"):
        iv = int(float(iv_s) * 1e9)
        d, err = load(tmp, path, "--counters", "interval:" + iv_s)
        if not ok(d is not None, "--counters interval:%s: a valid trace"
                  % iv_s, err):
            continue
        ncl, times = clusters(sc, groups, base, iv)
        bad, nerr, nunk, nzero = [], 0, 0, 0
        for tid, evs in counter_events(d).items():
            by_k = {}
            for ts, n, a in evs:
                by_k.setdefault(round(ts * 1000) // iv, {})[n] = a
            for k, ev in by_k.items():
                vals, errs = ev.get("", {}), ev.get("error", {})
                tm = times.get((tid, k))
                if set(errs) - set(vals) or tm is None:
                    bad.append("tid %d interval %d: errors %s, values %s"
                               % (tid, k, errs, vals))
                    continue
                n = ncl.get((tid, k, 0), 0)    # the series' home: l1
                whole = tm[1][0] == tm[0]
                for name in vals:
                    e = errs.get(name)
                    if whole:       # measured all the time: exact
                        nzero += e == 0
                        if e != 0:
                            bad.append("tid %d interval %d %s: error %s, "
                                       "measured whole" % (tid, k, name, e))
                    elif n < 8:
                        nunk += 1
                        if e is not None:
                            bad.append("tid %d interval %d %s: error %s from "
                                       "%d clusters" % (tid, k, name, e, n))
                    elif e is None or not e > 0:
                        bad.append("tid %d interval %d %s: error %s, %d "
                                   "clusters, coverage %s"
                                   % (tid, k, name, e, n, tm[1][0] / tm[0]))
                    else:
                        nerr += 1
        ok(not bad and (nerr or iv_s == "0.02") and nunk,
           "--counters interval:%s: a positive error for each series whose "
           "home group has at least 8 clusters in the interval (%d), none "
           "where it has fewer (%d unknown), 0 where the group measured "
           "the whole interval (%d)" % (iv_s, nerr, nunk, nzero),
           str(bad[:4]))


@test
def test_raw(tmp):
    path = os.path.join(tmp, "raw.td")
    sc = T.grouped_small()
    sc.write(path)
    d, err = load(tmp, path)
    xs = [e for e in d["traceEvents"] if e["ph"] == "X"] if d else []
    good = len(xs) == len(sc.records) and "showing raw counts only" in err
    for e in xs:
        a = e["args"]
        if a.get("metrics") != {} or "group_name" in a or \
                a.get("group") not in (0, 1):
            good = False
    ok(good and not any(e["ph"] == "C" for e in d["traceEvents"]),
       "a 2.0 file whose label does not decode: each slice's group and raw "
       "counts, a warning, no metrics or counter tracks", err)


@test
def test_live(tmp):
    """rdbench --groups 3: a fake /dev/topdown whose configuration has 3
    rotated groups (the anchor CPU_CYCLES in every group)."""
    b = subprocess.run(["make", "-s", "-C", os.path.join(TOP, "selftests/bench"),
                        "reader"], capture_output=True, text=True)
    if not ok(b.returncode == 0, "rdbench builds (the fake device)", b.stderr):
        return
    fx = os.path.join(tmp, "fx")
    os.system("%s %s neoverse_n2_r0p0 >/dev/null" % (MKFIXTURE, fx))
    out = os.path.join(tmp, "live.json")
    p = subprocess.run([os.path.join(TOP, "build/host/bench/rdbench"), "--fixture",
                        os.path.join(fx, "neoverse_n2_r0p0"), "-n", "3000",
                        "--cpus", "2", "--live", "--groups", "3", "--",
                        "timeline", "--duration", "0.3", "-o", out],
                       capture_output=True, text=True)
    d, bad = None, []
    if p.returncode == 0:
        bad = trace_check.problems(trace_check.load(out))
        with open(out) as f:
            d = json.load(f)
    if not ok(d is not None and not bad, "timeline --duration on a live "
              "collection with 3 rotated groups: a valid trace",
              p.stderr[-600:] + str(bad[:3])):
        return
    groups = [g["events"] for g in d["otherData"].get("groups", [])]
    seen = set()
    nrot = 0
    for e in d["traceEvents"]:
        if e["ph"] != "X":
            continue
        a = e["args"]
        g = a.get("group")
        if not isinstance(g, int) or not 0 <= g < len(groups):
            bad.append(a)
        elif a.get("rotated"):
            nrot += 1
            if a["counts"]:
                bad.append(a)
        else:
            seen.add(g)
            if list(a["counts"]) != groups[g]:
                bad.append(a)
    ok(len(groups) == 3 and not bad and seen == {0, 1, 2} and nrot,
       "live: each slice names its group (all 3 seen, %d rotated slices) and "
       "counts that group's events by name" % nrot,
       "%s %s %s" % (groups, seen, bad[:3]))


if __name__ == "__main__":
    main()
