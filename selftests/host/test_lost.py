#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Lost records come from one place and every reader reports them alike:
report, top -i, dump -i and timeline on a file with records lost on CPU 1
(the same count, a warning from each), and null/unknown, never 0, when a
file read with --force has no trailer. TAP."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
import tdfile_gen  # noqa: E402
from tap import main, ok, require_tdctl, run, test  # noqa: E402


def one_lost():
    """A recording of every task with one record lost on CPU 0."""
    recs = [tdfile_gen.Rec(0, 300, 300, "solo", tdfile_gen._time(i, 4),
                           100_000, [1000, 500], seq=i + 1 + (i >= 2))
            for i in range(4)]
    return tdfile_gen.Scenario("set=generic", ["cycles", "instructions"], 1,
                               recs, lost=[1])


@test
def lost(tmp):
    gen = os.path.join(tmp, "g.td")
    sc = tdfile_gen.generic()
    sc.write(gen)
    want = sum(sc.lost)
    ok(want == 3 and sc.lost[1] == 3, "the file: 3 records lost on CPU 1")
    warn = "CPU 1: 3 records lost while recording"

    rc, out, err = run("report", "-i", gen, "--json")
    doc = json.loads(out)
    ok(rc == 0 and doc["lost"] == 3 and doc["lost_per_cpu"][1] == 3 and warn in err,
       "report: lost 3, per CPU, and the warning", out[:300] + err)
    rc, out, err = run("top", "-i", gen, "--batch", "-d", "0.5")
    lines = [ln for ln in out.splitlines() if " slices, " in ln]
    got = sum(int(ln.split(", ")[1].split()[0]) for ln in lines)
    ok(rc == 0 and lines and got == 3 and warn in err,
       "top -i --batch: the intervals' lost records add up to 3, with the warning",
       "\n".join(lines) + "\n" + err)
    rc, out, err = run("top", "-i", gen, "--json", "-d", "0.5")
    snaps = [json.loads(ln) for ln in out.splitlines() if ln.strip()]
    ok(rc == 0 and sum(s["lost"] for s in snaps) == 3,
       "top -i --json: \"lost\" adds up to 3", out[:300])
    rc, out, err = run("dump", "-i", gen, "--csv")
    ok(rc == 0 and warn in err, "dump -i: the same warning", err)
    rc, out, err = run("timeline", "-i", gen)
    ev = [e for e in json.loads(out)["traceEvents"] if e.get("cat") == "lost"]
    ok(rc == 0 and sum(e["args"]["lost"] for e in ev) == 3 and warn in err,
       "timeline: lost-record events add up to 3, with the warning", err)

    # A file without its trailer: the counts are unknown, never 0.
    trunc = os.path.join(tmp, "trunc.td")
    with open(gen, "rb") as fh:
        data = fh.read()
    with open(trunc, "wb") as fh:
        fh.write(data[:len(data) // 2])
    rc, out, err = run("report", "-i", trunc, "--force", "--json")
    doc = json.loads(out) if rc == 0 else {}
    ok(rc == 0 and doc.get("lost", 0) is None and doc.get("lost_per_cpu", 0) is None,
       "report --force without a trailer: \"lost\": null, \"lost_per_cpu\": null",
       out[:400] + err)
    rc, out, err = run("report", "-i", trunc, "--force")
    head = [ln for ln in out.splitlines() if "records in the file" in ln]
    ok(rc == 0 and head and "lost unknown" in head[0] and " 0 lost" not in head[0] and
       "lost-record counts are unknown" in err,
       "report --force: the header says 'lost unknown', not 0", out[:600] + err)

    # Grammar: one record.
    one = os.path.join(tmp, "one.td")
    one_lost().write(one)
    rc, out, err = run("report", "-i", one)
    ok(rc == 0 and "CPU 0: 1 record lost while recording" in err,
       "'1 record lost', not '1 records'", err)
    rc, out, err = run("timeline", "-i", one)
    names = [e["name"] for e in json.loads(out)["traceEvents"] if e.get("cat") == "lost"]
    ok(rc == 0 and names == ["lost 1 record"], "timeline: 'lost 1 record'", names)


if __name__ == "__main__":
    main(setup=require_tdctl)
