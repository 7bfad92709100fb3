#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One vocabulary (user/output/vocab.h, printed by `tdctl help --json`):
every column that report, top, dump and decode print is in the table,
under the same name in CSV and JSON and the same title in every plain
table; titles stand over the end of their numbers; the bottleneck mark
'*' is shown wherever a breakdown is, with its legend, and '!' too; time
is seconds into the recording everywhere. TAP."""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
import tdfile_gen  # noqa: E402
from tap import main, ok, require_tdctl, run, test  # noqa: E402

MARK_LEGEND = "* the largest TopDown Level-1 class of the row"
FLAG_LEGEND = "! outside 0..100% (counting skid)"
LEFT = {"COMM", "FLG", "CGROUP"}      # text: left-aligned


def vocab():
    _, out, _ = run("help", "--json")
    return {c["name"]: c for c in json.loads(out)["columns"]}


def header(out, first):
    """The header line of a table (starting with the title first) and the
    lines under it up to a blank line."""
    lines = out.splitlines()
    for i, ln in enumerate(lines):
        if ln.split()[:1] == [first]:
            rows = []
            for r in lines[i + 1:]:
                if not r.strip():
                    break
                rows.append(r)
            return ln, rows
    return "", []


def misaligned(hdr, rows):
    """Right-aligned titles whose numbers do not end where they end."""
    bad = []
    for m in re.finditer(r"\S+", hdr):
        if m.group() in LEFT:
            continue
        end = m.end()
        for r in rows:
            if r.startswith("total"):
                continue        # "total" stands over the keys
            if len(r) < end or r[end - 1] == " " or (len(r) > end and r[end] != " "):
                bad.append("%s: %r" % (m.group(), r[max(0, end - 12):end + 2]))
                break
    return bad


@test
def vocabulary(tmp):
    n2 = os.path.join(tmp, "n2.td")
    tdfile_gen.n2().write(n2)
    events = set(tdfile_gen.N2_EVENTS)
    voc = vocab()
    titles = {c["title"] for c in voc.values() if c["title"]}

    # ---- CSV and JSON names: in the table, for this command ------------
    for cmd, line in (("report", ["report", "-i", n2, "--by", "task"]),
                      ("top", ["top", "-i", n2, "--batch", "-n", "1"]),
                      ("dump", ["dump", "-i", n2]),
                      ("decode", ["decode", "--set", "generic", "cycles=4",
                                  "instructions=2"])):
        rc, out, err = run(*(line + ["--csv"]))
        head = out.splitlines()[0].split(",") if out else []
        bad = [h for h in head if h not in events and
               (h not in voc or cmd not in voc[h]["commands"].split())]
        ok(rc == 0 and head and not bad,
           "%s --csv: every column is in the vocabulary, for %s (%d)"
           % (cmd, cmd, len(head)), "%s\n%s" % (bad, err))
    rc, out, _ = run("report", "-i", n2, "--by", "task", "--json")
    row = json.loads(out)["rows"][0]
    keys = set(row) | set(row["metrics"])
    bad = [k for k in keys if k not in voc]
    ok(rc == 0 and not bad, "report --json: every key of a row is in the vocabulary", bad)
    rc, out, _ = run("dump", "-i", n2, "--json")
    rec = json.loads(out)[0]
    bad = [k for k in set(rec) | set(rec["metrics"]) if k not in voc]
    ok(rc == 0 and not bad, "dump --json: every key of a record is in the vocabulary", bad)

    # ---- plain titles: the table's, the same in every command ----------
    metric_titles = {}
    for cmd, line, first in (
            ("report", ["report", "-i", n2, "--by", "task"], "PID"),
            ("top", ["top", "-i", n2, "--batch", "-n", "1"], "PID"),
            ("dump", ["dump", "-i", n2], "TIME_S")):
        rc, out, err = run(*line)
        hdr, rows = header(out, first)
        t = hdr.split()
        bad = [x for x in t if x not in titles and x not in events]
        ok(rc == 0 and t and not bad,
           "%s: every title is the vocabulary's (or an event's name)" % cmd,
           "%s\n%s" % (bad, hdr))
        metric_titles[cmd] = [x for x in t if x in {
            voc[m]["title"] for m in voc if voc[m]["kind"] == "metric"}]
        mis = misaligned(hdr, rows)
        ok(rc == 0 and rows and not mis,
           "%s: every right-aligned title ends where its numbers end" % cmd,
           "\n".join(mis) + "\n" + hdr + "\n" + "\n".join(rows[:3]))
        # top has no room for the legend: tdctl-top(8) has it
        ok(rc == 0 and any("*" in r for r in rows) and
           (MARK_LEGEND in out or cmd == "top"),
           "%s: the bottleneck '*'%s"
           % (cmd, "" if cmd == "top" else " and its legend"), out)
    ok(metric_titles["report"] == metric_titles["top"] == metric_titles["dump"]
       and "RETIRING" in metric_titles["dump"],
       "report, top and dump: the same metric titles (%s)"
       % " ".join(metric_titles["dump"]), repr(metric_titles))
    for cmd in (["dump", "-i", n2], ["report", "-i", n2, "--by", "cpu"]):
        rc, out, _ = run(*cmd)
        ok("%!" in out and FLAG_LEGEND in out,
           "%s: a fraction outside 0..100%% is flagged '!', with the legend" % cmd[0],
           out[-400:])
    rc, out, _ = run("decode", "--set", "arm_neoverse_n2", "--slots", "5",
                     "CPU_CYCLES=1000000", "OP_RETIRED=3000000", "OP_SPEC=3100000",
                     "STALL_SLOT=1500000", "STALL_SLOT_FRONTEND=500000",
                     "STALL_SLOT_BACKEND=900000", "INST_RETIRED=2900000")
    ok(rc == 0 and re.search(r"RETIRING +\*87\.1%", out) and MARK_LEGEND in out
       and FLAG_LEGEND in out,
       "decode: '*' on the largest Level-1 class, legends of '*' and '!'", out)

    # ---- one time base: seconds into the recording ---------------------
    rc, out, _ = run("report", "-i", n2, "--json")
    start = json.loads(out)["start_ns"]
    rc, out, _ = run("dump", "-i", n2, "--json")
    recs = json.loads(out)
    ok(all(abs(r["time_s"] - (r["time_ns"] - start) / 1e9) < 1e-9 for r in recs),
       "dump: time_s is seconds into the recording (time_ns - start_ns)")
    rc, out, _ = run("dump", "-i", n2)
    _, rows = header(out, "TIME_S")
    ok(rows and float(rows[0].split()[0]) == round(recs[0]["time_s"], 6),
       "dump's table shows time_s, not the raw clock", rows[:1])
    rotated(tmp, voc, titles)


def rotated(tmp, voc, titles):
    """The same rules on a recording with rotated groups (Level 1 and the
    DTLB group of arm_neoverse_n2, test_report_groups.py's): the columns
    NAME_coverage and NAME_error of every count and metric, the JSON
    objects coverage and error, dump's group and rotated."""
    import test_report_groups as R
    pl, err = R.plan_of(tmp)
    if not ok(pl is not None, "rotated groups: tdctl list -j shows N2's groups", err):
        return
    pool, groups, label, _ = pl
    path = os.path.join(tmp, "l2.td")
    R.simulate(3, pool, groups, label, dur=200_000_000)[0].write(path)
    events = set(pool)

    def known(h, cmd):
        base = re.sub(r"_(coverage|error)$", "", h)
        return h in events or base in events or (
            h in voc and cmd in voc[h]["commands"].split())
    for cmd, line in (("report", ["report", "-i", path, "--by", "task"]),
                      ("top", ["top", "-i", path, "--batch", "-n", "1"]),
                      ("dump", ["dump", "-i", path])):
        rc, out, err = run(*(line + ["--csv"]))
        head = out.splitlines()[0].split(",") if out else []
        bad = [h for h in head if not known(h, cmd)]
        cov = [h for h in head if h.endswith("_coverage")]
        ok(rc == 0 and head and not bad and (cmd == "dump" or len(cov) > 10),
           "rotated groups, %s --csv: every column is in the vocabulary or "
           "an event's (NAME_coverage, NAME_error: %d)" % (cmd, len(cov)),
           "%s\n%s" % (bad, err))
        rc, out, err = run(*line)
        hdr, rows = header(out, "TIME_S" if cmd == "dump" else "PID")
        t = hdr.split()
        bad = [x for x in t if x not in titles and x not in events and
               x not in voc]
        mis = misaligned(hdr, rows)
        ok(rc == 0 and t and rows and not bad and not mis,
           "rotated groups, %s: every title is the vocabulary's (or a name), "
           "values\u00b1errors end under their titles" % cmd,
           "%s %s\n%s\n%s" % (bad, mis, hdr, "\n".join(rows[:2])))
    rc, out, _ = run("report", "-i", path, "--by", "task", "--json")
    row = json.loads(out)["rows"][0] if rc == 0 else {}
    keys = set(row) | set(row.get("metrics", {}))
    bad = [k for k in keys if k not in voc]
    ok(rc == 0 and not bad and set(row["coverage"]) == set(row["error"]) ==
       set(row["counts"]) | set(row["metrics"]),
       "rotated groups, report --json: every key in the vocabulary; coverage "
       "and error keyed as counts and metrics", bad)
    rc, out, _ = run("dump", "-i", path, "--json")
    rec = json.loads(out)[0] if rc == 0 else {}
    bad = [k for k in set(rec) | set(rec.get("metrics", {})) if k not in voc]
    ok(rc == 0 and not bad and "group" in rec and "rotated" in rec,
       "rotated groups, dump --json: every key in the vocabulary, with group "
       "and rotated", bad)


if __name__ == "__main__":
    main(setup=require_tdctl)
