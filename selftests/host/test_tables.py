#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of the tables people read (report -i and top -i on files of
tdfile_gen.py), as documented in tdctl-stat(8) and tdctl-top(8): full,
distinct column titles, metrics before the raw counts, one unit per
column, the total row under its columns, --metric-only, --big-num and
the '*' mark on the largest TopDown Level-1 class. TAP.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]  # tap.py: selftests/lib
import tdfile_gen  # noqa: E402
from tap import main, ok, require_tdctl, run, test  # noqa: E402

L1 = ["retiring", "bad_speculation", "frontend_bound", "backend_bound"]
L1_SHORT = ["RETIRING", "BAD_SPEC", "FRONTEND", "BACKEND"]


def table(out):
    """The header line and the lines after it, up to a blank line."""
    lines = out.splitlines()
    for i, ln in enumerate(lines):
        if re.match(r"\s*(PID|COMM|CGROUP|CPU)\b", ln):
            rows = []
            for r in lines[i + 1:]:
                if not r.strip():
                    break
                rows.append(r)
            return ln, rows
    return None, []


def columns(header, line):
    """Cells of a right-aligned line under the header's titles: the text
    that ends where each title ends."""
    cells = []
    for m in re.finditer(r"\S+", header):
        end = m.end()
        start = line.rfind(" ", 0, end) + 1 if end <= len(line) else None
        cells.append(line[start:end] if start is not None else "")
    return cells


def big_file():
    """Two tasks whose cycles differ by a factor 400 within one second,
    so that top's cycles column needs a unit for one of them."""
    recs = []
    for i in range(10):
        pid = 700 + i % 2
        cyc = 2_000_000_000 if pid == 700 else 5_000_000
        recs.append(tdfile_gen.Rec(0, pid, pid, "big%d" % pid,
                                   tdfile_gen._time(i, 10), 1_000_000,
                                   [cyc, cyc // 2]))
    return tdfile_gen.Scenario("set=generic", ["cycles", "instructions"], 1,
                               recs)


@test
def tables(tmp):
    n2 = os.path.join(tmp, "n2.td")
    gen = os.path.join(tmp, "generic.td")
    big = os.path.join(tmp, "big.td")
    tdfile_gen.n2().write(n2)
    tdfile_gen.generic().write(gen)
    big_file().write(big)
    n2_events = tdfile_gen.N2_EVENTS

    # ---- top: full, distinct titles ------------------------------------
    rc, out, err = run("top", "-i", n2, "--batch", "-d", "1", "-n", "1")
    hdr, rows = table(out)
    titles = hdr.split() if hdr else []
    ok(rc == 0 and titles and len(titles) == len(set(titles)) and
       all(e in titles for e in n2_events) and
       all(s in titles for s in L1_SHORT),
       "top: every event under its full name, no two columns alike, "
       "the Level-1 classes as RETIRING BAD_SPEC FRONTEND BACKEND",
       out + err)

    # ---- metrics before raw counts -------------------------------------
    for cmd, metric in ((["report", "-i", n2, "--by", "task"], "RETIRING"),
                        (["top", "-i", n2, "--batch", "-n", "1"], "RETIRING")):
        rc, out, err = run(*cmd)
        hdr, rows = table(out)
        t = hdr.split() if hdr else []
        ok(rc == 0 and metric in t and "CPU_CYCLES" in t and
           t.index(metric) < min(t.index(e) for e in n2_events),
           "%s: the metrics come before the event counts" % cmd[0], out + err)

    # ---- the total row under its columns --------------------------------
    for by in ("task", "process", "comm", "cgroup", "cpu"):
        rc, out, err = run("report", "-i", gen, "--by", by)
        hdr, rows = table(out)
        tot = [r for r in rows if r.startswith("total")]
        want = json.loads(run("--json", "report", "-i", gen, "--by", by)[1])
        cells = columns(hdr, tot[0]) if tot and hdr else []
        t = hdr.split() if hdr else []
        ok(rc == 0 and tot and len(tot[0]) == len(hdr) and
           cells[t.index("SLICES")] == str(want["total"]["slices"]) and
           cells[t.index("cycles")] ==
           str(want["total"]["counts"]["cycles"]),
           "report --by %s: the total row's numbers end under their titles"
           % by, out + err)

    # ---- one unit per column -------------------------------------------
    rc, out, err = run("top", "-i", big, "--batch", "-d", "1", "-n", "1")
    hdr, rows = table(out)
    bad = []
    if hdr:
        t = hdr.split()
        for name in ("SLICES", "cycles", "instructions"):
            units = set()
            for r in rows:
                c = columns(hdr, r)[t.index(name)]
                units.add(c[-1] if c[-1:].isalpha() else "")
            if len(units) != 1:
                bad.append("%s: %s" % (name, sorted(units)))
    ok(rc == 0 and hdr and len(rows) == 2 and not bad,
       "top: every value of a count column in the same unit",
       "\n".join(bad) + "\n" + out + err)

    # ---- --metric-only ------------------------------------------------
    rc, out, err = run("report", "-i", n2, "--by", "task", "--metric-only")
    hdr, rows = table(out)
    t = hdr.split() if hdr else []
    ok(rc == 0 and all(m in t for m in L1_SHORT) and
       not any(e in t for e in n2_events) and len(rows) == 3,
       "report --metric-only: the metrics, no event counts", out + err)
    rc, out, err = run("--json", "report", "-i", n2, "--metric-only")
    doc = json.loads(out) if rc == 0 else {}
    ok(rc == 0 and all("counts" not in r and "metrics" in r
                       for r in doc["rows"] + [doc["total"]]),
       "report --json --metric-only: rows without counts", out + err)
    rc, out, err = run("--csv", "report", "-i", n2, "--metric-only")
    head = out.splitlines()[0].split(",") if rc == 0 and out else []
    ok(rc == 0 and "retiring" in head and "CPU_CYCLES" not in head,
       "report --csv --metric-only: no event columns", out + err)

    # ---- --big-num ----------------------------------------------------
    rc, out, err = run("report", "-i", gen, "--by", "cpu", "--big-num")
    want = json.loads(run("--json", "report", "-i", gen)[1])["total"]
    grouped = "{:,}".format(want["counts"]["cycles"])
    hdr, rows = table(out)
    tot = [r for r in rows if r.startswith("total")]
    ok(rc == 0 and tot and grouped in tot[0].split() and
       len(tot[0]) == len(hdr),
       "report --big-num: counts grouped by thousands (%s), aligned" % grouped,
       out + err)
    rc, a, _ = run("--csv", "report", "-i", gen, "--big-num")
    rc2, b, _ = run("--csv", "report", "-i", gen)
    ok(rc == 0 and rc2 == 0 and a == b, "report --csv --big-num: CSV as is")
    # one format in a row: top's count columns widen rather than take a
    # unit beside grouped digits
    rc, out, err = run("top", "-i", gen, "--batch", "-d", "0.5", "-n", "1",
                       "--big-num")
    hdr, rows = table(out)
    cells = [c for r in rows for c in r.split()[-2:]]
    ok(rc == 0 and rows and
       all(re.fullmatch(r"\d{1,3}(,\d{3})*", c) for c in cells) and
       any("," in c for c in cells) and all(len(r) == len(hdr) for r in rows),
       "top --big-num: every count grouped, none in a unit (%s)" %
       " ".join(cells[:4]), out + err)
    # estimates (rotated groups) and their errors grouped too
    grp = os.path.join(tmp, "grouped.td")
    tdfile_gen.grouped_small().write(grp)
    rc, out, err = run("report", "-i", grp, "--big-num")
    est = re.findall(r"(\d\S*)\u00b1(\S+) \[", out)
    ok(rc == 0 and est and
       all(re.fullmatch(r"\d{1,3}(,\d{3})*", x) for e in est for x in e) and
       any(len(e[0]) > 4 for e in est),
       "report --big-num on rotated groups: estimates and errors grouped "
       "(%s)" % (est[:2],), out + err)

    # ---- the bottleneck mark ------------------------------------------
    rc, out, err = run("report", "-i", n2, "--by", "cpu")
    doc = json.loads(run("--json", "report", "-i", n2, "--by", "cpu")[1])
    want = {}
    for r in doc["rows"]:
        m = r["metrics"]
        want[str(r["cpu"])] = L1_SHORT[L1.index(max(L1, key=lambda k: m[k]))]
    hdr, rows = table(out)
    errors = []
    if hdr:
        t = hdr.split()
        for r in rows:
            cells = columns(hdr, r)
            marked = [t[i] for i, c in enumerate(cells) if c.startswith("*")]
            key = r.split()[0]
            if key != "total" and marked != [want.get(key)]:
                errors.append("CPU %s: marked %s, largest %s" %
                              (key, marked, want.get(key)))
            if key == "total" and len(marked) != 1:
                errors.append("total: marked %s" % marked)
    ok(rc == 0 and hdr and not errors,
       "report: '*' marks the largest Level-1 class of each row",
       "\n".join(errors) + "\n" + out + err)
    rc, out, err = run("report", "-i", gen)
    ok(rc == 0 and "*" not in out.split("\n\n", 1)[-1],
       "report: no mark for a set without the Level-1 classes", out + err)


if __name__ == "__main__":
    main(setup=require_tdctl)
