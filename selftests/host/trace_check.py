# SPDX-License-Identifier: GPL-2.0
"""Rules of the Chrome Trace Event Format (the JSON Object Format of the
"Trace Event Format" document that chrome://tracing and ui.perfetto.dev
load), checked on a parsed trace: what tdctl timeline must write.

    load(path)   -> the trace, numbers as Decimal (exact)
    problems(t)  -> list of what is wrong (empty: valid)
"""
import json
from decimal import Decimal

# Required fields per phase (besides "ph"); "ts" in microseconds.
REQUIRED = {
    "X": ("name", "pid", "tid", "ts", "dur"),
    "B": ("name", "pid", "tid", "ts"),
    "E": ("pid", "tid", "ts"),
    "C": ("name", "pid", "ts", "args"),
    "i": ("name", "pid", "tid", "ts"),
    "I": ("name", "pid", "tid", "ts"),
    "M": ("name", "pid", "args"),
}
METADATA = {"process_name", "process_labels", "process_sort_index",
            "thread_name", "thread_sort_index"}


def load(path):
    with open(path, "rb") as fh:
        return json.loads(fh.read(), parse_float=Decimal)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return (is_int(v) or isinstance(v, (float, Decimal))) and not isinstance(v, bool)


def problems(t, limit=20):
    bad = []

    def err(msg):
        if len(bad) < limit:
            bad.append(msg)

    if not isinstance(t, dict) or not isinstance(t.get("traceEvents"), list):
        return ["not an object with a traceEvents array"]
    if t.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        err("displayTimeUnit %r" % t.get("displayTimeUnit"))
    tracks = {}                 # (pid, tid) -> [(ts, end)] of X events
    used_pids, used_tids = set(), set()
    named_pids, named_tids = set(), set()
    for i, e in enumerate(t["traceEvents"]):
        if not isinstance(e, dict):
            err("event %d is not an object" % i)
            continue
        ph = e.get("ph")
        if ph not in REQUIRED:
            err("event %d: unknown ph %r" % (i, ph))
            continue
        for f in REQUIRED[ph]:
            if f not in e:
                err("event %d (%s): no %s" % (i, ph, f))
        if "pid" in e and not is_int(e["pid"]):
            err("event %d: pid %r" % (i, e["pid"]))
        if "tid" in e and not is_int(e["tid"]):
            err("event %d: tid %r" % (i, e["tid"]))
        if "name" in e and not isinstance(e["name"], str):
            err("event %d: name %r" % (i, e["name"]))
        if "args" in e and not isinstance(e["args"], dict):
            err("event %d: args %r" % (i, e["args"]))
            continue
        if ph != "M":
            ts = e.get("ts")
            if not is_num(ts) or ts < 0:
                err("event %d: ts %r is not microseconds >= 0" % (i, ts))
                continue
            # Microseconds with nanosecond precision: three decimals at most.
            if isinstance(ts, Decimal) and ts != ts.quantize(Decimal("0.001")):
                err("event %d: ts %s finer than a nanosecond" % (i, ts))
        if ph == "M":
            if e.get("name") not in METADATA:
                err("event %d: metadata %r" % (i, e.get("name")))
            elif e["name"].endswith("_name"):
                if not isinstance(e["args"].get("name"), str):
                    err("event %d: %s without a name" % (i, e["name"]))
                elif e["name"] == "process_name":
                    named_pids.add(e["pid"])
                else:
                    named_tids.add((e["pid"], e.get("tid")))
            continue
        used_pids.add(e.get("pid"))
        if ph == "C":
            vals = e["args"].values()
            if not e["args"] or not all(is_num(v) for v in vals):
                err("event %d: counter args not all numeric: %r" % (i, e["args"]))
            if "tid" in e:
                used_tids.add((e["pid"], e["tid"]))
            continue
        used_tids.add((e.get("pid"), e.get("tid")))
        if ph in ("i", "I") and e.get("s", "t") not in ("g", "p", "t"):
            err("event %d: instant scope %r" % (i, e.get("s")))
        if ph == "X":
            d = e.get("dur")
            if not is_num(d) or d < 0:
                err("event %d: dur %r" % (i, d))
                continue
            tracks.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + d, i))
    # X events of one track: each one ends before the next one starts
    # (tdctl's slices never nest).
    for key, evs in tracks.items():
        evs.sort()
        for (s0, e0, i0), (s1, e1, i1) in zip(evs, evs[1:]):
            if s1 < e0:
                err("track %r: event %d [%s, %s] overlaps event %d [%s, %s]"
                    % (key, i1, s1, e1, i0, s0, e0))
                break
    for p in sorted(used_pids - named_pids):
        err("pid %r has no process_name" % p)
    for p in sorted(used_tids - named_tids):
        err("pid/tid %r has no thread_name" % (p,))
    return bad
