#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tdctl decode --level 2 / -M on perf stat -M TopdownL2, PipelineL2 and
Neoverse metric-group output (perf-stat/*l2*, *dtlb*: perf 6.1, 6.12 and
7.3, plain, -x and -j; see perf-stat/README).

For each fixture: decode it as a user would pipe perf's output, then
every metric perf printed that tdctl computes must have perf's value to
the digits perf printed, under perf's name (perf_metrics); every Level 2
metric tdctl computes must be one perf printed; what perf printed that
the set's groups do not compute is listed and must be what
Documentation/event-sets.rst says does not fit the counter budget.
TAP on stdout. Needs build/x86_64/tdctl.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from tap import TDCTL, TOP, main, ok, require_tdctl, test  # noqa: E402

FX = os.path.join(TOP, "selftests", "host", "perf-stat")

# (fixture, decode arguments, perf's metrics the set does not compute)
CASES = [
    ("icl-6.12-topdownl2.json", ["--set", "intel_icl", "--level", "2"], set()),
    ("icl-6.1-topdownl2.txt", ["--set", "intel_icl", "-M", "TopdownL2"], set()),
    ("skl-6.1-topdownl2.csv", ["--set", "intel_skl", "--level", "2", "-x", ";"],
     {"tma_branch_mispredicts", "tma_machine_clears", "tma_memory_bound",
      "tma_core_bound"}),
    ("zen4-6.12-pipelinel2.csv", ["--set", "amd_zen4", "-M", "PipelineL2"], set()),
    ("zen5-6.12-pipelinel2.json", ["--set", "amd_zen5", "--level", "2"], set()),
    ("zen6-7.3-pipelinel2.json", ["--set", "amd_zen5", "-M", "PipelineL2"], set()),
    ("n2-6.12-dtlb-mix.txt", ["--set", "arm_neoverse_n2", "-M",
                              "dtlb_effectiveness,operation_mix"], set()),
    ("v2-7.3-operation-mix.json", ["--set", "arm_neoverse_v2", "-M", "Operation_Mix"], set()),
    ("n3-7.3-topdownl1-mix.json", ["--set", "arm_neoverse_n3", "-M",
                                   "TopdownL1,Operation_Mix"], set()),
    ("v3-7.3-topdown-stalls.txt", ["--set", "arm_neoverse_v3", "-M",
                                   "TopdownL1,Topdown_Frontend,Topdown_Backend,"
                                   "Cycle_Accounting"], set()),
]


def perf_metrics(path):
    """{perf's metric name: (value as tdctl gives it, tolerance)} of a
    fixture, read as perf printed them (-j, -x, plain)."""
    out = {}

    def put(val, unit, name):
        dec = len(val.split(".")[1]) if "." in val else 0
        v, tol = float(val), 0.5 * 10 ** -dec + 1e-12
        if unit.startswith("%") or unit.startswith("percent"):
            v, tol = v / 100, tol / 100
        out[name] = (v, tol)

    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("{"):
            d = json.loads(line)
            if "metric-unit" in d and str(d.get("metric-value")) != "none" and \
                    "  " in d["metric-unit"]:
                unit, name = d["metric-unit"].rsplit("  ", 1)
                put(str(d["metric-value"]), unit, name)
            continue
        m = re.search(r"#\s+(-?[0-9.]+) (.*?)  (\w+)\s*$", line)
        if m:
            put(m.group(1), m.group(2), m.group(3))
            continue
        for sep in (",", ";"):
            f = line.split(sep)
            if len(f) >= 7 and "  " in f[-1] and re.match(r"^-?[0-9.]+$", f[-2]):
                unit, name = f[-1].rsplit("  ", 1)
                put(f[-2], unit, name)
                break
    return out


def level1_names(setname):
    """perf's names of the set's Level 1 metrics (perf -M TopdownL2 or
    PipelineL2 prints Level 2 only; tdctl's group 0 has Level 1)."""
    p = subprocess.run([TDCTL, "--json", "list", "--events", setname],
                       capture_output=True, text=True)
    info = json.loads(p.stdout)["selected"]
    return {m["perf_name"] for m in info["metric_info"] if m["level"] == 1}


@test
def decode_l2():
    for fixture, args, unfit in CASES:
        path = os.path.join(FX, fixture)
        with open(path) as f:
            p = subprocess.run([TDCTL, "--json", "decode"] + args, stdin=f,
                               capture_output=True, text=True)
        if p.returncode:
            ok(False, "decode %s %s" % (fixture, " ".join(args)), p.stdout + p.stderr)
            continue
        doc = json.loads(p.stdout)
        mine = doc["perf_metrics"]
        theirs = perf_metrics(path)
        errs, compared = [], 0
        for name, (v, tol) in sorted(theirs.items()):
            if name not in mine:
                if name not in unfit:
                    errs.append("perf's %s: tdctl does not compute it" % name)
                continue
            compared += 1
            if mine[name] is None or abs(mine[name] - v) > tol:
                errs.append("%s: perf printed %r, tdctl %r" % (name, v, mine[name]))
        l1 = level1_names(args[1])
        for name in mine:
            if name not in theirs and name not in l1:
                errs.append("tdctl's Level 2 %s is not in perf's output" % name)
        groups = [g["id"] for g in doc.get("groups", [])]
        ok(not errs and compared >= 4 and len(groups) >= 2,
           "decode %s (%s): %d of perf's metrics, perf's values to its digits, "
           "groups %s; not computed (do not fit): %s"
           % (fixture, " ".join(args), compared, ",".join(groups),
              " ".join(sorted(unfit)) or "none"),
           "\n".join(errs) + "\n" + p.stdout)
    # one count less: the group that needs it is left out, and said so
    path = os.path.join(FX, "icl-6.12-topdownl2.json")
    lines = [x for x in open(path) if '"EXE_ACTIVITY.2_PORTS_UTIL"' not in x]
    p = subprocess.run([TDCTL, "--json", "decode", "--set", "intel_icl", "--level", "2"],
                       input="".join(lines), capture_output=True, text=True)
    doc = json.loads(p.stdout) if p.returncode == 0 else {}
    ok(p.returncode == 0 and "tma_memory_bound" not in doc["perf_metrics"] and
       "tma_fetch_latency" in doc["perf_metrics"] and
       any("group backend" in a and "EXE_ACTIVITY.2_PORTS_UTIL" in a
           for a in doc["assumptions"]),
       "decode: a group missing a count is left out, the others decoded, and said so",
       p.stdout + p.stderr)


if __name__ == "__main__":
    main(setup=require_tdctl)
