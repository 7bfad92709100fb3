#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of --csv for the commands that run without the module:
help, help COMMAND, list (fake sysfs trees), decode, report --by cgroup;
each CSV is parsed with the csv module and checked field by field against
the JSON output of the same command. And the CSV quoting of text that
holds commas, quotes and line breaks (record files with such comms).
load, unload and status need the module: the guests print their CSV and
JSON, and test_guest_file.py checks them the same way on the host.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]  # tap.py: selftests/lib
import tdfile_gen  # noqa: E402
from csvjson import diffs as same, parse  # noqa: E402
from tap import TOP, main, ok, require_tdctl, run, test  # noqa: E402

OUT = os.environ.get("OUT") or os.path.join(TOP, "build/host/")


@test
def test_help():
    rc, out, err = run("help", "--csv")
    rc2, js, _ = run("help", "--json")
    head, rows = parse(out)
    cmds = json.loads(js)["commands"] if rc2 == 0 else []
    diffs = [] if len(rows) == len(cmds) else ["%d rows, %d commands" % (len(rows), len(cmds))]
    for c, r in zip(cmds, rows):
        diffs += same(c, r or {}, ("command", "synopsis"))
    ok(rc == 0 and head == ["command", "synopsis"] and len(rows) >= 11 and not diffs,
       "help --csv: a row per command, as help --json (%d)" % len(rows),
       "\n".join(diffs) + out + err)
    names = [r["command"] for r in rows if r]
    for cmd in names:
        rc, out, err = run("help", cmd, "--csv")
        rc2, js, _ = run("--json", "help", cmd)
        head, rows = parse(out)
        doc = json.loads(js) if rc2 == 0 else {"options": []}
        diffs = [] if len(rows) == len(doc["options"]) else ["row count"]
        for o, r in zip(doc["options"], rows):
            diffs += same(o, r or {}, ("option", "short", "argument", "kind",
                                       "description"))
            if r and r["command"] != cmd:
                diffs.append("command %r" % r["command"])
        # The options are the ones --help lists.
        _, usage, _ = run(cmd, "--help")
        missing = [r["option"] for r in rows if r and r["option"] not in usage]
        ok(rc == 0 and head == ["command", "option", "short", "argument", "kind",
                                "description"] and
           (any(r and r["option"] == "--csv" and r["kind"] == "output" for r in rows)
            or cmd in ("timeline", "serve")) and
           not diffs and not missing,
           "help %s --csv: its options as JSON has them and --help lists them" % cmd,
           "\n".join(diffs) + " missing %s\n" % missing + out + err)


@test
def test_list(tmp):
    fx = os.path.join(tmp, "fx")
    subprocess.run([os.path.join(OUT, "mkfixture"), fx, "neoverse_n2_r0p0",
                    "skylake_server"], check=True)
    for name, want in (("neoverse_n2_r0p0", None), ("skylake_server", None),
                       ("neoverse_n2_r0p0", "generic")):
        extra = ["--events", want] if want else []
        root = os.path.join(fx, name)
        rc, out, err = run("list", "--root", root, "--csv", *extra)
        rc2, js, _ = run("list", "--root", root, "--json", *extra)
        head, rows = parse(out)
        doc = json.loads(js)
        diffs = [] if len(rows) == len(doc["sets"]) else ["row count"]
        for s, r in zip(doc["sets"], rows):
            # lists: JSON arrays of names, words of one CSV field
            if not isinstance(s["metrics"], list) or \
                    not isinstance(s["metric_groups"], list):
                diffs.append("%s: metrics, metric_groups not arrays" % s["name"])
            elif r:
                s = dict(s, metric_groups=";".join(s["metric_groups"]))
            diffs += same(s, r or {}, ("name", "events", "fits", "chosen", "title",
                                       "metrics", "reason", "metric_groups"))
        sel = doc["selected"]
        lists = [e["aliases"] for e in sel["events"]] + \
            [g[k] for g in sel.get("groups", []) for k in ("aliases", "perf_groups")] + \
            [m["perf_groups"] for m in sel.get("metric_info", [])]
        if not all(isinstance(x, list) and all(isinstance(w, str) and w and
                                               " " not in w and ";" not in w
                                               for w in x) for x in lists):
            diffs.append("aliases, perf_groups: not arrays of names")
        chosen = [r["name"] for r in rows if r and r["chosen"] == "true"]
        ok(rc == 0 and rc2 == 0 and not diffs and
           head == ["name", "events", "fits", "chosen", "title", "metrics", "reason",
                    "metric_groups"] and
           chosen == [doc["selected"]["set"]] and (not want or chosen == [want]),
           "list --csv on %s%s: the sets as in JSON, chosen %s" % (
               name, " --events " + want if want else "", chosen),
           "\n".join(diffs) + out + err)
    rc, out, err = run("list", "--root", os.path.join(fx, "skylake_server"), "--csv",
                       "--events", "nope")
    ok(rc == 2 and out == "" and err.startswith("tdctl: Error: ") and "nope" in err,
       "list --csv with a bad --events: a usage error (exit 2) on stderr, no CSV", out + err)


@test
def test_decode():
    seed = ["CPU_CYCLES=1000000", "OP_RETIRED=2500000", "OP_SPEC=2600000",
            "STALL_SLOT=1200000", "STALL_SLOT_FRONTEND=600000",
            "STALL_SLOT_BACKEND=700000", "INST_RETIRED=2400000"]
    cases = [
        (["--set", "arm_neoverse_n2", "--slots", "5", "--revision", "r0p0"] + seed, None),
        (["--set", "generic", "cycles=1000", "instructions=0"], None),
        (["--set", "generic", "cycles=0", "instructions=5"], None),
        (["--set", "generic"], '{"cycles": 10, "instructions": 4}\n'
                               '{"cycles": 30, "instructions": 20}\n'),
    ]
    for args, stdin in cases:
        rc, out, err = run("decode", "--csv", *args, stdin=stdin)
        rc2, js, err2 = run("decode", "--json", *args, stdin=stdin)
        head, rows = parse(out)
        doc = json.loads(js) if rc2 == 0 else {}
        diffs = []
        if len(rows) != 1 or rows[0] is None:
            diffs.append("%d rows" % len(rows))
        else:
            r = rows[0]
            diffs += same(doc, r, ("set", "label", "lines"))
            diffs += same(doc["metrics"], r, list(doc["metrics"]))
            if r["flagged"] != " ".join(doc["flagged"]):
                diffs.append("flagged %r %r" % (r["flagged"], doc["flagged"]))
            if r.get("formula") != doc.get("formula"):
                diffs.append("formula %r %r" % (r.get("formula"), doc.get("formula")))
            if r.get("assumptions") != "; ".join(doc.get("assumptions", [])):
                diffs.append("assumptions %r %r" % (r.get("assumptions"),
                                                    doc.get("assumptions")))
            if head != ["set", "label", "lines"] + list(doc["metrics"]) + \
                    ["flagged", "formula", "assumptions"]:
                diffs.append("header %r" % head)
        ok(rc == 0 and not diffs,
           "decode --csv %s: one row equal to --json"
           % " ".join(args[:2] + (["<stdin>"] if stdin else [])),
           "\n".join(diffs) + out + err + err2)
    rc, out, err = run("decode", "--csv", "--set", "generic", "cycles=x")
    ok(rc == 2 and out == "" and "count of cycles: 'x' is not a count" in err,
       "decode --csv with a bad count (an operand: usage, exit 2): plain error "
       "on stderr, no CSV", out + err)


@test
def test_report_cgroup(tmp):
    """Files: the cgroup id, never a path (another machine's ids)."""
    path = os.path.join(tmp, "g.td")
    tdfile_gen.generic().write(path)
    rc, out, err = run("report", "-i", path, "--by", "cgroup", "--csv")
    rc2, js, _ = run("report", "-i", path, "--by", "cgroup", "--json")
    head, rows = parse(out)
    doc = json.loads(js)
    groups = [r for r in rows if r and r["type"] == "group"]
    diffs = [] if len(groups) == len(doc["rows"]) else ["row count"]
    for g, r in zip(doc["rows"], groups):
        diffs += same(g, r, ("cgroup_id", "cgroup", "slices", "runtime_ns"))
    ok(rc == 0 and head[:3] == ["type", "cgroup_id", "cgroup"] and not diffs and
       {r["cgroup_id"] for r in groups} == {"1", "11", "12", "13"} and
       all(r["cgroup"] == "" for r in groups) and
       all(g["cgroup"] is None for g in doc["rows"]),
       "report -i --by cgroup: ids, no path (cgroup null / empty), CSV = JSON",
       "\n".join(diffs) + out + err)
    rc, out, err = run("report", "-i", path, "--by", "cgroup")
    ok(rc == 0 and "CGROUP" in out and " 11 " in out,
       "report -i --by cgroup (plain): the ids", out + err)


@test
def test_quoting(tmp):
    """Text with commas and quotes survives the CSV; a line break in a
    comm is a control character, written \\x0a as in every format."""
    nasty = ['a,b', 'say "hi"', 'two\nlines', ' pad ']
    want = sorted(tdfile_gen.comm_text(c) for c in nasty)
    recs = [tdfile_gen.Rec(0, 10 + i, 10 + i, c, tdfile_gen._time(i, 4),
                           1000, [100 * (i + 1), 50])
            for i, c in enumerate(nasty)]
    sc = tdfile_gen.Scenario("set=generic", ["cycles", "instructions"], 1, recs)
    path = os.path.join(tmp, "q.td")
    sc.write(path)
    rc, out, err = run("report", "-i", path, "--by", "comm", "--csv")
    _, rows = parse(out)
    got = sorted(r["comm"] for r in rows if r and r["type"] == "group")
    ok(rc == 0 and None not in rows and got == want and
       "two\\x0alines" in got,
       "report --csv: comms with , \" and a line break parse back as their text",
       "%r\n%s%s" % (got, out, err))
    rc, out, err = run("dump", "-i", path, "--csv")
    _, rows = parse(out)
    got = sorted(r["comm"] for r in rows if r)
    ok(rc == 0 and None not in rows and got == want,
       "dump --csv: the same comms parse back as their text", "%r\n%s%s" % (got, out, err))


def raw_fields(line):
    """The fields of one CSV line as (quoted, text) pairs."""
    out, i = [], 0
    while i <= len(line):
        if line[i:i + 1] == '"':
            j, text = i + 1, ""
            while True:
                k = line.index('"', j)
                text += line[j:k]
                if line[k + 1:k + 2] == '"':
                    text += '"'
                    j = k + 2
                    continue
                break
            out.append((True, text))
            i = k + 2
        else:
            k = line.find(",", i)
            k = len(line) if k < 0 else k
            out.append((False, line[i:k]))
            i = k + 1
    return out


@test
def test_text_quoted(tmp):
    """tdctl(8): text fields are always quoted: the keywords too (type
    group/total, dump's flags), as JSON has them as strings; numbers are
    bare (top's time_s, a number in its JSON)."""
    path = os.path.join(tmp, "gen.td")
    tdfile_gen.generic().write(path)
    for args, cols in ((("report", "-i", path), ("type", "comm")),
                       (("top", "-i", path, "-n", "2"), ("type",)),
                       (("dump", "-i", path), ("comm", "flags"))):
        rc, out, err = run("--csv", *args)
        lines = out.splitlines()
        head = lines[0].split(",") if lines else []
        bad = []
        for ln in lines[1:]:
            f = dict(zip(head, raw_fields(ln)))
            bad += ["%s=%r" % (c, f.get(c)) for c in cols
                    if not (f.get(c) or (False,))[0] and
                    not (c == "comm" and f.get("type") == (True, "total"))]
            if "time_s" in f and (f["time_s"][0] or not f["time_s"][1]):
                bad.append("time_s=%r" % (f["time_s"],))
        ok(rc == 0 and len(lines) > 1 and not bad,
           "%s --csv: %s quoted in every row, numbers bare" %
           (args[0], ", ".join(cols)), "%s\n%s%s" % (bad[:5], out[:300], err))


@test
def test_event_names(tmp):
    """Event names are text from the file ('load -e' stores perf's own
    text, "cpu/event=0x3c,umask=0x0/"): a CSV header quotes them like any
    field, so the header has as many columns as the rows."""
    sc = tdfile_gen.generic()
    sc.events = ["cpu/event=0x3c,umask=0x0/", 'ins"tr']
    path = os.path.join(tmp, "names.td")
    sc.write(path)
    for args in (("report", "-i", path), ("report", "-i", path, "--by", "cpu"),
                 ("dump", "-i", path), ("top", "-i", path, "-n", "2")):
        rc, out, err = run("--csv", *args)
        head, rows = parse(out)
        ok(rc == 0 and rows and None not in rows and
           sc.events[0] in head and sc.events[1] in head and
           rows[0][sc.events[0]] and rows[0][sc.events[1]],
           "%s --csv with the events %r: the header quoted, as many columns "
           "as the rows" % (" ".join(args[:1] + args[3:]), sc.events),
           out[:400] + err)


if __name__ == "__main__":
    main(setup=require_tdctl)
