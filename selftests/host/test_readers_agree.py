#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests: every reader of a record file gives the same numbers.
Written from the man pages as an outsider: the same file through

  tdctl report -i FILE --by task -j       (a row per task)
  tdctl top -i FILE --by task -d 1000 -n 1 --json   (one snapshot: all)
  tdctl timeline -i FILE --counters interval:1000   (a counter value per
                                                     thread and series)
  tdctl dump -i FILE --json --tid T | tdctl decode -s SET --json

must give each task the same Level 1 classes and IPC (and, with rotated
groups, the same Level 2 classes in report, top and decode --level 2)
within the precision they print (the trace's 6 decimals), on files made
by tdfile_gen.py with counts that could not be read, without rotation
and with it. A value one reader cannot compute must not be a number in
another (unknown is null). The tables: report's and decode's plain
Level 1 percentages are the same text.
TAP.
"""
import json
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
import tdfile_gen as T  # noqa: E402
from tap import TOP, main, ok, run, test  # noqa: E402

MKFIXTURE = os.path.join(os.environ.get("OUT") or os.path.join(TOP, "build/host/"),
                         "mkfixture")
LABEL = "set=arm_neoverse_n2 slots=5 rev=r0p3"
L1 = ["retiring", "bad_speculation", "frontend_bound", "backend_bound", "ipc"]
TOL = 5e-7      # the trace prints 6 decimals
RATES = {"CPU_CYCLES": 2000, "OP_RETIRED": 3500, "OP_SPEC": 4000,
         "STALL_SLOT": 5000, "STALL_SLOT_FRONTEND": 2000,
         "STALL_SLOT_BACKEND": 3000, "INST_RETIRED": 3000, "L1D_TLB": 1500,
         "L1D_TLB_REFILL": 30, "DTLB_WALK": 5, "L2D_TLB": 30,
         "L2D_TLB_REFILL": 6}


def level2_plan(tmp):
    """The pool, groups and label of groups l1 and dt of arm_neoverse_n2
    (`tdctl list -j` on an N2 fixture), as `load --level 2` writes it."""
    fx = os.path.join(tmp, "fx")
    os.system("%s %s neoverse_n2_r0p3 >/dev/null" % (MKFIXTURE, fx))
    rc, out, err = run("list", "--root", os.path.join(fx, "neoverse_n2_r0p3"),
                       "-s", "arm_neoverse_n2", "-j")
    if rc:
        return None
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
    return pool, idx, sel["label"] + " g=l1,dt"


def recording(seed, pool, groups, label, rotate_ms=5):
    rng = random.Random(seed)
    tasks = []
    for i in range(8):
        rates = [RATES[e] * rng.uniform(0.7, 1.3) for e in pool]
        tasks.append(T.Task(3000 + i, 3000 + i, "r%d" % i, rates,
                            [i % 4], slice_ns=rng.choice([100_000, 300_000])))
    return T.simulate(rng, pool, groups, tasks, nr_cpus=4, rotate_ms=rotate_ms,
                      duration_ns=400_000_000, p_error=0.03, label=label)


def rows_of(out, key="rows"):
    return {r["tid"]: r for r in json.loads(out)[key] if r["tid"]}


def timeline_values(path, tmp):
    """tid -> {series: value} of the counter tracks (one interval)."""
    trace = os.path.join(tmp, "agree.json")
    rc, out, err = run("timeline", "-i", path, "-o", trace, "--counters",
                       "interval:1000")
    if rc:
        return None, err
    ev = json.load(open(trace))
    ev = ev.get("traceEvents", []) if isinstance(ev, dict) else ev
    vals = {}
    for e in ev:
        # the values' track, not its "coverage" and "error" tracks
        if e.get("ph") == "C" and e.get("name") == "tid %d" % e["tid"]:
            vals.setdefault(e["tid"], {}).update(e["args"])
    return vals, ""


def differ(a, b):
    if a is None or b is None:
        return a is not b
    return abs(a - b) > TOL


def compare(name, base, other, metrics, problems):
    """other: tid -> {metric: value}; a reader without a value for a tid
    or metric is skipped (timeline has no track for a task with no
    slice read)."""
    for tid, m in base.items():
        o = other.get(tid)
        if o is None:
            problems.append("%s: no task %d" % (name, tid))
            continue
        for k in metrics:
            if k in o and differ(m.get(k), o[k]):
                problems.append("%s, task %d, %s: %s where report says %s"
                                % (name, tid, k, o[k], m.get(k)))


def check(path, tmp, set_args, metrics, grouped):
    rc, out, err = run("report", "-i", path, "--by", "task", "-j")
    if not ok(rc == 0, "report -j reads the file", err):
        return
    rep = {t: r["metrics"] for t, r in rows_of(out).items()}
    est = sum(1 for r in rows_of(out).values()
              if any(e for e in r.get("error", {}).values()))
    what = "rotated groups" if grouped else "no rotation"
    problems = []
    rc, out, err = run("top", "-i", path, "--by", "task", "-d", "1000", "-n",
                       "1", "--json")
    snaps = [json.loads(ln) for ln in out.splitlines() if ln.strip()]
    top = {}
    if rc == 0 and snaps:
        top = {t: r["metrics"] for t, r in rows_of(json.dumps(snaps[-1])).items()}
    compare("top", rep, top, metrics, problems)
    tl, err2 = timeline_values(path, tmp)
    compare("timeline", rep, tl or {}, L1, problems)
    dec = {}
    for tid in rep:
        rc, out, err = run("dump", "-i", path, "--json", "--tid", str(tid))
        rc2, out2, err3 = run("decode", *set_args, "--json", stdin=out)
        dec[tid] = json.loads(out2).get("metrics", {}) if rc2 == 0 else {}
        if rc or rc2:
            problems.append("dump | decode, task %d: %s %s" % (tid, err, err3))
    compare("dump --json | decode", rep, dec, metrics, problems)
    readers = "report, top -i, timeline, dump | decode"
    values = "Level 1 and 2 classes" if grouped else "Level 1 classes and IPC"
    ok(not problems and est and tl,
       "%s, %d tasks (%d with estimates): %s give every task the same %s"
       % (what, len(rep), est, readers, values),
       "\n".join(problems[:20]) + err2)
    if grouped:
        return
    # the tables: the same one-decimal percentages
    rc, out, err = run("report", "-i", path, "--by", "task")
    bad = []
    for tid in rep:
        line = [ln for ln in out.splitlines() if re.match(r"\s*\d+\s+%d\s" % tid, ln)]
        pct = re.findall(r"\*?(-?\d+\.\d)(?:\u00b1[\d.]+)?%", line[0]) if line else []
        rc, d, err = run("dump", "-i", path, "--json", "--tid", str(tid))
        rc2, out2, err2 = run("decode", *set_args, stdin=d)
        want = [re.search(r"^\s*%s\s+\*?(-?\d+\.\d)%%" % k, out2, re.M)
                for k in ("RETIRING", "BAD_SPEC", "FRONTEND", "BACKEND")]
        want = [w.group(1) if w else None for w in want]
        if pct[:4] != want:
            bad.append("task %d: report %s, decode %s" % (tid, pct[:4], want))
    ok(not bad, "no rotation: report's and decode's tables print the same "
       "Level 1 percentages", "\n".join(bad[:10]))


@test
def readers_agree(tmp):
    path = os.path.join(tmp, "a.td")
    pool = T.N2_EVENTS
    sc, _ = recording(41, pool, [list(range(len(pool)))], LABEL)
    sc.write(path)
    check(path, tmp, ["-s", "arm_neoverse_n2", "--slots", "5",
                      "--revision", "r0p3"], L1, False)
    plan2 = level2_plan(tmp)
    if ok(plan2 is not None, "tdctl list -j names the Level 2 groups of "
          "arm_neoverse_n2"):
        pool, groups, label = plan2
        sc, _ = recording(42, pool, groups, label)
        sc.write(path)
        rc, out, err = run("report", "-i", path, "-j")
        names = list(json.loads(out)["total"]["metrics"]) if rc == 0 else L1
        check(path, tmp, ["-s", "arm_neoverse_n2", "--slots", "5",
                          "--revision", "r0p3", "--level", "2"], names, True)


if __name__ == "__main__":
    main()
