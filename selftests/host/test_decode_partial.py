#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The names of the events, written from the man pages (tdctl-list(8),
tdctl-decode(8)) as a user would read them:

  - one name per event: every formula of `tdctl list -j` names an event
    as the event list does, not by another of its names (an alias), and
    perf's name is taken as input for the same count.
TAP.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from tap import TDCTL, ok, plan, run  # noqa: E402

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


def tokens(formula):
    """The words of a formula with the punctuation around them, and those
    it defines ('slots = ...': a word of the formula, not an event)."""
    words = [w.strip("();") for w in formula.split()]
    defined = {words[i] for i in range(len(words) - 1) if words[i + 1] == "="}
    return [w for w in words if w and w not in defined]


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
            for a in (e.get("aliases") or "").split():
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


def main():
    if not os.access(TDCTL, os.X_OK):
        print("1..0 # SKIP %s not built" % TDCTL)
        return 0
    test_names()
    return plan()


if __name__ == "__main__":
    sys.exit(main())
