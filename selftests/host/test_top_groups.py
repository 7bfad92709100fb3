#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests: `tdctl top -i` on a recording with rotated event groups
(tdctl-top(8), OUTPUT), from a simulated file (tdfile_gen.simulate):

 - the unknown rule the man page states: a value is unknown when its
   group measured fewer than 8 stretches of the row in the interval (a
   stretch: the row's slices on one CPU between two rotations), so a
   task on one CPU with G groups needs about 8 x G rotations; an
   interval of 8 rotations leaves it unknown;
 - under each snapshot's table the legend of the marks it shows, the
   lines report prints (v+-e [c%], unknown [c%]).
TAP.
"""
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
import tdfile_gen as T  # noqa: E402
from tap import fixture, main, ok, run, test  # noqa: E402

ROTATE_MS = 2
GROUPS = [[0, 1], [0, 2], [0, 3]]
POOL = ["cycles", "ev_a", "ev_b", "ev_c"]
EST = "v\u00b1e [c%] an estimate: one standard error e"
UNKNOWN = "unknown [c%] too few measured stretches"


def recording(tmp):
    """One busy task alone on CPU 0 (it runs in every rotation), 3 groups
    rotated every 2 ms, 0.6 s."""
    rng = random.Random(32)
    task = T.Task(100, 100, "busy", [2000, 1000, 500, 250], [0],
                  slice_ns=300_000)
    sc, _ = T.simulate(rng, POOL, GROUPS, [task], nr_cpus=1,
                       rotate_ms=ROTATE_MS, duration_ns=600_000_000,
                       label="set=sim")
    path = os.path.join(tmp, "top.td")
    sc.write(path)
    return path


def snapshots(path, delay):
    """top -j's snapshots: the busy task's counts (None: unknown)."""
    rc, out, err = run("top", "-i", path, "-j", "-d", "%g" % delay)
    rows = []
    for ln in out.splitlines() if rc == 0 else []:
        snap = json.loads(ln)
        for r in snap["rows"]:
            if r.get("tid") == 100:
                rows.append((snap["interval_s"], r["counts"]))
    return rows, err


@fixture
def n2_rotated(tmp):
    """The recording of recording(), in the scratch directory."""
    return recording(tmp)


@test
def test_rule(n2_rotated):
    path = n2_rotated
    n = len(GROUPS)
    # 8 rotations (the rule the man page used to state): about 8 / 3
    # stretches per group, under 8: every single-group count unknown
    full = 8 * ROTATE_MS / 1000
    rows, err = snapshots(path, full)
    whole = [c for s, c in rows if abs(s - full) < 1e-9]
    ok(whole and all(c[e] is None for c in whole for e in POOL[1:]),
       "an interval of 8 rotations: each group measured fewer than 8 "
       "stretches, its counts unknown (%d snapshots)" % len(whole),
       err + str(rows[:3]))
    # 8 x G rotations and half as much again: 12 stretches per group
    long = 12 * n * ROTATE_MS / 1000
    rows, err = snapshots(path, long)
    whole = [c for s, c in rows if abs(s - long) < 1e-9]
    ok(whole and all(c[e] is not None for c in whole for e in POOL[1:]),
       "an interval of 12 x %d rotations: every count estimated "
       "(%d snapshots)" % (n, len(whole)), err + str(rows[:3]))


@test
def test_legend(n2_rotated):
    path = n2_rotated
    rc, out, err = run("report", "-i", path)
    want = [ln for ln in out.splitlines()
            if ln.startswith(EST) or ln.startswith(UNKNOWN)]
    ok(rc == 0 and len(want) == 2, "report prints the legend of v\u00b1e "
       "[c%] and unknown [c%]", err)
    rc, out, err = run("top", "-i", path, "--batch", "-d", "0.016", "-n", "2")
    snaps = out.split("tdctl top - ")[1:]
    good = len(snaps) == 2
    for s in snaps:
        lines = s.splitlines()
        good = good and "unknown [" in s and all(w in lines for w in want)
    ok(good, "top --batch: each snapshot with unknown values has report's "
       "legend lines under its table", out[-1500:] + err)
    rc, out, err = run("top", "-i", path, "-j", "-d", "0.016", "-n", "1")
    ok(rc == 0 and EST not in out and UNKNOWN not in out,
       "top -j: no legend", out[-300:])


if __name__ == "__main__":
    main()
