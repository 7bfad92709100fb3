#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests: counts that could not be read, in every reader of a record
file. Written from the docs as an outsider: a record's error bit i says
that delta[i] could not be read and is 0 (file-format.rst,
include/uapi/linux/topdown.h); such a count is not a zero, and a
reader leaves it out as it leaves out a rotated group's slices: a
slice's own metrics are unknown.

 - an N2 file whose slices all have STALL_SLOT_BACKEND at 30 % of the
   slots, a quarter of them with that count's error bit: dump (table,
   JSON) and timeline give those slices no metric, the others 30.0 %,
   and `dump --json | decode` says 30.0 %.
TAP.
"""
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
import tdfile_gen as T  # noqa: E402
from tap import ok, plan, run  # noqa: E402

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


def close(a, b, tol=1e-9):
    return a is not None and b is not None and abs(a - b) <= tol


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
    ok(len(xbad) == nbad and all("metrics" not in e["args"] for e in xbad) and
       all(abs(e["args"]["metrics"]["backend_bound"] - 0.30) < 1e-6
           for e in xs if e not in xbad) and cs and
       all(abs(e["args"]["backend_bound"] - 0.30) < 1e-6 for e in cs),
       "timeline: slices with an unreadable count have no metrics, the "
       "others and the counter track 0.300000", json.dumps(xbad[:1]) + err)


def main():
    with tempfile.TemporaryDirectory(prefix="td_unread.") as tmp:
        test_n2_slices(tmp)
    return plan()


if __name__ == "__main__":
    sys.exit(main())
