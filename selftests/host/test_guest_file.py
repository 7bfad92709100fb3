#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read back on the host the record files that the guests wrote: the guest
suite tdctl_stat_test.sh prints its file in base64 and its own
`report --json` of it between markers; this decodes the file, runs the
host's tdctl report on it (another architecture for the arm64 guest) and
requires the same report. And the --csv output of the commands that need
the module (load, unload, status), which tdctl_e2e_load_test.sh and
tdctl_e2e_unload_test.sh print with the --json output of the same
command: the CSV is parsed with the csv module and compared field by field
with the JSON.
Usage: test_guest_file.py GUEST-TAP-LOG... TAP.
"""
import base64
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]  # tap.py: selftests/lib
from csvjson import diffs, parse  # noqa: E402
from tap import TDCTL, main, ok, test  # noqa: E402
import trace_check  # noqa: E402


def between(lines, begin, end):
    """The comment lines of each begin ... end block: one list per block."""
    blocks, cur = [], None
    for ln in lines:
        if ln.startswith("# " + begin):
            cur = []
        elif ln.startswith("# " + end):
            if cur is not None:
                blocks.append(cur)
            cur = None
        elif cur is not None and ln.startswith("# "):
            cur.append(ln[2:])
    return blocks


def csvjson_blocks(lines):
    """{name: (csv text, json text)} of the csvjson blocks of a guest log."""
    blocks, name, part = {}, None, None
    for ln in lines:
        if ln.startswith("# csvjson-begin "):
            name, part = ln.split()[2], "csv"
            blocks[name] = ([], [])
        elif ln == "# csvjson-json" and name:
            part = "json"
        elif ln == "# csvjson-end":
            name = None
        elif name and (ln.startswith("# ") or ln == "#"):
            blocks[name][0 if part == "csv" else 1].append(ln[2:])
    return {k: ("\n".join(c) + "\n", "\n".join(j)) for k, (c, j) in blocks.items()}


# The fields of each command whose CSV and JSON must agree. status runs
# twice (CSV, then JSON): its counters move in between; the rest does not.
STATUS_KEYS = ("state", "abi_version", "record_size", "nr_cpus", "reader",
               "start_ns", "stop_ns", "label", "ring_size", "watermark",
               "overflow", "backend")
STATUS_CPU_KEYS = ("cpu", "online", "counting")


# load's CSV columns, in order (Documentation/man/tdctl-load.rst).
LOAD_KEYS = ("set", "why", "label", "events", "no_counter", "backend")


def check_csvjson(name, lines):
    blocks = csvjson_blocks(lines)
    for cmd in ("load", "unload", "status"):
        if not ok(cmd in blocks, "%s: the guest printed %s --csv and --json" % (name, cmd)):
            continue
        text, js = blocks[cmd]
        try:
            doc = json.loads(js)
        except ValueError as e:
            ok(False, "%s: %s --json parses" % (name, cmd), str(e))
            continue
        head, rows = parse(text)
        bad = ["a row without %d fields" % len(head) for r in rows if r is None]
        rows = [r for r in rows if r is not None]
        if cmd == "load":
            bad += ["%d rows" % len(rows)] if len(rows) != 1 else \
                diffs(doc, rows[0], LOAD_KEYS)
            bad += [] if head == list(LOAD_KEYS) else ["header %r" % head]
        elif cmd == "unload":
            bad += [] if head == ["unloaded"] and len(rows) == 1 and \
                rows[0]["unloaded"] == "true" and doc == {"unloaded": True} else \
                ["%r %r" % (rows, doc)]
        else:
            cpus = doc.get("cpus", [])
            bad += ["%d rows, %d cpus" % (len(rows), len(cpus))] \
                if len(rows) != len(cpus) or not rows else []
            for c, r in zip(cpus, rows):
                bad += diffs(doc, r, STATUS_KEYS) + diffs(c, r, STATUS_CPU_KEYS)
                if r.get("last_error") != "" or int(r.get("records", -1)) < 0:
                    bad.append("last_error %r records %r" % (r.get("last_error"),
                                                             r.get("records")))
        ok(not bad, "%s: %s --csv parses and equals %s --json (%d rows)"
           % (name, cmd, cmd, len(rows)), "\n".join(bad) + "\n" + text + js)


@test
def guest_logs(tmp):
    for log in sys.argv[1:]:
        name = os.path.basename(log)
        try:
            with open(log, errors="replace") as fh:
                lines = [ln.rstrip("\r\n") for ln in fh]
        except OSError:
            lines = []
        check_csvjson(name, lines)
        # One record file per backend the guest's suites ran with.
        files = between(lines, "tdfile-begin", "tdfile-end")
        reps = between(lines, "tdfile-report-begin", "tdfile-report-end")
        if not ok(files and len(files) == len(reps),
                  "%s: the guest printed %d record files and %d reports"
                  % (name, len(files), len(reps))):
            continue
        for i, (b64, rep) in enumerate(zip(files, reps)):
            if i:
                name = "%s#%d" % (os.path.basename(log), i + 1)
            path = os.path.join(tmp, name + ".td")
            with open(path, "wb") as fh:
                fh.write(base64.b64decode("".join(b64)))
            p = subprocess.run([TDCTL, "--json", "report", "-i", path, "--by", "comm"],
                               capture_output=True, text=True)
            try:
                host = json.loads(p.stdout)
                guest = json.loads("".join(rep))
            except ValueError as e:
                host, guest = {"error": str(e)}, {}
            for d in (host, guest):
                d.pop("file", None)
            ok(p.returncode == 0 and host == guest and host.get("rows"),
               "%s: the host (%s) reads the guest's (%s) record file as the guest does"
               % (name, os.uname().machine, host.get("arch", "?")),
               "host: %s\nguest: %s\n%s" % (json.dumps(host)[:600],
                                            json.dumps(guest)[:600], p.stderr))
            # The same file as a Perfetto trace: valid, one slice per record.
            trace = os.path.join(tmp, name + ".json")
            p = subprocess.run([TDCTL, "timeline", "-i", path, "-o", trace],
                               capture_output=True, text=True)
            probs = ["exit %d: %s" % (p.returncode, p.stderr)]
            if p.returncode == 0:
                t = trace_check.load(trace)
                slices = sum(1 for e in t["traceEvents"] if e["ph"] == "X")
                probs = trace_check.problems(t)
                if slices != host.get("records_in_file"):
                    probs.append("%d slices, %r records" % (slices, host.get("records_in_file")))
            ok(not probs, "%s: tdctl timeline of the guest's record file is a valid "
               "trace with a slice per record" % name, "\n".join(probs))


if __name__ == "__main__":
    main()
