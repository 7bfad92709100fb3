#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests: no message is cut. The columns --sort can take and decode's
lists of events are whole however long, and so is an error with a long
argument in it, hint included. TAP."""
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
import tdfile_gen  # noqa: E402
from tap import main, ok, require_tdctl, run, test  # noqa: E402

HINT = "; see 'tdctl %s --help'"


def wide_file(path):
    """A 2.0 file of 16 events with names of 31 characters (the most a
    name has): the columns listed take far more than 512 bytes."""
    pool = ["an_event_with_a_long_name_%05d" % i for i in range(16)]
    tasks = [tdfile_gen.Task(300, 300, "wide", [1000 + 100 * i for i in range(16)],
                             [0])]
    sc, _ = tdfile_gen.simulate(random.Random(1), pool,
                                [list(range(8)), list(range(8, 16))], tasks,
                                nr_cpus=1, rotate_ms=1, duration_ns=8_000_000)
    sc.write(path)
    return pool


def listed(err, head, cmd=None):
    """The list in "...head(LIST); see 'tdctl CMD --help'" (without the
    hint if not cmd), or None."""
    line = [x for x in err.splitlines() if head in x]
    hint = re.escape(HINT % cmd) if cmd else ""
    m = re.search(re.escape(head) + r"(.*)\)" + hint + "$",
                  line[0]) if line else None
    return m.group(1).split(", ") if m else None


@test
def test_sort(tmp):
    rec = os.path.join(tmp, "wide.td")
    pool = wide_file(rec)
    for cmd in (["report"], ["top", "--batch", "-n", "1"]):
        rc, out, err = run(*(cmd + ["-i", rec, "--sort", "nosuch"]))
        cols = listed(err, "cannot sort by 'nosuch': no such column (", cmd[0])
        # a column's words: its title, then its other names ('|')
        words = [c.split("|") for c in cols or []]
        ok(rc == 2 and cols is not None and "time" in words[0] and
           words[1] == ["SLICES"] and [w[0] for w in words if w[0] in pool] == pool,
           "%s --sort: the list of columns is whole (%d events)"
           % (cmd[0], len(pool)), err)
    # A long argument: the message (and its hint) is whole past 1 KiB.
    name = "x" * 3000
    rc, out, err = run("report", "-i", rec, "--sort", name)
    cols = listed(err, "cannot sort by '%s': no such column (" % name, "report")
    ok(rc == 2 and cols is not None and cols[-1].split("|")[0] == pool[-1],
       "an error quoting a 3000-byte argument is whole, hint included",
       err[-200:])


@test
def test_decode():
    rc, out, err = run("decode")
    sets = listed(err, "--set NAME is required (one of: ", "decode")
    ok(rc == 2 and sets and "generic" in sets, "decode names its sets", err)
    for s in sets or []:
        for level in ("1", "2"):
            rc, out, err = run("decode", "--set", s, "--level", level,
                               "nosuch=1")
            if "no groups below Level 1" in err:
                continue
            events = listed(err, "unknown event 'nosuch' for set %s (its events: "
                            % s, "decode")
            # Every name listed is one of the set's: all of them given,
            # none is unknown (a name cut mid-word would be).
            counts = ["%s=1" % e for e in events or []]
            rc2, out2, err2 = run("decode", "--set", s, "--level", level,
                                  *counts)
            ok(rc == 2 and events and "unknown event" not in err2,
               "decode --set %s --level %s: the %d events listed are whole"
               % (s, level, len(events or [])), err + err2)
            if level != "2" or not events:
                continue
            # The set's Level 2 events without their counts (only the
            # first): no group is left, the error lists every event.
            rc, out, err = run("decode", "--set", s, "--level", "2",
                               "%s=1" % events[0])
            if "no group of set" not in err:
                continue
            missing = listed(err, "no group of set %s has all its counts (its events: "
                             % s)
            ok(rc == 1 and missing == events,
               "decode --set %s --level 2: the list of events without counts is whole"
               % s, err)


if __name__ == "__main__":
    main(setup=require_tdctl)
