#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests: counts that could not be read, in every reader of a record
file. Written from the docs as an outsider: a record's error bit i says
that delta[i] could not be read and is 0 (file-format.rst,
include/uapi/linux/topdown.h); such a count is not a zero, and every
reader leaves it out as it leaves out a rotated group's slices
(tdctl-stat(8), ROTATED EVENT GROUPS; design.rst, "Estimates from rotated
groups"): the row's values are estimates from its other slices, with
coverage and error; a slice's own metrics are unknown.

 - an N2 file whose slices all have STALL_SLOT_BACKEND at 30 % of the
   slots, a quarter of them with that count's error bit: report (table,
   JSON, CSV), top -i, dump (table, JSON), timeline and
   `dump --json | decode` all say 30.0 %, never 22.4 % (the zeros summed);
 - the generic set with cycles lost in 4 of 40 slices: IPC 0.50, not
   the 0.56 of the zeros;
 - a file without errors prints as before: no coverage, no error;
 - without rotation, slices with an unreadable count at random: the
   estimates are within their errors of the truth at the normal rates;
 - read_errors counts the slices with an unreadable count, not the
   rotated ones (rotated_slices counts those), per row and in total.
TAP.
"""
import csv
import io
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
import tdfile_gen as T  # noqa: E402
from tap import main, ok, run, test  # noqa: E402

N2_LABEL = "set=arm_neoverse_n2 slots=5 rev=r0p3"
BACKEND = T.N2_EVENTS.index("STALL_SLOT_BACKEND")


def n2_file(path, n=40, every=4, backend=0.30):
    """n slices of one task, of 1 to 3 ms; slots = 5 cycles; backend the
    share of the slots; every every-th slice's STALL_SLOT_BACKEND is
    unreadable (error bit, 0)."""
    recs = []
    for i in range(n):
        k = 1 + i % 3
        cyc = 1_000_000 * k
        d = [cyc, 2 * cyc, 2 * cyc + cyc // 5, 5 * cyc // 2, cyc,
             int(backend * 5 * cyc), 2 * cyc]
        fl = 0
        if i % every == 1:
            d[BACKEND] = 0
            fl = 1 << BACKEND
        recs.append(T.Rec(0, 500, 500, "n2task", T._time(i, n), 1_000_000 * k,
                          d, flags=fl))
    T.Scenario(N2_LABEL, T.N2_EVENTS, 1, recs, slots=5).write(path)
    bad = [r for r in recs if r.flags & 0xff]
    return len(bad), sum(r.duration_ns for r in recs if not r.flags & 0xff) / \
        sum(r.duration_ns for r in recs)


def generic_file(path, n=40, lost=4):
    """IPC 0.5 in every slice; cycles unreadable in the first lost."""
    recs = []
    for i in range(n):
        d = [2_000_000 * (1 + i % 2), 1_000_000 * (1 + i % 2)]
        fl = 0
        if i < lost:
            d[0] = 0
            fl = 1
        recs.append(T.Rec(0, 600, 600, "gen", T._time(i, n),
                          1_000_000 * (1 + i % 2), d, flags=fl))
    T.Scenario("set=generic", ["cycles", "instructions"], 1, recs).write(path)


def close(a, b, tol=1e-9):
    return a is not None and b is not None and abs(a - b) <= tol


@test
def test_n2_slices(tmp):
    """Per slice: dump, timeline and `dump --json | decode`."""
    path = os.path.join(tmp, "n2.td")
    nbad, _ = n2_file(path)
    rc, out, err = run("dump", "-i", path, "--json")
    recs = json.loads(out) if rc == 0 else []
    bad = [r for r in recs if r["counts"]["STALL_SLOT_BACKEND"] is None]
    good = [r for r in recs if r["counts"]["STALL_SLOT_BACKEND"] is not None]
    ok(len(bad) == nbad and
       all(all(v is None for v in r["metrics"].values()) for r in bad) and
       all(close(r["metrics"]["backend_bound"], 0.30) for r in good),
       "dump --json: a slice with an unreadable count has null metrics, "
       "the others 0.30", json.dumps(bad[:1]))
    rc, out, err = run("dump", "-i", path)
    lines = [ln for ln in out.splitlines() if "<error>" in ln]
    ok(len(lines) == nbad and
       all(not re.search(r"\d%", ln.split("<error>")[1]) for ln in lines),
       "dump: a slice with <error> shows no metric ('-')", "\n".join(lines[:3]))
    rc, out, err = run("dump", "-i", path, "--json")
    rc2, out2, err2 = run("decode", "-s", "arm_neoverse_n2", "--json",
                          stdin=out)
    dm = json.loads(out2).get("metrics", {}) if rc2 == 0 else {}
    ok(close(dm.get("backend_bound"), 0.30),
       "dump --json | decode: backend_bound 0.30", out2[:400] + err2)
    trace = os.path.join(tmp, "n2.json")
    rc, out, err = run("timeline", "-i", path, "-o", trace)
    ev = json.load(open(trace)) if rc == 0 else {}
    ev = ev.get("traceEvents", ev) if isinstance(ev, dict) else ev
    xs = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "task"]
    xbad = [e for e in xs if e["args"]["counts"]["STALL_SLOT_BACKEND"] is None]
    cs = [e for e in ev if e.get("ph") == "C" and
          "backend_bound" in e.get("args", {})]
    ok(len(xbad) == nbad and all(e["args"]["metrics"] == {} for e in xbad) and
       all(abs(e["args"]["metrics"]["backend_bound"] - 0.30) < 1e-6
           for e in xs if e not in xbad) and cs and
       all(abs(e["args"]["backend_bound"] - 0.30) < 1e-6 for e in cs),
       "timeline: slices with an unreadable count have no metrics ({}), "
       "the others and the counter track 0.3", json.dumps(xbad[:1]) + err)


@test
def test_n2_tables(tmp):
    """The rows of report and top."""
    path = os.path.join(tmp, "n2.td")
    nbad, cov = n2_file(path)
    rc, out, err = run("report", "-i", path, "-j")
    d = json.loads(out) if rc == 0 else {}
    tot = d.get("total", {})
    m = tot.get("metrics", {})
    ok(rc == 0 and close(m.get("backend_bound"), 0.30),
       "report -j: backend_bound 0.30 (the unreadable counts left out, "
       "not summed as 0): %s" % m.get("backend_bound"), err)
    ok(close(tot.get("coverage", {}).get("backend_bound"), cov, 1e-12) and
       tot.get("error", {}).get("backend_bound") is not None,
       "report -j: its coverage is the share of the time read (%.4f) and "
       "it has an error" % cov, json.dumps(tot)[:600])
    ok(tot.get("read_errors") == nbad,
       "report -j: read_errors %s, the %d slices with the error bit"
       % (tot.get("read_errors"), nbad))
    rc, out, err = run("report", "-i", path)
    row = [ln for ln in out.splitlines() if ln.startswith("total")]
    ok(rc == 0 and row and re.search(r"\b30\.0\u00b1\d+\.\d% \[\d+%\]", row[0])
       and not re.search(r"\b22\.4%", out) and "an estimate" in out,
       "report: BACKEND 30.0\u00b1e% [c%] and the legend of estimates",
       out)
    rc, out, err = run("report", "-i", path, "--csv")
    rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
    t = [r for r in rows if r["type"] == "total"]
    ok(t and close(float(t[0]["backend_bound"]), 0.30, 1e-6) and
       close(float(t[0]["backend_bound_coverage"]), cov, 1e-6),
       "report --csv: backend_bound 0.30 with backend_bound_coverage "
       "(6 decimals)",
       out[:600])
    rc, out, err = run("top", "-i", path, "--batch", "-n", "1", "--json")
    snaps = [json.loads(ln) for ln in out.splitlines() if ln.strip()] \
        if rc == 0 else []
    ok(snaps and close(snaps[0]["total"]["metrics"]["backend_bound"], 0.30),
       "top -i --json: backend_bound 0.30", out[:600] + err)
    rc, out, err = run("top", "-i", path, "--batch", "-n", "1")
    ok(rc == 0 and re.search(r"\b30\.0\u00b1", out) and "22.4" not in out,
       "top -i: BACKEND 30.0\u00b1e", out)


@test
def test_generic(tmp):
    path = os.path.join(tmp, "gen.td")
    generic_file(path)
    rc, out, err = run("report", "-i", path, "-j")
    tot = json.loads(out)["total"] if rc == 0 else {}
    ok(close(tot.get("metrics", {}).get("ipc"), 0.5),
       "generic, cycles lost in 4 of 40 slices: report -j IPC 0.50 (not the "
       "0.56 of the zeros): %s" % tot.get("metrics"), err)
    rc, out, err = run("report", "-i", path)
    ok(rc == 0 and re.search(r"total .* 0\.50\u00b1", out),
       "report: IPC 0.50\u00b1e", out)
    # without errors: the table and JSON of before, exact, no estimates
    clean = os.path.join(tmp, "clean.td")
    generic_file(clean, lost=0)
    rc, out, err = run("report", "-i", clean, "-j")
    tot = json.loads(out)["total"] if rc == 0 else {}
    ok("coverage" not in tot and tot.get("counts", {}).get("cycles") ==
       120_000_000 and close(tot["metrics"]["ipc"], 0.5),
       "a file without errors: exact sums, no coverage or error",
       json.dumps(tot))
    rc, out, err = run("report", "-i", clean)
    ok(rc == 0 and "\u00b1" not in out and "an estimate" not in out,
       "... and its table has no estimate", out)


@test
def test_truth(tmp):
    """Without rotation, slices with an unreadable count at random (5 %):
    report's estimates of every task are within their errors of the
    truth (the true counts of every slice, tdfile_gen.simulate) at the
    normal rates, and the coverage is exactly the share read."""
    rates = [2000, 3500, 4000, 5000, 2000, 3000, 3000]   # N2_EVENTS
    truth_fn = {
        "backend_bound": lambda c: c[5] / (5 * c[0]),
        "frontend_bound": lambda c: c[4] / (5 * c[0]),
        "ipc": lambda c: c[6] / c[0],
    }
    zs, problems = [], []
    for seed in range(4):
        rng = random.Random(300 + seed)
        tasks = [T.Task(900 + i, 900 + i, "t%d" % i,
                        [r * rng.uniform(0.7, 1.3) for r in rates],
                        [i % 4], slice_ns=rng.choice([100_000, 300_000]),
                        rho=0.6) for i in range(12)]
        sc, truth = T.simulate(rng, T.N2_EVENTS, [list(range(7))], tasks,
                               nr_cpus=4, duration_ns=300_000_000,
                               p_error=0.05, label=N2_LABEL)
        path = os.path.join(tmp, "truth.td")
        sc.write(path)
        rc, out, err = run("report", "-i", path, "--by", "task", "-j")
        if rc:
            problems.append(err)
            continue
        for row in json.loads(out)["rows"]:
            tr = truth.get(row["tid"])
            if not tr:
                continue
            cov = tr["measured_ns"][0] / tr["time_ns"]
            items = [(e, row["counts"], tr["counts"][i])
                     for i, e in enumerate(T.N2_EVENTS)]
            items += [(m, row["metrics"], f(tr["counts"]))
                      for m, f in truth_fn.items()]
            for name, vals, want in items:
                v, e = vals.get(name), row.get("error", {}).get(name)
                c = row.get("coverage", {}).get(name)
                if not close(c, cov, 1e-12):
                    problems.append("%d %s: coverage %s, read %s"
                                    % (row["tid"], name, c, cov))
                if cov < 1 and v is not None and e:
                    zs.append(abs(v - want) / e)
                elif cov < 1 and v is not None:
                    problems.append("%d %s: %s without an error"
                                    % (row["tid"], name, v))
    w = [sum(1 for z in zs if z <= k) / len(zs) for k in (1, 2, 3)] \
        if zs else [0] * 3
    print("# no rotation, 5 %% of slices with an unreadable count: %d "
          "estimates within 1, 2, 3 errors of the truth %.1f %.1f %.1f %% "
          "(normal 68.3 95.4 99.7)" % (len(zs), 100 * w[0], 100 * w[1],
                                       100 * w[2]))
    ok(not problems, "without rotation: every value of a task with "
       "unreadable counts has its coverage (the share of its time read) "
       "and an error", "\n".join(problems[:10]))
    ok(len(zs) > 300 and 0.55 < w[0] < 0.9 and w[1] > 0.88 and w[2] > 0.96,
       "... and the truth within 1, 2, 3 of those errors: %.3f %.3f %.3f "
       "of %d" % (w[0], w[1], w[2], len(zs)))


@test
def test_rotated_errors(tmp):
    """read_errors: error slices only; rotated ones are rotated_slices."""
    rng = random.Random(5)
    tasks = [T.Task(700 + i, 700, "rot%d" % i, [3000, 2000, 40 + 10 * i],
                    [i % 2]) for i in range(3)]
    sc, _ = T.simulate(rng, ["cycles", "instructions", "branch-misses"],
                       [[0, 1], [0, 2]], tasks, nr_cpus=2, rotate_ms=2,
                       duration_ns=100_000_000, p_error=0.05)
    path = os.path.join(tmp, "rot.td")
    sc.write(path)
    rc, out, err = run("report", "-i", path, "--by", "task", "-j")
    d = json.loads(out) if rc == 0 else {"rows": [], "total": {}}
    bad = []
    # the tasks' rows (the idle rows, one per CPU, have no CPU key in
    # JSON) and the total
    for row in [r for r in d["rows"] if r["tid"]] + \
            [dict(d["total"], tid=None)]:
        mine = [r for r in sc.records
                if row["tid"] is None or r.pid == row["tid"]]
        errs = sum(1 for r in mine if r.flags & 0xff and
                   not r.flags & T.REC_ROTATED)
        rot = sum(1 for r in mine if r.flags & T.REC_ROTATED)
        if row.get("read_errors") != errs or row.get("rotated_slices") != rot:
            bad.append("%s: read_errors %s rotated_slices %s, file %d %d"
                       % (row["tid"], row.get("read_errors"),
                          row.get("rotated_slices"), errs, rot))
    nerr = sum(1 for r in sc.records
               if r.flags & 0xff and not r.flags & T.REC_ROTATED)
    nrot = sum(1 for r in sc.records if r.flags & T.REC_ROTATED)
    ok(rc == 0 and not bad and nerr and nrot,
       "rotated groups, report -j: read_errors counts the %d error slices, "
       "rotated_slices the %d rotated ones, per row and in total"
       % (nerr, nrot), "\n".join(bad[:10]) + err)
    rc, out, err = run("report", "-i", path, "--csv")
    rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
    t = [r for r in rows if r["type"] == "total"]
    ok(t and int(t[0]["read_errors"]) == nerr and
       int(t[0]["rotated_slices"]) == nrot,
       "report --csv: the same read_errors and rotated_slices", out[:400])


if __name__ == "__main__":
    main()
