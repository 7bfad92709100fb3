#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of what `tdctl decode` reads:
- the raw encodings tdctl itself prints (`tdctl list --json --events SET`
  gives each event's "encoding" and "config"), and the names perf prints
  for events given so (rNNNN, PMU/TERMS/ with modifiers, "raw 0xNNN"), as
  EVENT=COUNT arguments: for every event set, the breakdown from the
  encodings is the one from the names;
- perf stat -j, -x and plain output whose events are raw encodings (a -x
  field holds the separator inside PMU/TERMS/), with perf stat -I: one
  result per interval, in order, as toplev -I shows them
  (perf-stat/icl-6.12-interval-raw.*);
- tdctl's own `dump --json` output, the array of `dump -i FILE --json` and
  the lines of `dump --json --follow`: summed, the same metrics as the
  total of `report --json` on the same file (tdfile_gen.py's files).
TAP.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]  # tap.py: selftests/lib
import tdfile_gen  # noqa: E402
from tap import main, ok, run, test  # noqa: E402

FX = os.path.join(HERE, "perf-stat")
# The intervals of perf-stat/icl-6.12-interval-raw.*: time, retiring,
# bad_speculation, frontend_bound, backend_bound, ipc.
INTERVALS = [("1.001000000", 0.4, 0.1, 0.2, 0.3, 1.5),
             ("2.002012345", 0.6, 0.1, 0.1, 0.2, 0.5),
             ("3.003024690", 0.1, 0.1, 0.4, 0.4, 0.5)]
L1 = ("retiring", "bad_speculation", "frontend_bound", "backend_bound", "ipc")


def set_options(name):
    """decode options for set name: a slot width where the set takes one."""
    rc, out, err = run("--json", "list", "--events", name)
    sel = json.loads(out)["selected"] if rc == 0 else {}
    return sel, (["--slots", "5"] if "slots=" in (sel.get("label") or "") or
                 name.startswith("arm_neoverse") else [])


def decode_json(*args, stdin=None):
    rc, out, err = run("--json", "decode", *args, stdin=stdin)
    try:
        return rc, json.loads(out), err
    except ValueError:
        return rc, None, err + out


@test
def test_encodings():
    """Every raw event of every set, by its encoding, its config as rNNNN
    and as perf prints PMU/TERMS/: the same breakdown as by name."""
    rc, out, err = run("--json", "list")
    sets = [s["name"] for s in json.loads(out)["sets"]] if rc == 0 else []
    ok(len(sets) == 15, "list: 15 event sets", out + err)
    for name in sets:
        sel, opts = set_options(name)
        evs = sel.get("events", [])
        raw = [e for e in evs if e["encoding"].startswith("event=") or
               " event=" in e["encoding"]]
        if not raw:
            continue
        counts = {e["name"]: 1000 * (i + 3) + 17 * i for i, e in enumerate(evs)}
        by_name = ["%s=%d" % (e["name"], counts[e["name"]]) for e in evs]
        rc, want, err = decode_json("--set", name, *opts, *by_name)
        forms = {}
        for e in evs:
            enc = e["encoding"]
            pmu = "cpu"
            if " " in enc:
                pmu, enc = enc.split(" ", 1)
            elif name.startswith("arm"):
                pmu = "armv8_pmuv3_0"
            if e in raw:
                forms.setdefault("tdctl list's encoding", []).append(
                    "%s=%d" % (enc, counts[e["name"]]))
                forms.setdefault("perf's PMU/TERMS/ with a modifier", []).append(
                    "%s/%s/u=%d" % (pmu, enc, counts[e["name"]]))
                forms.setdefault("rNNNN", []).append(
                    "r%04x=%d" % (e["config"], counts[e["name"]]))
                forms.setdefault("raw 0xNNN", []).append(
                    "raw 0x%x=%d" % (e["config"], counts[e["name"]]))
            else:
                for f in ("tdctl list's encoding",
                          "perf's PMU/TERMS/ with a modifier", "rNNNN",
                          "raw 0xNNN"):
                    forms.setdefault(f, []).append(
                        "%s=%d" % (e["name"], counts[e["name"]]))
        for what, argv in sorted(forms.items()):
            rc2, got, err2 = decode_json("--set", name, *opts, *argv)
            ok(rc == 0 and rc2 == 0 and got["metrics"] == want["metrics"],
               "decode --set %s by %s: the metrics of the names (%d raw events)"
               % (name, what, len(raw)), "%s\n%s %s" % (argv, err, err2))
    # an encoding of no event of the set, and one with a term more
    for bad in ("r01a5=5", "cpu/event=0xa4,umask=0x01,edge/=5",
                "cpu_core/event=0xa4,umask=0x01/=5", "cpu/event=0xa4,umask=0x01,=5"):
        rc, out, err = run("decode", "--set", "intel_icl", bad)
        ok(rc != 0 and "unknown event" in err,
           "decode --set intel_icl %s: not an event of the set" % bad, err)


def check_intervals(doc, what):
    ivl = doc.get("intervals") if doc else None
    good = ivl is not None and len(ivl) == len(INTERVALS)
    for got, want in zip(ivl or [], INTERVALS):
        m = got["metrics"]
        good = good and "%.9f" % got["time_s"] == want[0] and got["lines"] == 6 and \
            all(abs(m[k] - v) < 1e-9 for k, v in zip(L1, want[1:]))
    ok(good and "metrics" not in doc, "decode of %s: one result per interval "
       "(%d), each with its own breakdown" % (what, len(INTERVALS)),
       json.dumps(doc)[:1500])


@test
def test_intervals(tmp):
    for f in ("icl-6.12-interval-raw.json", "icl-6.12-interval-raw.csv",
              "icl-6.12-interval-raw.txt"):
        with open(os.path.join(FX, f)) as fh:
            text = fh.read()
        rc, doc, err = decode_json("--set", "intel_icl", stdin=text)
        check_intervals(doc if rc == 0 else None,
                        "perf stat -I output with raw encodings (%s)" % f)
        rc, out, err = run("decode", "--set", "intel_icl", stdin=text)
        rows = [ln.split() for ln in out.splitlines()
                if ln.strip().startswith(tuple(i[0] for i in INTERVALS))]
        # '*' before each interval's largest Level-1 class (the bottleneck)
        ok(rc == 0 and len(rows) == 3 and rows[1][:5] ==
           ["2.002012345", "*60.0%", "10.0%", "10.0%", "20.0%"] and
           rows[2][1:5] == ["10.0%", "10.0%", "*40.0%", "40.0%"] and
           "3 intervals" in out, "decode %s: a row per interval, its time first,"
           " its bottleneck marked" % f, out + err)
        rc, out, err = run("decode", "--set", "intel_icl", "--csv", stdin=text)
        lines = out.splitlines()
        ok(rc == 0 and len(lines) == 4 and
           lines[0].startswith("set,label,time_s,lines,retiring,") and
           lines[2].startswith('"intel_icl","set=intel_icl",2.002012345,6,0.6,') and
           lines[1].startswith('"intel_icl","set=intel_icl",1.001,6,'),
           "decode --csv %s: a row per interval with time_s, a number" % f,
           out + err)
        rc, out, err = run("decode", "--set", "intel_icl", "--json", stdin=text)
        ok(rc == 0 and '"time_s":1.001,' in out and '"time_s":2.002012345,' in out,
           "decode --json %s: time_s as its shortest text (1.001, not "
           "perf's 1.001000000)" % f, out[:300] + err)
    with open(os.path.join(FX, "icl-6.12-interval-raw.csv")) as fh:
        lines = fh.read().splitlines()
    # perf prints its intervals in order; times on every line or none
    rc, out, err = run("decode", "--set", "intel_icl",
                       stdin="\n".join(lines[7:14] + lines[:7]) + "\n")
    ok(rc == 1 and "in order" in err and "stdin line 9" in err,
       "decode: perf stat -I intervals out of order refused with the line", err)
    rc, out, err = run("decode", "--set", "intel_icl",
                       stdin="\n".join(lines[:7] + ["5000,,cycles,1,100.00,,"]) + "\n")
    ok(rc == 1 and "without an interval time" in err,
       "decode: a line without a time among perf stat -I lines refused", err)
    # an interval short of an event the formula needs
    short = [ln for ln in lines if not (ln.startswith("2.002") and "r019c" in ln)]
    rc, out, err = run("decode", "--set", "intel_icl", stdin="\n".join(short) + "\n")
    ok(rc == 1 and "interval 2.002012345" in err and "IDQ_UOPS_NOT_DELIVERED" in err,
       "decode: an interval without a needed count is named", err)


@test
def test_dump(tmp):
    for name, opts in (("n2", ["--slots", "5", "--revision", "r0p0"]),
                       ("generic", [])):
        sc = tdfile_gen.SCENARIOS[name]()
        path = os.path.join(tmp, name + ".td")
        sc.write(path)
        rc, rep, err = run("--json", "report", "-i", path)
        total = json.loads(rep)["total"]["metrics"] if rc == 0 else None
        rc, arr, err = run("--json", "dump", "-i", path)
        setname = sc.label.split()[0][4:]
        rc1, doc, err1 = decode_json("--set", setname, *opts, stdin=arr)
        ok(rc == 0 and rc1 == 0 and doc["lines"] == len(sc.records) and
           all(abs(doc["metrics"][k] - v) < 1e-12 for k, v in total.items()),
           "decode of `dump -i %s.td --json` (one array): the total of report "
           "--json (%d slices)" % (name, len(sc.records)),
           "%s %s\n%s" % (err1, json.dumps(doc), total))
        lines = "".join(json.dumps(r) + "\n" for r in json.loads(arr)) if rc == 0 else ""
        rc2, doc2, err2 = decode_json("--set", setname, *opts, stdin=lines)
        ok(rc2 == 0 and doc1_same(doc, doc2),
           "decode of dump --json lines (as --follow prints them) of %s.td: the "
           "same" % name, err2)
    # a slice whose count could not be read (null) is left out, and said so
    recs = json.loads(arr)
    recs[0]["counts"]["cycles"] = None
    rc, out, err = run("decode", "--set", "generic",
                       stdin="".join(json.dumps(r) + "\n" for r in recs))
    ok(rc == 0 and "%d input lines" % (len(recs) - 1) in out and
       "1 dump slice with a count that could not be read (null) left out" in out,
       "decode of dump lines: a slice with a null count is left out, and said so",
       out + err)


def doc1_same(a, b):
    return a is not None and b is not None and a["metrics"] == b["metrics"] and \
        a["lines"] == b["lines"]


if __name__ == "__main__":
    main()
