#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One filter set, one parser: report, dump, top -i and timeline take
-p/--pid lists, --tid, --cpu, --cgroup, --comm and --from/--to (seconds
into the recording) and keep the same slices for the same filters, the
ones Python selects from the records written. TAP."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
import tdfile_gen  # noqa: E402
from tap import main, ok, require_tdctl, run, test  # noqa: E402


def selected(sc, f):
    out = []
    for r in sc.records:
        start = r.time_ns - r.duration_ns
        if "pid" in f and r.pid not in f["pid"] and r.tgid not in f["pid"]:
            continue
        if "tid" in f and r.pid not in f["tid"]:
            continue
        if "cpu" in f and r.cpu not in f["cpu"]:
            continue
        if "cgroup" in f and r.cgroup not in f["cgroup"]:
            continue
        if "comm" in f and r.comm != f["comm"]:
            continue
        if "from" in f and r.time_ns <= sc.start_ns + f["from"]:
            continue
        if "to" in f and start >= sc.start_ns + f["to"]:
            continue
        out.append(r)
    return out


def args(f):
    a = []
    for k, v in f.items():
        if k in ("pid", "tid", "cpu", "cgroup"):
            a += ["--" + k, ",".join(str(x) for x in v)]
        elif k == "comm":
            a += ["--comm", v]
        else:
            a += ["--" + k, "%.9f" % (v / 1e9)]
    return a


def counts(path, f):
    """Slices kept by each command for the filter f."""
    a = args(f)
    got = {}
    rc, out, err = run("dump", "-i", path, "--json", *a)
    got["dump"] = len(json.loads(out)) if rc == 0 else ("rc %d %s" % (rc, err))
    rc, out, err = run("report", "-i", path, "--json", *a)
    got["report"] = json.loads(out)["total"]["slices"] if rc == 0 else "rc %d" % rc
    rc, out, err = run("top", "-i", path, "--json", "-d", "3600", *a)
    got["top"] = sum(json.loads(ln)["total"]["slices"] for ln in out.splitlines()
                     if ln.strip()) if rc == 0 else "rc %d" % rc
    rc, out, err = run("timeline", "-i", path, *a)
    got["timeline"] = sum(1 for e in json.loads(out)["traceEvents"]
                          if e.get("ph") == "X") if rc == 0 else "rc %d" % rc
    return got


@test
def filters(tmp):
    path = os.path.join(tmp, "g.td")
    sc = tdfile_gen.generic()
    sc.write(path)
    pids = sorted({r.tgid for r in sc.records if r.tgid})
    tids = sorted({r.pid for r in sc.records if r.pid != r.tgid})
    comms = sorted({r.comm for r in sc.records})
    span = sc.stop_ns - sc.start_ns
    filters = [
        {"pid": pids[:2]},
        {"pid": [pids[0]]},
        {"tid": tids[:1] or [pids[0]]},
        {"cpu": [0]},
        {"cpu": [0, 1]},
        {"cgroup": sorted({r.cgroup for r in sc.records})[:1]},
        {"comm": comms[0]},
        {"from": span // 4, "to": span // 2},
        {"from": span // 3},
        {"pid": pids[:2], "cpu": [1], "to": span // 2},
    ]
    for f in filters:
        want = len(selected(sc, f))
        got = counts(path, f)
        ok(want > 0 and all(v == want for v in got.values()),
           "%s: dump, report, top -i and timeline keep the same %d slices"
           % (" ".join(args(f)), want), repr(got))
    # -p is --pid in report and dump too (was an unknown option there).
    for cmd in ("report", "dump"):
        rc, out, err = run(cmd, "-i", path, "-p", "%d,%d" % tuple(pids[:2]))
        ok(rc == 0, "%s -i FILE -p PID,PID: a list, as everywhere" % cmd, err)
    rc, out, err = run("report", "-i", path, "--cgroup", "/no/such/cgroup")
    ok(rc == 2 and "--cgroup" in err and "see 'tdctl report --help'" in err,
       "--cgroup with a path that is not a cgroup here: a usage error", err)
    # top replays the window only: no empty snapshot before or after it
    for frm, to in (("1.2", "1.4"), ("0.5", "1"), ("1.9", None), ("3", None)):
        a = ["--from", frm] + (["--to", to] if to else [])
        rc, out, err = run("top", "-i", path, "--json", "-d", "0.1", *a)
        snaps = [json.loads(ln) for ln in out.splitlines() if ln.strip()] \
            if rc == 0 else []
        times = [s["time_s"] for s in snaps]
        lo, hi = float(frm), float(to) if to else span / 1e9
        empty = [s["time_s"] for s in snaps if not s["rows"]]
        if frm == "3":      # nothing in the window: one empty snapshot
            good = len(snaps) == 1
        else:
            good = snaps and not empty and \
                all(lo < t <= hi + 0.1 + 1e-9 for t in times)
        ok(rc == 0 and good,
           "top -i -d 0.1 %s: snapshots in the window only (%s)" %
           (" ".join(a), times), err + repr(empty))
    rc, out, err = run("dump", "-i", path, "--from", "2", "--to", "1")
    ok(rc == 2 and "--to must be later than --from" in err,
       "--to before --from: a usage error in dump too", err)


if __name__ == "__main__":
    main(setup=require_tdctl)
