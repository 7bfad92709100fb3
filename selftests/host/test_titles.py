#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One title per column: the same metric has the same plain title in
report, top, dump and decode (the vocabulary's, `tdctl help --json`), on
files with and without rotated groups and Level 2; no table shows a
title twice, and no metric's title is the name of an event of any set;
--sort takes the titles the tables print (any case) and lists every word
it takes, which completion offers too; the bottleneck mark '*' stands
right before its value in every command, and decode marks the path that
report marks; help --json's coverage and error rows describe coverage
and error, titled as no table prints them; "group" in the help and the
man pages means an event group, never a row of --by. TAP."""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
import tdfile_gen as T  # noqa: E402
from tap import fixture, main, ok, require_tdctl, run, test  # noqa: E402


@fixture
def files(tmp):
    """name -> (path, decode's options): N2 without groups, N2's Level 1
    and DTLB groups rotated, Intel's Level 2 groups rotated."""
    import test_decode_dump_groups as D
    import test_report_groups as R
    out = {}
    n2 = os.path.join(tmp, "n2.td")
    T.n2().write(n2)
    out["n2"] = (n2, ["--set", "arm_neoverse_n2", "--slots", "5"])
    pl, _ = R.plan_of(tmp)
    if pl:
        pool, groups, label, _ = pl
        path = os.path.join(tmp, "n2dt.td")
        R.simulate(3, pool, groups, label, dur=100_000_000)[0].write(path)
        out["n2dt"] = (path, ["--set", "arm_neoverse_n2", "--slots", "5"])
    pl = D.level2_plan(tmp, "intel_icl", "icelake_server")
    if pl:
        pool, groups, label = pl
        path = os.path.join(tmp, "icl2.td")
        D.recording(5, pool, groups, label, D.ICL_RATES)[0].write(path)
        out["icl2"] = (path, ["--set", "intel_icl", "--level", "2"])
    return out


def vocab():
    _, out, _ = run("help", "--json")
    return {c["name"]: c for c in json.loads(out)["columns"]}


def header(out, first):
    """The titles of the table whose header starts with first."""
    for ln in out.splitlines():
        if ln.split()[:1] == [first]:
            return ln.split()
    return []


def decoded(out):
    """decode's plain lines of metrics: [(title, cell)]."""
    rows = []
    for ln in out.splitlines():
        m = re.match(r"^  +(\S+) +(\S+)", ln)
        if m:
            rows.append((m.group(1), m.group(2)))
    return rows


def tables(path, opts):
    """The plain outputs of every command on path: {command: text}."""
    _, dump_json, _ = run("dump", "-i", path, "--json")
    return {
        "report": run("report", "-i", path, "--by", "task")[1],
        "top": run("top", "-i", path, "--batch", "-n", "1")[1],
        "dump": run("dump", "-i", path)[1],
        "decode": run("decode", *opts, stdin=dump_json)[1],
    }


@test
def one_title(files):
    voc = vocab()
    for name, (path, opts) in files.items():
        rc, out, err = run("report", "-i", path, "--by", "task", "--json")
        metrics = list(json.loads(out)["rows"][0]["metrics"]) if rc == 0 else []
        want = [voc[m]["title"] for m in metrics if m in voc]
        out = tables(path, opts)
        got = {
            "report": header(out["report"], "PID"),
            "top": header(out["top"], "PID"),
            "dump": header(out["dump"], "TIME_S"),
        }
        for cmd, titles in got.items():
            mt = [t for t in titles if t in want]
            ok(want and mt == want,
               "%s, %s: every metric under the vocabulary's title (%s)"
               % (name, cmd, " ".join(want)), " ".join(titles))
        dec = [t for t, _ in decoded(out["decode"])]
        ok(len(dec) >= 5 and all(t in want for t in dec),
           "%s, dump --json | decode: the metrics under the same titles" % name,
           out["decode"])


@test
def no_title_twice(files):
    for name, (path, opts) in files.items():
        out = tables(path, opts)
        for cmd, first in (("report", "PID"), ("top", "PID"), ("dump", "TIME_S")):
            t = header(out[cmd], first)
            twice = sorted({x for x in t if t.count(x) > 1})
            ok(t and not twice, "%s, %s: no title twice" % (name, cmd),
               "%s\n%s" % (twice, " ".join(t)))
    # no metric's title is an event's name (or alias) in any set
    voc = vocab()
    titles = {c["title"]: n for n, c in voc.items()
              if c["kind"] == "metric" and c["title"]}
    _, out, _ = run("list", "-j")
    clash = []
    for s in json.loads(out)["sets"]:
        _, sel, _ = run("list", "-s", s["name"], "-j")
        sel = json.loads(sel)["selected"]
        evs = list(sel.get("events", []))
        for g in sel.get("groups", []):
            evs += g["events"]
        for e in evs:
            for n in [e["name"]] + e.get("aliases", []):
                if n in titles:
                    clash.append("%s: event %s, metric %s" % (s["name"], n,
                                                              titles[n]))
    ok(not clash, "no metric is titled as an event of any set",
       "\n".join(sorted(set(clash))))


def sort_list(err):
    """The words of "cannot sort by 'X': no such column (A|a, B, ...)":
    [[A, a], [B], ...]."""
    m = re.search(r"no such column \((.*)\); see", err)
    return [c.split("|") for c in m.group(1).split(", ")] if m else None


@test
def sort_by_titles(files):
    path, _ = files["icl2"]
    voc = vocab()

    def order(*sort):
        rc, out, err = run("report", "-i", path, "--by", "task", "--json",
                           "--sort", *sort)
        return [r["tid"] for r in json.loads(out)["rows"]] if rc == 0 else err
    for title, name in (("IPC", "ipc"), ("BACKEND.MEM_BOUND", "memory_bound"),
                        ("backend.mem_bound", "memory_bound"),
                        ("RETIRING.HEAVY_OPS", "heavy_operations"),
                        ("RUN_MS", "runtime_ns"), ("SLICES", "slices")):
        by_name = order(name)
        ok(order(title) == by_name and isinstance(by_name, list),
           "report --sort %s: the rows of --sort %s" % (title, name),
           "%s\n%s" % (order(title), by_name))
    rc, out, err = run("top", "-i", path, "--batch", "-n", "1", "--sort", "%CPU")
    ok(rc == 0, "top --sort %CPU: the title top prints", err)

    # the error lists every word it takes, each taken, every title in it
    rc, out, err = run("report", "-i", path, "--by", "task", "--sort", "nosuch")
    words = sort_list(err)
    refused = [w for c in words or [] for w in c
               if run("report", "-i", path, "--by", "task", "--sort", w)[0]]
    _, out, _ = run("report", "-i", path, "--by", "task")
    titles = [t for t in header(out, "PID") if t != "TID"] if out else []
    listed = {w for c in words or [] for w in c}
    missing = [t for t in titles if t not in listed]
    ok(rc == 2 and words and not refused and not missing and
       {"time", "cycles"} <= listed,
       "report --sort: the error lists every word it takes (%d columns), "
       "every title of the table among them" % len(words or []),
       "refused %s, not listed %s\n%s" % (refused, missing, err))

    # completion: every metric's title and name
    _, comp, _ = run("__complete", "report", "--sort", "")
    comp = set(comp.split())
    lack = [c["title"] for n, c in voc.items()
            if c["kind"] == "metric" and c["title"] and c["title"] not in comp
            and not n.endswith(("_coverage", "_error"))]
    ok(not lack and {"BACKEND.MEM_BOUND", "IPC", "memory_bound", "time",
                     "cycles"} <= comp,
       "completion of --sort: every metric's title, names, time, cycles",
       "%s\n%s" % (lack, sorted(comp)))


CELL = re.compile(r"\*?-?[\d.]+(?:\u00b1[\d.]+)?%?(?: \[\d+%\])?!?|unknown \[\d+%\]")


def misplaced(text):
    """Lines of a table whose '*' is not right before a value or whose '!'
    is not right after its cell (a percentage, "value±error [c%]");
    legends and decode's notes left out."""
    bad = []
    for ln in text.splitlines():
        if ln.startswith(("*", "!", "#", "set ", "formula:", "assumes:",
                          "group ")):
            continue
        # "BACKEND.*": the legend of Level 2 classes, a column's name
        if re.search(r"(?<!\.)\*(?![-\d])", ln) or re.search(r"(?<![%\]])!", ln):
            bad.append(ln)
    return bad


@test
def one_mark(files):
    fx = os.path.join(HERE, "perf-stat", "icl-6.12-interval-raw.txt")
    with open(fx) as f:
        _, ivl, _ = run("decode", "--set", "intel_icl", stdin=f.read())
    for name, (path, opts) in list(files.items()) + [("perf -I", (None, None))]:
        out = tables(path, opts) if path else {"decode": ivl}
        for cmd, text in out.items():
            bad = misplaced(text)
            ok("*" in text and not bad,
               "%s, %s: '*' right before the value it marks, '!' right "
               "after its cell" % (name, cmd), "\n".join(bad[:5]))

    # the same path in report's total row and decode of the whole dump
    path, opts = files["icl2"]
    _, out, _ = run("report", "-i", path, "--metric-only")
    titles = header(out, "PID")
    titles = titles[titles.index("RUN_MS") + 1:] if "RUN_MS" in titles else []
    total = [ln for ln in out.splitlines() if ln.startswith("total")]
    cells = CELL.findall(total[0])[2:] if total else []
    rep = {t for t, c in zip(titles, cells) if c.startswith("*")}
    _, dump, _ = run("dump", "-i", path, "--json")
    _, dec, _ = run("decode", *opts, stdin=dump)
    got = {t for t, c in decoded(dec) if c.startswith("*")}
    ok(len(rep) == 2 and got == rep and "* the bottleneck path" in dec,
       "decode marks report's bottleneck path (%s), with its legend"
       % ", ".join(sorted(rep)), "report %s, decode %s\n%s" % (rep, got, dec))


@test
def coverage_rows():
    voc = vocab()
    bad = []
    rows = 0
    for name, c in voc.items():
        for kind in ("coverage", "error"):
            if not name.endswith("_" + kind) or name == kind:
                continue
            rows += 1
            of = voc.get(c.get("of") or "")
            if (c["title"] is not None or c["kind"] != kind or of is None or
                    name != of["name"] + "_" + kind or
                    c["description"] == of["description"] or
                    ("share" if kind == "coverage" else "standard error")
                    not in c["description"] or c["bottleneck"] or
                    c["parent"] is not None):
                bad.append("%s: %s" % (name, c))
    ok(rows > 100 and not bad,
       "help --json: %d coverage and error rows, kind coverage or error, of "
       "their metric, untitled, each described as itself" % rows,
       "\n".join(bad[:5]))


@test
def group_is_an_event_group():
    """A row of --by is a task, process, comm, cgroup or CPU, serve's a
    series: the help texts and the man pages call neither a group."""
    bad = []
    man = os.path.join(HERE, "..", "..", "Documentation", "man")
    texts = {"tdctl %s --help" % c: run(c, "--help")[1]
             for c in ("report", "stat", "top", "serve")}
    for f in sorted(os.listdir(man)):
        if f.endswith(".rst"):
            with open(os.path.join(man, f)) as fh:
                texts[f] = fh.read()
    words = re.compile(r"row per group|rows? per group|the groups of a record"
                       r"|at most N groups|Groups are keyed|serve groups by"
                       r"|Groups made|groups of the interval", re.I)
    for where, text in texts.items():
        for m in words.finditer(" ".join(text.split())):
            bad.append("%s: %s" % (where, m.group()))
    ok(not bad, "the help and the man pages: no row of --by or series called "
       "a group", "\n".join(bad))


if __name__ == "__main__":
    main(setup=require_tdctl)
