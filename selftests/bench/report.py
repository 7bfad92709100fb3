#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the output of `make bench` into the table and build/bench/bench.json.

    report.py --out JSON [--guest ARCH=LOG ...] [--reader JSONL]

A guest LOG holds the "@@BENCH..." lines of selftests/bench/guest_bench.sh
(one boot: every mode). The reader JSONL holds one object per reader
measurement (scripts/bench.sh). Exit status 1 if a mode is missing or
failed, or the guest reported a failure.

Per mode the figure is ns per context switch over one repeat, summarised
over the repeats by the median in an -icount guest (guest time is the
instruction count: repeats agree to ~0.05% but for an occasional disturbed
one, either way) and by the minimum in a wall-clock guest (under TCG the
host's load only ever adds time).
"""
import argparse
import fnmatch
import json
import sys

# (key, label, needs --td-stats) in table order; all are required.
MODES = [
    ("baseline", "module not loaded (baseline)"),
    ("stopped", "loaded, stopped"),
    ("default", "topdown, default set"),
    ("default-noacct", "  same, probe_time=0 (no accounting)"),
    ("one", "topdown, 1 event"),
    ("seven", "topdown, 7 hardware events"),
    ("max", "topdown, 8 events (maximum)"),
    ("max-noacct", "  same, probe_time=0"),
    ("default-totals", "topdown, default set, --totals"),
    ("max-totals", "topdown, 8 events, --totals"),
    ("groups-one", "topdown, one group of 4 events"),
    ("groups-rot", "topdown, 2 groups of 4, rotated"),
    ("groups-rot-fast", "  same, --rotate 1 (the shortest)"),
    ("perf-task-default", "perf per-task, default set events"),
    ("perf-task-max", "perf per-task, the 8 events"),
    ("perf-cpu-default", "perf CPU-wide group, default set"),
    ("perf-cpu-max", "perf CPU-wide group, the 8 events"),
    ("perf-stat-thread-default", "perf stat --per-thread -p, default set"),
    ("perf-stat-thread-max", "perf stat --per-thread -p, the 8 events"),
    ("perf-stat-all-default", "perf stat -a, default set"),
    ("perf-stat-all-max", "perf stat -a, the 8 events"),
    ("perf-stat-bpf-default", "perf stat --bpf-counters, default set"),
    ("perf-stat-bpf-max", "perf stat --bpf-counters, the 8 events"),
    ("bpf-default", "topdown BPF backend, default set"),
    ("bpf-max", "topdown BPF backend, the 8 events"),
    ("bpf-totals-default", "topdown BPF backend, default, --totals"),
    ("bpf-totals-max", "topdown BPF backend, 8 events, --totals"),
    ("set-big", "topdown, largest named set (module)"),
    ("bpf-set-big", "topdown BPF backend, largest named set"),
    ("bpf-value-default", "  BPF, read_value() (old read), default"),
    ("bpf-value-max", "  BPF, read_value() (old read), 8 events"),
    ("bpf-shared-default", "  BPF, one shared ring buffer, default"),
    ("bpf-shared-max", "  BPF, one shared ring buffer, 8 events"),
    ("bpf-before-default", "BPF backend before (tdctl-before), default"),
    ("bpf-before-max", "  BPF before, the 8 events"),
    ("bpf-before-set-big", "  BPF before, largest named set"),
    ("floor-empty", "floor: empty probe (tracepoint)"),
    ("floor-clock", "floor: + clock read"),
    ("floor-one", "floor: + 1 counter read"),
    ("floor-default", "floor: + default set reads"),
    ("floor-seven", "floor: + 7 hardware reads"),
    ("floor-max", "floor: + 8 event reads"),
    ("baseline-end", "module not loaded, at the end"),
]
OPTIONAL = {"seven", "floor-seven"}     # only where a PMU has 7 counters
# TD_BENCH_ONLY=groups (guest_bench.sh): the modes such a run has.
ONLY = {"groups": {"baseline", "groups-one", "groups-rot", "groups-rot-fast",
                   "baseline-end"}}
# The targets against the peers: topdown's added cost per switch at most
# this share of the peer's with the same events (its BPF backend, per-task
# perf counting).
TARGET_BPF = 1 / 3
TARGET_TASK = 1 / 10
# The BPF backend's target: its added cost (per switch, per event) at most
# this multiple of the module's with the same events.
TARGET_BPF_VS_MODULE = 2.0
# The BPF backend's variants of the bench (guest_bench.sh, 3c).
BPF_VARIANTS = [("bpf", "BPF backend"),
                ("bpf-value", "BPF, read_value()"),
                ("bpf-shared", "BPF, shared ring"),
                ("bpf-before", "BPF before")]


def parse_guest(path):
    res = {"modes": {}, "fail": [], "meta": {}, "loop": None, "sets": {},
           "skip": {}, "acc": [], "perf": {}, "groups": {}, "only": None}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            for tag in ("@@BENCH-META ", "@@BENCH-LOOP ", "@@BENCH-SET ",
                        "@@BENCH-SKIP ", "@@BENCH-ACC ", "@@BENCH-PERF ",
                        "@@BENCH-BPF ", "@@BENCH-BIGSET ", "@@BENCH-BEFORE ",
                        "@@BENCH-FAIL ", "@@BENCH-GROUPS ", "@@BENCH-ONLY ",
                        "@@BENCH "):
                i = line.find(tag)
                if i < 0:
                    continue
                body = line[i + len(tag):]
                if tag == "@@BENCH-FAIL ":
                    res["fail"].append(body)
                    break
                try:
                    obj = json.loads(body)
                except ValueError:
                    res["fail"].append("unparsable line: " + line[:120])
                    break
                if tag == "@@BENCH-META ":
                    res["meta"] = obj
                elif tag == "@@BENCH-LOOP ":
                    res["loop"] = obj
                elif tag == "@@BENCH-SET ":
                    res["sets"] = obj
                elif tag == "@@BENCH-SKIP ":
                    res["skip"][obj["mode"]] = obj["reason"]
                elif tag == "@@BENCH-ACC ":
                    res["acc"].append(obj)
                elif tag == "@@BENCH-GROUPS ":
                    res["groups"][obj["mode"]] = obj
                elif tag == "@@BENCH-ONLY ":
                    res["only"] = obj.get("only")
                elif tag in ("@@BENCH-PERF ", "@@BENCH-BPF ", "@@BENCH-BIGSET ",
                             "@@BENCH-BEFORE "):
                    res[tag[8:-1].lower()] = obj
                else:
                    res["modes"][obj["mode"]] = obj
                break
    return res


def per_switch(m):
    return [ns / m["switches"] for ns in m["ns"]]


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def summarise(res):
    out = {}
    pick = median if res["meta"].get("icount") else min
    for key, m in res["modes"].items():
        v = per_switch(m)
        s = {"ns_per_switch": pick(v), "ns_per_switch_min": min(v),
             "ns_per_switch_max": max(v), "estimator": pick.__name__,
             "repeats": len(v), "spread_pct": 100.0 * (max(v) - min(v)) / min(v)}
        if "probe_calls" in m:
            calls, pns = sum(m["probe_calls"]), sum(m["probe_ns"])
            s["probe_calls"] = calls
            s["probe_ns_mean"] = pns / calls if calls else 0.0
            s["records"] = sum(m["records"])
            s["lost"] = sum(m["lost"])
            s["probe_calls_per_switch"] = calls / (m["switches"] * len(v))
        if "rotations" in m:
            s["rotations"] = sum(m["rotations"])
            s["rotation_ns"] = sum(m["rotation_ns"])
            s["switches"] = m["switches"]
        if "counts" in m:
            s["events"] = m["events"]
        if "perf_counts" in m:
            s["perf_args"] = m["perf_args"]
            s["perf_counts"] = m["perf_counts"]
        out[key] = s
    return out


def fmt(x, w=9, p=1):
    return f"{x:{w}.{p}f}" if x is not None else " " * (w - 1) + "-"


def guest_table(arch, res, js):
    meta, s = res["meta"], summarise(res)
    skipped = res["skip"]
    only = ONLY.get(res["only"])
    # TD_BENCH_MODES: the modes the guest was asked to run
    pats = meta.get("modes", "*").split()
    asked = [k for k, _ in MODES if any(fnmatch.fnmatchcase(k, p) for p in pats) and
             (only is None or k in only)]
    missing = [k for k in asked
               if k not in s and k not in OPTIONAL and k not in skipped]
    errors = list(res["fail"]) + [f"mode '{k}' missing" for k in missing]
    for k, v in s.items():
        if v.get("lost"):
            errors.append(f"mode '{k}': {v['lost']} records dropped (ring too small)")
        # A rotated mode that never changed group measured no rotation.
        if k.startswith("groups-rot") and v.get("rotations") == 0:
            errors.append(f"mode '{k}': no group change on the benchmark's CPU")
    base = s.get("baseline", {}).get("ns_per_switch")
    icount = meta.get("icount")
    unit = ("ns (= instructions: -icount), median of repeats" if icount
            else "ns (TCG, wall clock), minimum of repeats")
    print(f"\n== {arch} guest, kernel {meta.get('kernel', '?')}, "
          f"{meta.get('rounds', '?')} round trips x {meta.get('repeats', '?')}, "
          f"tasks on CPU {meta.get('cpu', '?')}; per context switch, {unit}")
    sets = res["sets"]
    if sets:
        print(f"   default set '{sets.get('default_set')}' = {sets.get('default')}; "
              f"8 events = {sets.get('max')}  (TYPE:CONFIG)")
    if res.get("bigset"):
        print(f"   largest named set that loads here '{res['bigset']['set']}' = "
              f"{res['bigset']['events']} (module and BPF backend alike)")
    loop = res["loop"]
    if loop:
        print(f"   calibration: {loop['loop_insns']} user instructions took "
              f"{loop['ns']} ns = {loop['ns_per_insn']:.4f} ns/instruction"
              + (f" (INST_RETIRED counted {loop['user_insns_counted']})"
                 if loop.get("user_insns_counted") else ""))
    print(f"   {'MODE':<40} {'NS/SWITCH':>9} {'SPREAD':>7} {'ADDED':>8} {'ADDED%':>7} "
          f"{'PROBE_NS':>9}")
    rows = []
    for key, label in MODES:
        v = s.get(key)
        if not v:
            if only is not None and key not in only:
                continue
            if key in skipped:
                print(f"   {label:<40} {'SKIP':>9}  {skipped[key]}")
            elif key not in OPTIONAL and key in asked:
                print(f"   {label:<40} {'MISSING':>9}")
            continue
        added = v["ns_per_switch"] - base if base else None
        pct = 100.0 * added / base if base else None
        probe = v.get("probe_ns_mean")
        print(f"   {label:<40} {fmt(v['ns_per_switch'])} {v['spread_pct']:6.2f}% "
              f"{fmt(added, 8)} {fmt(pct, 6, 2)}% {fmt(probe) if probe else ' ' * 8 + '-'}")
        rows.append(dict(mode=key, label=label.strip(), added_ns=added,
                         added_pct=pct, **v))

    def add(k):
        v = s.get(k)
        return v["ns_per_switch"] - base if v and base else None

    def ratio(a, b):
        return a / b if a is not None and b else None

    def diff(a, b):
        """add(a) - add(b), or None when either is missing."""
        x, y = add(a), add(b)
        return x - y if x is not None and y is not None else None

    d = {}
    d["tracepoint_dispatch"] = add("floor-empty")
    fe, fc = add("floor-empty"), add("floor-clock")
    d["clock_read"] = fc - fe if fc is not None and fe is not None else None
    f1, f7, f8 = add("floor-one"), add("floor-seven"), add("floor-max")
    if f1 is not None and f7 is not None:
        d["counter_read_per_event"] = (f7 - f1) / 6
    elif f1 is not None and f8 is not None:
        d["counter_read_per_event"] = (f8 - f1) / 7
    d.setdefault("counter_read_per_event", None)
    d["first_counter_read"] = f1 - fc if f1 is not None and fc is not None else None
    d["accounting"] = diff("default", "default-noacct")
    d["accounting_max"] = diff("max", "max-noacct")
    d["totals"] = diff("default-totals", "default")
    d["totals_max"] = diff("max-totals", "max")
    d["bpf_totals"] = diff("bpf-totals-default", "bpf-default")
    d["bpf_totals_max"] = diff("bpf-totals-max", "bpf-max")
    d["beyond_reads_default"] = diff("default-noacct", "floor-default")
    d["beyond_reads_max"] = diff("max-noacct", "floor-max")
    d["ratio_default_vs_task"] = ratio(add("default"), add("perf-task-default"))
    d["ratio_max_vs_task"] = ratio(add("max"), add("perf-task-max"))
    # topdown (module) against each peer with the same events
    big = res.get("bigset", {}).get("set", "largest named set")
    peers = [("bpf", "topdown BPF backend", TARGET_BPF, ("default", "max", "set-big")),
             ("perf-stat-thread", "perf stat --per-thread", TARGET_TASK, ("default", "max")),
             ("perf-stat-bpf", "perf stat --bpf-counters", None, ("default", "max")),
             ("perf-stat-all", "perf stat -a", None, ("default", "max"))]
    for peer, _, _, evs in peers:
        for ev in evs:
            if peer == "perf-stat-all":
                # no ratio to a peer that adds nothing per switch
                d[f"added_{peer}-{ev}"] = add(f"{peer}-{ev}")
            else:
                d[f"ratio_{ev}_vs_{peer}"] = ratio(add(ev), add(f"{peer}-{ev}"))
    d["ratio_default_vs_cpu"] = ratio(add("default"), add("perf-cpu-default"))
    d["stopped_pct"] = (100.0 * add("stopped") / base
                        if add("stopped") is not None and base else None)
    d["baseline_drift_pct"] = (100.0 * add("baseline-end") / base
                               if add("baseline-end") is not None and base else None)
    d["floor_default"] = add("floor-default")
    d["floor_max"] = add("floor-max")
    # Event groups: rotated against one group (target: within 2%), same
    # events per group; one rotation = the extra time of a repeat over one group's,
    # divided by the group changes in it.
    a1, ar = add("groups-one"), add("groups-rot")
    d["groups_rot_vs_one_pct"] = (100.0 * (ar - a1) / a1
                                  if a1 and ar is not None else None)

    def rotation_cost(k):
        v, one = s.get(k), s.get("groups-one")
        if not v or not one or not v.get("rotations"):
            return None
        extra = (v["ns_per_switch"] - one["ns_per_switch"]) * v["switches"]
        return extra / (v["rotations"] / v["repeats"])
    d["rotation_cost_ns"] = rotation_cost("groups-rot-fast")
    d["rotation_cost_ns_default_run"] = rotation_cost("groups-rot")
    rf = s.get("groups-rot-fast") or {}
    d["rotation_work_ns"] = (rf["rotation_ns"] / rf["rotations"]
                             if rf.get("rotations") else None)
    d["rotations_per_repeat"] = {k: s[k]["rotations"] / s[k]["repeats"]
                                 for k in ("groups-rot", "groups-rot-fast")
                                 if k in s and "rotations" in s[k]}
    rms = res["groups"].get("groups-rot", {}).get("rotate_ms")
    d["default_rotate_ms"] = rms
    d["rotation_ns_per_s"] = (d["rotation_cost_ns"] * 1000.0 / rms
                              if d["rotation_cost_ns"] is not None and rms else None)

    def line(text, val, unit="ns", target=None):
        if val is None:
            if only is None:    # a partial run leaves the others out
                print(f"   {text:<58} -")
            return
        t = ""
        if target:
            t = "  target " + target[0] + ("  MET" if target[1](val) else "  MISSED")
        print(f"   {text:<58} {val:8.2f} {unit}{t}")

    if icount:
        print("   -- derived (added cost per switch over the baseline)")
    else:
        worst = max((v["spread_pct"] for v in s.values()), default=0.0)
        print("   -- derived (added cost per switch over the baseline); WALL CLOCK of an")
        print(f"      emulated CPU on a shared host, repeats spread up to {worst:.0f}%: these")
        print("      differences are not a cost figure (the -icount guest's are)")
    for ev, evname in (("default", "default"), ("max", "8 events")):
        line(f"topdown {evname} / perf per-task, same events", d[f"ratio_{ev}_vs_task"], "x",
             (f"<= {TARGET_TASK:.2f}", lambda v: v <= TARGET_TASK) if icount else None)
    evnames = {"default": "default", "max": "8 events", "set-big": big}
    for peer, name, target, evs in peers:
        for ev in evs:
            evname = evnames[ev]
            key = f"ratio_{ev}_vs_{peer}"
            text = f"topdown {evname} / {name}"
            why = skipped.get(f"{peer}-{ev}")
            if why and d.get(key) is None:
                print(f"   {text:<58} SKIP ({why})")
                continue
            peer_add = add(f"{peer}-{ev}")
            if peer == "perf-stat-all" and peer_add is not None:
                # Counting per CPU adds nothing to a switch: no ratio.
                print(f"   {text:<58} -  (perf stat -a adds {peer_add:.1f} ns a switch)")
                continue
            line(text, d.get(key), "x",
                 (f"<= {target:.2f}", lambda v, t=target: v <= t) if icount and target else None)
    bpf_vs_module(res, add, d, icount)
    line("loaded but stopped, of the baseline", d["stopped_pct"], "%",
         ("within 1%", lambda v: abs(v) < 1.0) if icount else None)
    line("baseline drift (end vs start)", d["baseline_drift_pct"], "%")
    line("tracepoint dispatch (empty probe)", d["tracepoint_dispatch"])
    line("clock read (ktime_get_mono_fast_ns)", d["clock_read"])
    line("first counter read", d["first_counter_read"])
    line("each further counter read", d["counter_read_per_event"])
    line("floor, default set (dispatch + clock + reads)", d["floor_default"])
    line("floor, 8 events", d["floor_max"])
    line("probe beyond the floor, default set (no accounting)", d["beyond_reads_default"], "ns",
         ("< 150", lambda v: v < 150) if icount else None)
    line("probe beyond the floor, 8 events (no accounting)", d["beyond_reads_max"], "ns",
         ("< 150", lambda v: v < 150) if icount else None)
    line("probe time accounting (probe_time=1 vs 0), default", d["accounting"])
    line("probe time accounting, 8 events", d["accounting_max"])
    line("kernel totals (--totals), default set", d["totals"], "ns",
         ("<= 60", lambda v: v <= 60) if icount else None)
    line("kernel totals (--totals), 8 events", d["totals_max"], "ns",
         ("<= 60", lambda v: v <= 60) if icount else None)
    line("BPF backend's totals (--totals), default set", d["bpf_totals"])
    line("BPF backend's totals (--totals), 8 events", d["bpf_totals_max"])
    if "groups-one" in s:
        line("2 groups of 4 rotated vs one group of 4 (added, default)",
             d["groups_rot_vs_one_pct"], "%",
             ("within 2%", lambda v: abs(v) <= 2.0) if icount else None)
        rpr = d["rotations_per_repeat"]
        line("one rotation, --rotate 1 run (%.0f changes a repeat)"
             % rpr.get("groups-rot-fast", 0), d["rotation_cost_ns"])
        line("one rotation, default run (%.0f changes a repeat)"
             % rpr.get("groups-rot", 0), d["rotation_cost_ns_default_run"])
        line("  of which the change itself (rotation_ns)", d["rotation_work_ns"])
        if d["rotation_ns_per_s"] is not None:
            line(f"rotation at the default {d['default_rotate_ms']} ms, per CPU-second",
                 d["rotation_ns_per_s"] / 1000.0, "us/s")
    acc = accuracy_table(res, errors)
    for e in errors:
        print(f"   ERROR: {e}")
    js[arch] = {"meta": meta, "calibration": loop, "sets": sets,
                "big_set": res.get("bigset"), "perf": res["perf"],
                "skipped": skipped, "modes": rows,
                "derived": d, "accuracy": acc, "errors": errors}
    return errors


def nev(spec):
    """Events in a TYPE:CONFIG list."""
    return len([x for x in (spec or "").split(",") if x])


def bpf_vs_module(res, add, d, icount):
    """The BPF backend's added cost per switch and per event
    against the module's with the same events, for each variant the guest
    ran (as it is, the old read path, the shared ring buffer, the tdctl of
    before), target <= TARGET_BPF_VS_MODULE for the backend as it is."""
    nd = nev(res["sets"].get("default"))
    nm = nev(res["sets"].get("max"))
    nb = nev(res.get("bigset", {}).get("events"))

    def per_event(pre, hi, n_hi):
        a, b = add(f"{pre}default"), add(f"{pre}{hi}")
        return (b - a) / (n_hi - nd) if a is not None and b is not None and n_hi > nd else None

    rows = [("", "module")] + [(v + "-", name) for v, name in BPF_VARIANTS]
    before = res.get("before", {}).get("version")
    print("   -- the BPF backend against the module (its target: added cost per switch and"
          f" per event at most {TARGET_BPF_VS_MODULE:g}x the module's)")
    print(f"   {'ADDED NS':<40} {'DEFAULT':>9} {'8 EVENTS':>9} {'BIG SET':>9} "
          f"{'/EV (8)':>8} {'/EV (BIG)':>9}")
    for pre, name in rows:
        vals = [add(f"{pre}default"), add(f"{pre}max"), add(f"{pre}set-big"),
                per_event(pre, "max", nm), per_event(pre, "set-big", nb)]
        if all(v is None for v in vals):
            continue
        if pre == "bpf-before-" and before:
            # "tdctl VERSION (ABI n)"
            name += f" ({(before.split() + ['?', '?'])[1]})"
        d[f"added_{pre or 'module-'}summary"] = vals
        print(f"   {name[:40]:<40} " + " ".join(fmt(v, w) for v, w in zip(vals, (9, 9, 9, 8, 9))))
    tgt = (f"<= {TARGET_BPF_VS_MODULE:.2f}", lambda v: v <= TARGET_BPF_VS_MODULE)
    for v, name in BPF_VARIANTS:
        for ev, evname in (("default", "default set"), ("max", "8 events"),
                           ("set-big", "largest set")):
            r = None
            a, b = add(f"{v}-{ev}"), add(ev)
            if a is not None and b:
                r = a / b
            d[f"ratio22_{v}-{ev}"] = r
            if r is not None:
                print(f"   {name + ' / module, ' + evname:<58} {r:8.2f} x"
                      + (f"  target {tgt[0]}  {'MET' if tgt[1](r) else 'MISSED'}"
                         if icount and v == "bpf" else ""))
        for hi, n_hi, evname in (("max", nm, "8"), ("set-big", nb, "largest set")):
            a, b = per_event(f"{v}-", hi, n_hi), per_event("", hi, n_hi)
            r = a / b if a is not None and b else None
            d[f"ratio22_{v}-per-event-{hi}"] = r
            if r is not None:
                print(f"   {name + ' / module, per event (' + evname + ')':<58} {r:8.2f} x"
                      + (f"  target {tgt[0]}  {'MET' if tgt[1](r) else 'MISSED'}"
                         if icount and v == "bpf" else ""))


def acc_counts(a):
    """The tool's counts of an @@BENCH-ACC line, in the order of its events:
    [(name, count)]. tdctl stat: the total row; perf: its events in order."""
    r = a["result"]
    if a["tool"] == "perf":
        return list(r.items())
    if r.get("lost"):
        raise ValueError(f"{r['lost']} records lost")
    return list(r["total"]["counts"].items())


def accuracy_table(res, errors):
    """Per-task counts of the known workload by each tool (one run per
    line group), with the difference to perf in the same run and to the
    loop's own user instructions (2 per iteration)."""
    accs = res["acc"]
    if not accs:
        return []
    n = accs[0]["iterations"]
    print(f"   -- accuracy: tdbench spin-task, {n} iterations = {2 * n} loop "
          f"instructions, counted per task from its wake-up to its block after the loop")
    names = None
    out = []
    for a in accs:
        try:
            c = acc_counts(a)
        except (KeyError, TypeError, ValueError) as e:
            errors.append(f"accuracy run {a.get('run')}: {a.get('tool')}: {e}")
            continue
        if names is None:
            names = [k for k, _ in c]
            print(f"   {'RUN':<12} {'TOOL':<7} " +
                  " ".join(f"{k[:14]:>14}" for k in names) +
                  f" {'OVER LOOP':>10} {'VS PERF, SAME RUN':>22}")
        perf = next((x for x in accs if x["run"] == a["run"] and x["tool"] == "perf"), None)
        vals = [v for _, v in c]
        diff = ""
        if perf is not None and perf is not a:
            p = [v for _, v in acc_counts(perf)]
            dv = vals[-1] - p[-1] if len(p) == len(vals) else None
            if dv is not None and p[-1]:
                diff = f"{dv:+.0f} ({100.0 * dv / p[-1]:+.4f}%)"
        over = vals[-1] - 2 * n if names and "instructions" in names[-1] else None
        print(f"   {a['run']:<12} {a['tool']:<7} " +
              " ".join(f"{v:>14.0f}" for v in vals) +
              f" {'' if over is None else f'{over:+.0f}':>10} {diff:>22}")
        out.append({"run": a["run"], "tool": a["tool"], "iterations": n,
                    "counts": dict(zip(names, vals)), "vs_perf_same_run": diff or None})
    for k, why in res["skip"].items():
        if k.startswith("acc-"):
            print(f"   {k[4:]:<12} SKIP ({why})")
    return out


def reader_table(path, js):
    rows, errors = [], []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                rows.append(json.loads(line))
    if not rows:
        return errors
    r0 = rows[0]
    print("\n== reader (host, one core): tdctl COMMAND -i FILE >/dev/null "
          "(stat, serve: the same records live, fake rings); "
          f"{r0['records']:,} records on {r0['cpus']} CPUs "
          f"({r0['file_bytes'] / 2**20:,.0f} MiB); records/s over CPU time, best of 3; "
          "instructions per record from callgrind")
    print(f"   {'COMMAND':<19} {'SET':<10} {'EV':>2} {'REC/S (CPU)':>12} "
          f"{'INSN/REC':>9} {'TARGET':>12}")
    totals = [r for r in rows if r.get("format") == "totals"]
    rows = [r for r in rows if r.get("format") != "totals"]
    for r in rows:
        t = ""
        if r.get("target"):
            met = "met" if r["records_per_s"] >= r["target"] else "MISSED"
            t = f"{r['target'] / 1e6:.0f}M {met}"
        name = f"{r['command']} {'--by ' if r['command'] != 'dump' else ''}{r['format']}"
        if r["command"] == "timeline":
            name = "timeline"
        elif r.get("live"):
            name = f"{r['command']}{' -a' if r['command'] == 'stat' else ''} --by {r['format']}"
        print(f"   {name:<19} {r['set']:<10} {r['events']:>2} "
              f"{r['records_per_s']:>12,.0f} {r['insn_per_record']:>9,.0f} {t:>12}")
    for r in totals:
        met = "met" if r["ms_per_refresh"] < r["target_ms"] else "MISSED"
        print(f"   stat -a, the totals of {r['tasks']:,} running tasks ({r['set']}): "
              f"{r['ms_per_refresh']:.2f} ms of CPU a refresh, "
              f"{r['device_ms_per_refresh']:.2f} of them the device's "
              f"({r['refreshes']} refreshes; target {r['target_ms']} ms: {met})")
    js["reader"] = rows + totals
    return errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--guest", action="append", default=[], metavar="ARCH=LOG")
    ap.add_argument("--icount", action="append", default=[], metavar="ARCH")
    ap.add_argument("--reader")
    a = ap.parse_args()
    js, errors = {}, []
    for g in a.guest:
        arch, path = g.split("=", 1)
        res = parse_guest(path)
        res["meta"]["icount"] = arch in a.icount
        if not res["modes"]:
            errors.append(f"{arch}: no results in {path}")
            print(f"\n== {arch}: NO RESULTS (see {path})")
            continue
        errors += [f"{arch}: {e}" for e in guest_table(arch, res, js)]
    if a.reader:
        errors += reader_table(a.reader, js)
    js["errors"] = errors
    with open(a.out, "w") as f:
        json.dump(js, f, indent=1)
        f.write("\n")
    print(f"\nJSON: {a.out}")
    if errors:
        print(f"bench: {len(errors)} error(s):")
        for e in errors:
            print(f"  {e}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
