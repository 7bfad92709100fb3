#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""selftests/bench/report.py on a made-up guest log (make bench's table).

Every mode of guest_bench.sh with a chosen time per switch, so that each
derived ratio is known: topdown's added cost over that of its BPF backend
(target <= 1/3) and of per-task perf counting (perf_event_open() and perf
stat --per-thread, target <= 1/10), met or missed, the BPF backend also
with the largest named set; the BPF backend's own target (at most twice
the module's added cost, per switch and per event) for it and beside
it its variants and the tdctl of before; event groups rotated against one
group (target within 2%) and the cost of one rotation; modes the guest skipped
with a reason are no error, a mode neither run nor skipped is; the accuracy
table sets each tool's count beside perf's of the same run.
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]  # tap.py: selftests/lib
from tap import TOP, main, ok, test, tmpdir  # noqa: E402

REPORT = os.path.join(TOP, "selftests/bench/report.py")
ROUNDS = 1000
# ns per switch; baseline 1000, so the added cost is the excess over 1000.
MODES = {
    "baseline": 1000, "stopped": 1000, "default": 1100, "default-noacct": 1090,
    "one": 1050, "seven": 1280, "max": 1300, "max-noacct": 1290,
    "default-totals": 1140,             # 40 over default: met
    "max-totals": 1380,                 # 80 over max: missed
    "perf-task-default": 1800,          # 100/800 = 0.125: missed
    "perf-task-max": 4000,              # 300/3000 = 0.10: met
    "perf-cpu-default": 1000, "perf-cpu-max": 1000,
    "perf-stat-thread-default": 2100,   # 100/1100: met
    "perf-stat-thread-max": 2000,       # 300/1000: missed
    "perf-stat-all-default": 1002, "perf-stat-all-max": 1004,
    "bpf-default": 1250,                # 100/250 = 0.4: missed
    "bpf-max": 2200,                    # 300/1200 = 0.25: met
    "bpf-totals-default": 1400, "bpf-totals-max": 2450,
    "set-big": 1700, "bpf-set-big": 4500,   # 700/3500 = 0.20: met
    # the BPF backend / module (target <= 2): 250/100 = 2.5 missed; per event (8 events)
    # (1200 - 250) / 6 over (300 - 100) / 6 = 4.75 missed; largest set
    # (7 events) (3500 - 250) / 5 over (700 - 100) / 5 = 5.42
    "bpf-value-default": 1300, "bpf-value-max": 2500,
    "bpf-shared-default": 1150,         # 150/100 = 1.5, no target
    "bpf-shared-max": 1400,
    "bpf-before-default": 1400, "bpf-before-max": 3000, "bpf-before-set-big": 5000,
    "floor-empty": 1010, "floor-clock": 1020, "floor-one": 1030,
    "floor-default": 1040, "floor-seven": 1100, "floor-max": 1110,
    "groups-one": 1200,
    "groups-rot": 1202,                 # 202/200: +1.00%, within 2%: met
    "groups-rot-fast": 1300,            # 100 ns x 2000 switches / 100 changes
    "baseline-end": 1000,
}
# --td-stats of the group modes: group changes per repeat and their time
ROTATIONS = {"groups-one": (0, 0), "groups-rot": (4, 4 * 500),
             "groups-rot-fast": (100, 100 * 500)}
SKIPPED = {"perf-stat-bpf-default": "perf built without BUILD_BPF_SKEL",
           "perf-stat-bpf-max": "perf built without BUILD_BPF_SKEL"}
N = 1000000


def acc(run, tool, n):
    if tool == "perf":
        res = {"cycles": n, "instructions": n}
    else:
        res = {"lost": 0, "total": {"counts": {"cycles": n, "instructions": n}}}
    return "@@BENCH-ACC " + json.dumps({"run": run, "tool": tool, "iterations": N,
                                        "pid": 1, "events": "0:0x0,0:0x1",
                                        "result": res})


def guest_log(modes, skipped, only=None, pats=None):
    meta = {"arch": "aarch64", "kernel": "k", "rounds": ROUNDS, "repeats": 3,
            "cpu": 1, "nr_cpus": 2}
    if pats:
        meta["modes"] = pats
    lines = ["@@BENCH-META " + json.dumps(meta),
             '@@BENCH-SET {"default_set":"generic","default":"0:0x0,0:0x1",'
             '"max":"0:0x0,0:0x1,8:0x23,8:0x24,8:0x3a,8:0x3b,8:0x3f,1:0x0"}',
             '@@BENCH-BEFORE {"version":"tdctl 0.0.0+before.9c2efceefa1c (ABI 1)"}']
    if only:
        lines.append('@@BENCH-ONLY {"only":"%s"}' % only)
    for m in ("groups-rot", "groups-rot-fast"):
        lines.append("@@BENCH-GROUPS " + json.dumps({
            "mode": m, "groups": "{a,b},{a,c}",
            "rotate_ms": 20 if m == "groups-rot" else 1}))
    for m, ns in modes.items():
        o = {"mode": m, "cpu": 1, "rounds": ROUNDS, "switches": 2 * ROUNDS,
             "ns": [ns * 2 * ROUNDS] * 3, "involuntary": [0, 0, 0]}
        if m in ROTATIONS:
            o.update(probe_calls=[2 * ROUNDS] * 3, probe_ns=[1] * 3,
                     records=[2 * ROUNDS] * 3, lost=[0] * 3,
                     rotations=[ROTATIONS[m][0]] * 3,
                     rotation_ns=[ROTATIONS[m][1]] * 3)
        lines.append("@@BENCH " + json.dumps(o))
    lines.append('@@BENCH-BIGSET {"set":"arm_neoverse_n2","events":'
                 '"8:0x11,8:0x3a,8:0x3b,8:0x3f,8:0x3e,8:0x3d,8:0x8"}')
    for m, why in skipped.items():
        lines.append("@@BENCH-SKIP " + json.dumps({"mode": m, "reason": why}))
    lines += [acc("module+perf", "module", 2000900), acc("module+perf", "perf", 2000000),
              acc("bpf+perf", "bpf", 2003000), acc("bpf+perf", "perf", 2001000)]
    return "\n".join(lines) + "\n"


def report(modes, skipped, only=None, pats=None):
    with tmpdir() as d:
        log, out = os.path.join(d, "guest.log"), os.path.join(d, "bench.json")
        with open(log, "w") as f:
            f.write(guest_log(modes, skipped, only, pats))
        p = subprocess.run([sys.executable, REPORT, "--out", out,
                            "--guest", "arm64=" + log, "--icount", "arm64"],
                           capture_output=True, text=True)
        js = json.load(open(out)) if os.path.exists(out) else {}
        return p.returncode, p.stdout + p.stderr, js


def row(text, name):
    """The derived line that starts with NAME."""
    m = re.search(r"^ +" + re.escape(name) + r" +(.*)$", text, re.M)
    return m.group(1) if m else ""


@test
def bench_report():
    rc, text, js = report(MODES, SKIPPED)
    ok(rc == 0, "every mode run or skipped: exit 0", text)
    for name, val, verdict in (
            ("topdown default / topdown BPF backend", "0.40", "target <= 0.33  MISSED"),
            ("topdown 8 events / topdown BPF backend", "0.25", "target <= 0.33  MET"),
            ("topdown arm_neoverse_n2 / topdown BPF backend", "0.20", "target <= 0.33  MET"),
            ("topdown default / perf stat --per-thread", "0.09", "target <= 0.10  MET"),
            ("topdown 8 events / perf stat --per-thread", "0.30", "target <= 0.10  MISSED"),
            ("topdown default / perf per-task, same events", "0.12", "target <= 0.10  MISSED"),
            ("topdown 8 events / perf per-task, same events", "0.10", "target <= 0.10  MET")):
        r = row(text, name)
        ok(r.startswith(val + " x") and r.endswith(verdict),
           f"'{name}': {val} x, {verdict}", r or text)
    for name, val, verdict in (
            ("kernel totals (--totals), default set", "40.00", "target <= 60  MET"),
            ("kernel totals (--totals), 8 events", "80.00", "target <= 60  MISSED")):
        r = row(text, name)
        ok(r.startswith(val + " ns") and r.endswith(verdict),
           f"'{name}': {val} ns, {verdict}", r or text)
    for name, val in (("BPF backend's totals (--totals), default set", "150.00"),
                      ("BPF backend's totals (--totals), 8 events", "250.00")):
        r = row(text, name)
        ok(r.startswith(val + " ns"), f"'{name}': {val} ns, no target", r or text)
    d = js.get("arm64", {}).get("derived", {})
    ok(abs((d.get("ratio_default_vs_bpf") or 0) - 0.4) < 1e-9 and
       abs((d.get("ratio_max_vs_perf-stat-thread") or 0) - 0.3) < 1e-9,
       "bench.json: the ratios to the peers", json.dumps(d, indent=1))
    r = row(text, "topdown default / perf stat --bpf-counters")
    ok(r.startswith("SKIP (perf built without BUILD_BPF_SKEL)"), "a skipped peer: SKIP and why",
       r or text)
    r = row(text, "topdown default / perf stat -a")
    ok("adds 2.0 ns a switch" in r, "perf stat -a: its added cost, no ratio", r or text)
    r = row(text, "perf stat --bpf-counters, default set")
    ok(r.startswith("SKIP") and "BUILD_BPF_SKEL" in r, "the mode table shows the skipped mode",
       r or text)

    # accuracy: module +900 over perf of its run, bpf +2000
    r = re.search(r"^ +module\+perf +module +2000900 +2000900 +\+900 +\+900 \(\+0\.0450%\)$",
                  text, re.M)
    ok(r is not None, "accuracy: the module's count beside perf's of the same run", text)
    r = re.search(r"^ +bpf\+perf +bpf +2003000 +2003000 +\+3000 +\+2000 \(\+0\.1000%\)$",
                  text, re.M)
    ok(r is not None, "accuracy: the BPF backend's count beside perf's of the same run", text)
    a = js.get("arm64", {}).get("accuracy", [])
    ok(len(a) == 4 and a[0]["counts"] == {"cycles": 2000900, "instructions": 2000900},
       "bench.json: the accuracy rows", json.dumps(a, indent=1))

    # the BPF backend against the module, per switch and per event: at
    # most twice the module's added cost
    for name, val, verdict in (
            ("BPF backend / module, default set", "2.50", "target <= 2.00  MISSED"),
            ("BPF backend / module, per event (8)", "4.75", "target <= 2.00  MISSED"),
            ("BPF backend / module, per event (largest set)", "5.42", "target <= 2.00  MISSED"),
            ("BPF, shared ring / module, default set", "1.50", "")):
        r = row(text, name)
        ok(re.fullmatch(re.escape(val) + r" x *" + re.escape(verdict), r) is not None,
           f"'{name}': {val} x {verdict or '(no target: a variant)'}", r or text)
    r = row(text, "BPF before (0.0.0+before.9c2efceefa1c)")
    ok(r.split()[:2] == ["400.0", "2000.0"],
       "the tdctl of before: its added cost, with its version", r or text)

    # event groups: rotated vs one group, the cost of one rotation
    for name, val, tail in (
            ("2 groups of 4 rotated vs one group of 4 (added, default)", "1.00 %",
             "target within 2%  MET"),
            ("one rotation, --rotate 1 run (100 changes a repeat)", "2000.00 ns", ""),
            ("one rotation, default run (4 changes a repeat)", "1000.00 ns", ""),
            ("of which the change itself (rotation_ns)", "500.00 ns", ""),
            ("rotation at the default 20 ms, per CPU-second", "100.00 us/s", "")):
        r = row(text, name)
        ok(r.startswith(val) and r.endswith(tail),
           f"groups: '{name}': {val} {tail}", r or text)
    d = js.get("arm64", {}).get("derived", {})
    ok(abs((d.get("groups_rot_vs_one_pct") or 0) - 1.0) < 1e-9 and
       abs((d.get("rotation_cost_ns") or 0) - 2000) < 1e-9 and
       abs((d.get("rotation_ns_per_s") or 0) - 100000) < 1e-6,
       "bench.json: the group figures", json.dumps(d, indent=1))
    # TD_BENCH_ONLY=groups: only those modes are required
    rc, text, js = report({k: v for k, v in MODES.items()
                           if k.startswith("groups-") or k.startswith("baseline")},
                          {}, only="groups")
    ok(rc == 0 and "MISSING" not in text and "1.00 %" in text,
       "TD_BENCH_ONLY=groups: the baseline and the group modes, no error", text)

    # TD_BENCH_MODES: modes not asked for are no error; those asked for are
    keep = ("baseline", "default", "max", "set-big", "bpf-default", "bpf-max",
            "bpf-totals-default", "bpf-totals-max", "bpf-set-big", "bpf-value-default",
            "bpf-value-max", "bpf-shared-default", "bpf-shared-max", "bpf-before-default",
            "bpf-before-max", "bpf-before-set-big")
    pats = "baseline default max set-big bpf-*"
    rc, text, js = report({k: MODES[k] for k in keep}, {}, pats=pats)
    ok(rc == 0 and "MISSING" not in text and row(text, "BPF backend / module, default set"),
       "TD_BENCH_MODES: only the modes asked for, no error", text)
    rc, text, js = report({k: MODES[k] for k in keep if k != "bpf-value-max"}, {}, pats=pats)
    ok(rc == 1 and "mode 'bpf-value-max' missing" in text,
       "TD_BENCH_MODES: a mode asked for and missing is an error", text)

    # a mode that neither ran nor was skipped is an error
    modes = dict(MODES)
    del modes["bpf-max"]
    rc, text, js = report(modes, SKIPPED)
    ok(rc == 1 and "mode 'bpf-max' missing" in text, "a peer neither run nor skipped: error", text)


@test
def reader_totals_rows():
    """The reader's JSONL: stat -a on the totals, its own line, met or missed."""
    base = {"command": "stat", "format": "task", "set": "intel_spr", "events": 8,
            "cpus": 8, "records": 20000, "file_bytes": 2560000, "cpu_s": 0.01,
            "wall_s": 1.0, "records_per_s": 2000000, "insn_per_record": 300.0,
            "target": 10e6, "live": True}
    tot = {"command": "stat", "format": "totals", "set": "intel_spr", "events": 8,
           "cpus": 8, "tasks": 10000, "refreshes": 12, "cpu_s": 0.06,
           "ms_per_refresh": 5.0, "device_ms_per_refresh": 2.0, "target_ms": 10,
           "live": True}
    for ms, verdict in ((5.0, "met"), (12.5, "MISSED")):
        with tmpdir() as d:
            rd, out = os.path.join(d, "reader.jsonl"), os.path.join(d, "bench.json")
            with open(rd, "w") as f:
                f.write(json.dumps(base) + "\n")
                f.write(json.dumps(dict(tot, ms_per_refresh=ms)) + "\n")
            p = subprocess.run([sys.executable, REPORT, "--out", out, "--reader", rd],
                               capture_output=True, text=True)
            js = json.load(open(out)) if os.path.exists(out) else {}
        text = p.stdout + p.stderr
        line = next((ln for ln in text.splitlines() if "the totals of 10,000" in ln), "")
        ok(p.returncode == 0 and f"{ms:.2f} ms of CPU a refresh" in line and
           "2.00 of them the device's" in line and f"target 10 ms: {verdict}" in line,
           f"reader: stat -a on the totals at {ms} ms a refresh: {verdict}", text)
        ok(len(js.get("reader", [])) == 2 and "stat -a --by task" in text and
           "stat -a --by totals" not in text,
           "reader: the totals row is not a records/s row, and is in bench.json", text)


if __name__ == "__main__":
    main()
