#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The pipeline the README and tdctl-decode(8) document,

  tdctl dump -i FILE --json | tdctl decode --set SET [--level 2 | -M GROUP]

on record files with rotated event groups (format 2.0), written from
the man pages as a user would read them. Files made by tdfile_gen.py:
intel_icl's four Level 2 groups and arm_neoverse_n2's six, as `tdctl
list -j` names them, 8 tasks on 4 CPUs, rotation every 5 ms, 3 % of the
slices with a count that could not be read.

  - dump's JSON: each slice has its group's index ("group"), its group's
    counts, null for the other events, and names in "unreadable" exactly
    the counts that could not be read (null too); a rotated slice names
    none;
  - decode reads that JSON, for Level 1, --level 2 and -M, and gives the
    values of `tdctl report -j` of the same file: the whole file against
    report's total (values, coverage and error), and with --level 2 each
    task's slices (dump --tid) against report's row of the task (values;
    unknown is null in both);
  - the slices one per line (as dump --follow prints them) and a dump
    without "unreadable" (an older tdctl's) decode the same.
TAP.
"""
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
import tdfile_gen as T  # noqa: E402
from tap import TOP, main, ok, run, test  # noqa: E402

MKFIXTURE = os.path.join(os.environ.get("OUT") or os.path.join(TOP, "build/host/"),
                         "mkfixture")
TOL = 5e-7      # the 6 decimals of the tools' text; JSON has more

# counts per microsecond of a task, before a spread of +-30 %
ICL_RATES = {
    "cycles": 2000, "instructions": 3000, "TOPDOWN.SLOTS_P": 10000,
    "IDQ_UOPS_NOT_DELIVERED.CORE": 2000, "UOPS_RETIRED.SLOTS": 3500,
    "TOPDOWN.BACKEND_BOUND_SLOTS": 3000, "IDQ_NOT_DELIV.CYCLES_0_UOPS": 200,
    "BR_MISP_RETIRED.ALL_BRANCHES": 20, "MACHINE_CLEARS.COUNT": 3,
    "CYCLE_ACTIVITY.STALLS_MEM_ANY": 500, "EXE_ACTIVITY.BOUND_ON_STORES": 50,
    "CYCLE_ACTIVITY.STALLS_TOTAL": 900, "EXE_ACTIVITY.1_PORTS_UTIL": 300,
    "EXE_ACTIVITY.2_PORTS_UTIL": 300, "UOPS_ISSUED.ANY": 3800,
    "IDQ.MS_UOPS": 200, "UOPS_DECODED.DEC0": 1500,
    "UOPS_DECODED.DEC0,cmask=1": 900, "IDQ.MITE_UOPS": 2500}
N2_RATES = {
    "CPU_CYCLES": 2000, "OP_RETIRED": 3500, "OP_SPEC": 4000,
    "STALL_SLOT": 5000, "STALL_SLOT_FRONTEND": 2000,
    "STALL_SLOT_BACKEND": 3000, "INST_RETIRED": 3000, "L1D_TLB": 1500,
    "L1D_TLB_REFILL": 30, "DTLB_WALK": 5, "L2D_TLB": 30, "L2D_TLB_REFILL": 6,
    "L1I_TLB": 1200, "L1I_TLB_REFILL": 10, "ITLB_WALK": 2, "BR_RETIRED": 600,
    "BR_MIS_PRED_RETIRED": 12, "L1D_CACHE": 1400, "L1D_CACHE_REFILL": 40,
    "L1I_CACHE": 1300, "L1I_CACHE_REFILL": 20, "L2D_CACHE": 90,
    "L2D_CACHE_REFILL": 25, "LL_CACHE_RD": 20, "LL_CACHE_MISS_RD": 8,
    "L3D_CACHE": 15, "L3D_CACHE_REFILL": 5, "STALL_FRONTEND": 500,
    "STALL_BACKEND": 700}

# (set, fixture, decode's options, the selections decoded)
CASES = [
    ("intel_icl", "icelake_server", [],
     [[], ["--level", "2"], ["-M", "TopdownL2"], ["-M", "Backend"]]),
    ("arm_neoverse_n2", "neoverse_n2_r0p3", ["--slots", "5", "--revision", "r0p3"],
     [[], ["--level", "2"], ["-M", "DTLB_Effectiveness"]]),
]


def level2_plan(tmp, setname, fixture):
    """The pool, groups and label of the set's Level 2 groups, as `tdctl
    list -j` names them on a fixture of its CPU (load --level 2's)."""
    fx = os.path.join(tmp, "fx")
    os.system("%s %s %s >/dev/null" % (MKFIXTURE, fx, fixture))
    rc, out, err = run("list", "--root", os.path.join(fx, fixture), "-s",
                       setname, "-j")
    if rc:
        return None
    sel = json.loads(out)["selected"]
    groups = [g for g in sel["groups"] if g["level"] == 1 or g["in_level2"]]
    pool, idx = [], []
    for g in groups:
        ix = []
        for e in g["events"]:
            if e["name"] not in pool:
                pool.append(e["name"])
            ix.append(pool.index(e["name"]))
        idx.append(ix)
    return pool, idx, sel["label"] + " g=" + ",".join(g["id"] for g in groups)


def recording(seed, pool, groups, label, rates):
    rng = random.Random(seed)
    tasks = []
    for i in range(8):
        r = [rates[e] * rng.uniform(0.7, 1.3) for e in pool]
        tasks.append(T.Task(3000 + i, 3000 + i, "r%d" % i, r, [i % 4],
                            slice_ns=rng.choice([100_000, 300_000])))
    return T.simulate(rng, pool, groups, tasks, nr_cpus=4, rotate_ms=5,
                      duration_ns=400_000_000, p_error=0.03, label=label)


def check_dump(sc, pool, groups, dump):
    """dump's JSON against the records written."""
    by_key = {(r.cpu, r.seq): r for r in sc.records}
    bad, unread = [], 0
    for s in dump:
        r = by_key.get((s["cpu"], s["seq"]))
        if r is None:
            bad.append("slice cpu %d seq %d: not a record" % (s["cpu"], s["seq"]))
            continue
        g = (r.flags >> T.GROUP_SHIFT) & 0xf
        rotated = bool(r.flags & T.REC_ROTATED)
        want_unread = [] if rotated else [pool[e] for j, e in enumerate(groups[g])
                                          if r.flags & (1 << j)]
        want = {}
        for j, e in enumerate(groups[g]):
            if not rotated and not r.flags & (1 << j):
                want[pool[e]] = r.deltas[j]
        got = {k: v for k, v in s["counts"].items() if v is not None}
        unread += bool(want_unread)
        if s.get("group") != g or s.get("rotated") != rotated or \
                sorted(s.get("unreadable", [None])) != sorted(want_unread) or \
                got != want or set(s["counts"]) != set(pool):
            bad.append("slice cpu %d seq %d: group %s rotated %s unreadable %s "
                       "counts %s; the record: group %d rotated %s unreadable %s "
                       "counts %s" % (s["cpu"], s["seq"], s.get("group"),
                                      s.get("rotated"), s.get("unreadable"), got,
                                      g, rotated, want_unread, want))
    return bad, unread


def differ(a, b, tol=TOL):
    if a is None or b is None:
        return a is not b
    return abs(a - b) > tol * max(1.0, abs(b))


def decode(setname, opts, sel, text):
    rc, out, err = run("decode", "-s", setname, *opts, *sel, "--json", stdin=text)
    try:
        return rc, json.loads(out) if rc == 0 else {}, err
    except ValueError:
        return 1, {}, out + err


def compare(what, dec, rep, keys, problems, errors=False):
    """dec: decode's JSON; rep: report's row (metrics, coverage, error)."""
    for k in keys:
        if k not in dec["metrics"]:
            problems.append("%s: %s missing from decode" % (what, k))
            continue
        if differ(dec["metrics"][k], rep["metrics"].get(k)):
            problems.append("%s, %s: decode %r, report %r" % (
                what, k, dec["metrics"][k], rep["metrics"].get(k)))
        if not errors:
            continue
        for part in ("coverage", "error"):
            if differ(dec.get(part, {}).get(k), rep.get(part, {}).get(k), 1e-9):
                problems.append("%s, %s's %s: decode %r, report %r" % (
                    what, k, part, dec.get(part, {}).get(k), rep.get(part, {}).get(k)))


def check(setname, opts, sels, path, sc, pool, groups):
    rc, out, err = run("dump", "-i", path, "--json")
    dump = json.loads(out) if rc == 0 else []
    bad, unread = check_dump(sc, pool, groups, dump)
    ok(rc == 0 and dump and unread and not bad,
       "%s: dump --json has each slice's group, its counts, null for the "
       "other events and in \"unreadable\" exactly the %d counts not read"
       % (setname, unread), err + "\n".join(bad[:10]))
    rc, out, err = run("report", "-i", path, "-j")
    total = json.loads(out)["total"] if rc == 0 else {}
    rc, out, err2 = run("report", "-i", path, "--by", "task", "-j")
    rows = {r["tid"]: r for r in json.loads(out)["rows"]} if rc == 0 else {}
    if not ok(total and rows, "%s: report -j reads the file" % setname, err + err2):
        return
    # the slices one per line, and without "unreadable"
    lines = "".join(json.dumps(s) + "\n" for s in dump)
    older = json.dumps([{k: v for k, v in s.items() if k != "unreadable"}
                        for s in dump])
    for sel in sels:
        what = "%s %s" % (setname, " ".join(sel) or "(Level 1)")
        problems = []
        rc, dec, err = decode(setname, opts, sel, json.dumps(dump))
        keys = list(dec.get("metrics", {}))
        l1 = [k for k in ("retiring", "bad_speculation", "frontend_bound",
                          "backend_bound") if k in total["metrics"]]
        if rc or not set(l1) <= set(keys) or (sel and len(keys) <= len(l1) + 1):
            problems.append("decode: rc %d, metrics %s: %s" % (rc, keys, err))
        compare("whole file", dec, total, keys, problems, errors=True)
        for variant, text in (("one slice a line", lines),
                              ("without \"unreadable\"", older)):
            rc2, dec2, err2 = decode(setname, opts, sel, text)
            if rc2 or dec2.get("metrics") != dec.get("metrics"):
                problems.append("%s: %s %s" % (variant, dec2.get("metrics"), err2))
        # each task: with --level 2, every group's metrics
        for tid, row in sorted(rows.items()):
            if not tid or sel != ["--level", "2"]:
                continue
            rc, out, err = run("dump", "-i", path, "--json", "--tid", str(tid))
            rc2, dt, err2 = decode(setname, opts, sel, out)
            if rc or rc2:
                problems.append("task %d: %s %s" % (tid, err, err2))
                continue
            compare("task %d" % tid, dt, row, keys, problems)
        ok(not problems,
           "%s: dump --json | decode gives report's %d metrics, the whole "
           "file's (with coverage and error)%s"
           % (what, len(keys), " and each task's" if sel == ["--level", "2"] else ""),
           "\n".join(problems[:20]))


@test
def dump_groups(tmp):
    for n, (setname, fixture, opts, sels) in enumerate(CASES):
        p = level2_plan(tmp, setname, fixture)
        if not ok(p is not None, "tdctl list -j names the Level 2 groups "
                  "of %s" % setname):
            continue
        pool, groups, label = p
        rates = ICL_RATES if setname == "intel_icl" else N2_RATES
        sc, _ = recording(50 + n, pool, groups, label, rates)
        path = os.path.join(tmp, setname + ".td")
        sc.write(path)
        check(setname, opts, sels, path, sc, pool, groups)


if __name__ == "__main__":
    main()
