#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tdctl decode of counts typed by hand that are not all a group's, and
the names of the events, written from the man pages (tdctl-decode(8),
tdctl-list(8)) as a user would read them:

  - every metric whose counts are all given is computed, with the value
    its formula gives (the group's formula as `tdctl list -j` prints it),
    whatever else the group lacks: Level 1 from the slot events alone
    with --level 2, its Level 2 children beside it, Level 1 classes of a
    set without groups from the counts they read;
  - a metric left out is said so with exactly the events it lacks (no
    more, none of those given); a group none of whose metrics can be
    computed is left out and said so; with nothing computable, an error
    names the missing counts;
  - one name per event: every formula of `tdctl list -j` names an event
    as the event list does, not by another of its names (an alias), and
    perf's name is taken as input for the same count.
TAP.
"""
import csv
import io
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from tap import main, ok, require_tdctl, run, test  # noqa: E402

SLOTS = {"TOPDOWN.SLOTS_P": 1_000_000, "IDQ_UOPS_NOT_DELIVERED.CORE": 200_000,
         "UOPS_RETIRED.SLOTS": 400_000, "TOPDOWN.BACKEND_BOUND_SLOTS": 250_000}
CYC0 = "IDQ_NOT_DELIV.CYCLES_0_UOPS"
TOL = 1e-9


def args(counts):
    return ["%s=%d" % kv for kv in counts.items()]


def decode(*a):
    rc, out, err = run("--json", "decode", *a)
    try:
        return rc, json.loads(out), err
    except ValueError:
        return rc, {}, err + out


def lacks(doc, metric):
    """The events the output says metric lacks: the assumptions that name
    it, then what follows 'no count for' there (a comma-separated list up
    to the end or a colon)."""
    found = None
    for a in doc.get("assumptions", []):
        if not re.search(r"(^|[\s,(])%s([\s,)]|$)" % re.escape(metric), a):
            continue
        m = re.search(r"no counts? for ([^:;]*)", a)
        if m:
            found = (found or set()) | {e.strip() for e in m.group(1).split(",")}
    return found


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= TOL


@test
def test_level2_slots_only():
    """The four slot events with --level 2: Level 1 is computed, the rest
    of group l1 (fetch_latency, fetch_bandwidth) lacks exactly the one
    event of the formula, and no group is said to have no counts."""
    rc, doc, err = decode("-s", "intel_icl", "--level", "2", *args(SLOTS))
    m = doc.get("metrics", {})
    s = SLOTS["TOPDOWN.SLOTS_P"]
    want = {"retiring": SLOTS["UOPS_RETIRED.SLOTS"] / s,
            "frontend_bound": SLOTS["IDQ_UOPS_NOT_DELIVERED.CORE"] / s,
            "backend_bound": SLOTS["TOPDOWN.BACKEND_BOUND_SLOTS"] / s}
    want["bad_speculation"] = 1 - sum(want.values())
    bad = ["%s: %r, want %r" % (k, m.get(k), v) for k, v in want.items()
           if not close(m.get(k), v)]
    ok(rc == 0 and not bad,
       "decode -s intel_icl --level 2, the slot events only: Level 1 computed",
       "\n".join(bad) + err + json.dumps(doc))
    ok(rc == 0 and all(m.get(k) is None for k in ("fetch_latency", "fetch_bandwidth"))
       and lacks(doc, "fetch_latency") == {CYC0}
       and lacks(doc, "fetch_bandwidth") == {CYC0},
       "fetch_latency and fetch_bandwidth not computed, and said to lack "
       "exactly %s" % CYC0, json.dumps(doc.get("assumptions")) + err)
    ok(rc == 0 and all(k in m and m[k] is None
                       for k in ("fetch_latency", "fetch_bandwidth")),
       "JSON: fetch_latency and fetch_bandwidth null, not missing "
       "(tdctl-decode(8): null when not computable)", json.dumps(m))
    ok(rc == 0 and not any("group topdown" in a and "no count" in a and
                           "fetch" not in a for a in doc.get("assumptions", [])),
       "the topdown group is not said to have no counts",
       json.dumps(doc.get("assumptions")))

    # the same with the bad_speculation group's two events: its children
    # under Level 1
    more = dict(SLOTS, **{"BR_MISP_RETIRED.ALL_BRANCHES": 3000,
                          "MACHINE_CLEARS.COUNT": 1000})
    rc, doc, err = decode("-s", "intel_icl", "--level", "2", *args(more))
    m = doc.get("metrics", {})
    bad_spec = want["bad_speculation"]
    ok(rc == 0 and close(m.get("retiring"), want["retiring"]) and
       close(m.get("branch_mispredicts"), bad_spec * 3 / 4) and
       close(m.get("machine_clears"), bad_spec / 4) and
       close(m.get("bad_speculation"), bad_spec),
       "with BR_MISP and MACHINE_CLEARS too: Level 1 and both children",
       err + json.dumps(doc))
    names = list(m)
    ok(rc == 0 and "bad_speculation" in names and "branch_mispredicts" in names
       and names.index("branch_mispredicts") == names.index("bad_speculation") + 1,
       "branch_mispredicts follows its Level 1 class", names)
    # the other Level 2 groups lack all their own events: named exactly
    for metric, events in (("memory_bound", ["CYCLE_ACTIVITY.STALLS_MEM_ANY",
                                             "EXE_ACTIVITY.BOUND_ON_STORES",
                                             "CYCLE_ACTIVITY.STALLS_TOTAL",
                                             "EXE_ACTIVITY.1_PORTS_UTIL",
                                             "EXE_ACTIVITY.2_PORTS_UTIL"]),):
        ok(rc == 0 and m.get(metric) is None and lacks(doc, metric) == set(events),
           "%s is left out, its missing events named exactly" % metric,
           json.dumps(doc.get("assumptions")))

    # perf's name of the event is taken for it, and completes group l1
    rc, doc, err = decode("-s", "intel_icl", "--level", "2", *args(SLOTS),
                          "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE=30000")
    m = doc.get("metrics", {})
    ok(rc == 0 and close(m.get("fetch_latency"), 5 * 30000 / s) and
       close(m.get("fetch_bandwidth"), want["frontend_bound"] - 5 * 30000 / s),
       "perf's IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE is %s" % CYC0,
       err + json.dumps(doc))


@test
def test_level1_partial():
    """A set without groups (Level 1): the classes whose counts are given
    are computed, the others lack exactly the event not given."""
    three = {k: v for k, v in SLOTS.items() if k != "TOPDOWN.BACKEND_BOUND_SLOTS"}
    rc, doc, err = decode("-s", "intel_icl", *args(three))
    m = doc.get("metrics", {})
    s = SLOTS["TOPDOWN.SLOTS_P"]
    ok(rc == 0 and close(m.get("retiring"), SLOTS["UOPS_RETIRED.SLOTS"] / s) and
       close(m.get("frontend_bound"), SLOTS["IDQ_UOPS_NOT_DELIVERED.CORE"] / s) and
       m.get("backend_bound") is None and m.get("bad_speculation") is None,
       "decode -s intel_icl without TOPDOWN.BACKEND_BOUND_SLOTS: retiring "
       "and frontend_bound computed, backend_bound and bad_speculation not",
       err + json.dumps(doc))
    ok(rc == 0 and lacks(doc, "backend_bound") == {"TOPDOWN.BACKEND_BOUND_SLOTS"}
       and lacks(doc, "bad_speculation") == {"TOPDOWN.BACKEND_BOUND_SLOTS"},
       "backend_bound and bad_speculation said to lack exactly "
       "TOPDOWN.BACKEND_BOUND_SLOTS", json.dumps(doc.get("assumptions")))

    # Arm: --level 2 with the Level 1 events only
    n2 = {"CPU_CYCLES": 3922334305, "OP_RETIRED": 853521883,
          "OP_SPEC": 854404256, "STALL_SLOT": 22679591134,
          "STALL_SLOT_FRONTEND": 8492337939, "STALL_SLOT_BACKEND": 14317243430,
          "INST_RETIRED": 825436139}
    rc1, one, err1 = decode("-s", "arm_neoverse_n2", "-r", "r0p3", *args(n2))
    rc, doc, err = decode("-s", "arm_neoverse_n2", "-r", "r0p3", "--level", "2",
                          *args(n2))
    m, m1 = doc.get("metrics", {}), one.get("metrics", {})
    l1 = ["retiring", "bad_speculation", "frontend_bound", "backend_bound"]
    ok(rc == 0 and rc1 == 0 and all(close(m.get(k), m1.get(k)) for k in l1),
       "arm_neoverse_n2 --level 2, the Level 1 counts only: Level 1 as "
       "without --level 2", err + err1 + json.dumps(doc))

    # nothing computable: an error naming what is missing
    rc, out, err = run("decode", "-s", "generic", "cycles=600")
    ok(rc != 0 and "instructions" in err,
       "decode -s generic cycles=600: an error naming instructions", err + out)
    rc, out, err = run("decode", "-s", "intel_icl", "--level", "2",
                       "BR_MISP_RETIRED.ALL_BRANCHES=3")
    ok(rc != 0 and "TOPDOWN.SLOTS_P" in err,
       "decode -s intel_icl --level 2 with one count: an error naming the "
       "others", err + out)


@test
def test_optional_null():
    """An optional event not given: the set's metrics that read it are
    null in JSON (ipc on N2, smt_contention on Zen 4), not missing."""
    for s, counts, metric in (
            ("arm_neoverse_n2", {"CPU_CYCLES": 100, "OP_RETIRED": 50,
                                 "OP_SPEC": 60, "STALL_SLOT": 100,
                                 "STALL_SLOT_FRONTEND": 10,
                                 "STALL_SLOT_BACKEND": 20}, "ipc"),
            ("amd_zen4", {"ls_not_halted_cyc": 100, "de_src_op_disp.all": 300,
                          "ex_ret_ops": 200,
                          "de_no_dispatch.no_ops_from_fe": 100,
                          "de_no_dispatch.backend_stalls": 100},
             "smt_contention")):
        rc, doc, err = decode("-s", s, *args(counts))
        m = doc.get("metrics", {})
        ok(rc == 0 and metric in m and m[metric] is None and
           m.get("retiring") is not None,
           "decode -s %s without %s's event: %s null in JSON" % (s, metric, metric),
           json.dumps(m) + err)


@test
def test_csv_columns_are_json_keys():
    """CSV names every metric JSON does, left out or not: a metric left
    out for want of counts is an empty field, not a missing column."""
    for s, counts, lv in (
            ("intel_icl", {"TOPDOWN.SLOTS": 1000, "UOPS_RETIRED.SLOTS": 300}, "2"),
            ("intel_icl", SLOTS, "2"),
            ("arm_neoverse_n2", {"CPU_CYCLES": 100, "OP_RETIRED": 50, "OP_SPEC": 60,
                                 "STALL_SLOT": 100, "STALL_SLOT_FRONTEND": 10,
                                 "STALL_SLOT_BACKEND": 20}, "1")):
        a = ["-s", s, "--level", lv] + args(counts)
        rc, doc, err = decode(*a)
        rc2, out, err2 = run("--csv", "decode", *a)
        rows = list(csv.DictReader(io.StringIO(out))) if rc2 == 0 else []
        keys = list(doc.get("metrics", {}))
        hdr = [h for h in (rows[0].keys() if rows else []) if h in keys]
        nulls = [k for k, v in doc.get("metrics", {}).items() if v is None]
        ok(rc == 0 and rc2 == 0 and len(rows) == 1 and hdr == keys and
           all(rows[0][k] == "" for k in nulls) and
           all(rows[0][k] != "" for k in keys if k not in nulls),
           "decode -s %s --level %s, %d counts: CSV's metric columns are JSON's "
           "%d keys, %d of them empty" % (s, lv, len(counts), len(keys), len(nulls)),
           out + err + err2 + json.dumps(doc.get("metrics")))


def tokens(formula):
    """The words of a formula with the punctuation around them, and those
    it defines ('slots = ...': a word of the formula, not an event)."""
    words = [w.strip("();") for w in formula.split()]
    defined = {words[i] for i in range(len(words) - 1) if words[i + 1] == "="}
    return [w for w in words if w and w not in defined]


@test
def test_names():
    rc, out, err = run("list", "-j")
    sets = [s["name"] for s in json.loads(out)["sets"]] if rc == 0 else []
    bad, seen = [], 0
    for name in sets:
        rc, out, err = run("list", "-s", name, "-j")
        if rc:
            bad.append("list -s %s: %s" % (name, err))
            continue
        sel = json.loads(out)["selected"]
        units = [("set", sel["formula"], sel["events"])]
        units += [("group " + g["id"], g["formula"], g["events"])
                  for g in sel.get("groups") or []]
        events = sel["events"] + [e for g in sel.get("groups") or []
                                  for e in g["events"]]
        names = {e["name"].lower() for e in events}
        alias = {}
        for e in events:
            for a in e.get("aliases") or []:
                if a.lower() not in names:
                    alias[a.lower()] = e["name"]
        for what, formula, _ in units:
            seen += 1
            for w in tokens(formula):
                w = w.rstrip(",")
                if w.lower() in alias:
                    bad.append("%s, %s: the formula says %s where the events "
                               "say %s" % (name, what, w, alias[w.lower()]))
    ok(sets and not bad, "the %d formulas of %d sets name every event as "
       "tdctl list does" % (seen, len(sets)), "\n".join(bad))


if __name__ == "__main__":
    main(setup=require_tdctl)
