#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of the record-file readers: `tdctl report`, `dump -i` and
`top -i` on files written by tdfile_gen.py (an independent writer), in
every output format (JSON and CSV parsed here), with known groups and
sums; and the errors for truncated, corrupt and foreign files. TAP.
"""
import csv
import io
import json
import os
import struct
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]  # tap.py: selftests/lib
import tdfile_gen  # noqa: E402
from tap import TDCTL, main, ok, require_tdctl, run, test  # noqa: E402


def compare_groups(sc, by, rows, total, keep=lambda r: True):
    want, want_total = sc.sums(by, keep)
    events = sc.events
    errors = []
    # Match rows to expected groups. Idle tasks (pid 0, one per CPU) are
    # told apart by their cpu key, null in the other rows.
    got = {}
    for r in rows:
        if by in ("task", "process") and \
                (r.get("cpu") is None) != bool(r["pid"]):
            errors.append("cpu %r in the row of pid %d" % (r.get("cpu"), r["pid"]))
        if by == "task":
            k = (r["pid"], r["tid"], r.get("cpu") or 0)
        elif by == "process":
            k = (r["pid"], r.get("cpu") or 0)
        elif by == "comm":
            k = r["comm"]
        elif by == "cgroup":
            k = r["cgroup_id"]
        else:
            k = r["cpu"]
        got[k] = r
    if set(got) != set(want):
        errors.append("groups %s, expected %s" % (sorted(map(str, got)),
                                                  sorted(map(str, want))))
    for k, w in want.items():
        g = got.get(k)
        if not g:
            continue
        if g["slices"] != w["slices"] or g["runtime_ns"] != w["runtime_ns"]:
            errors.append("%s: slices/runtime %s/%s, expected %s/%s" % (
                k, g["slices"], g["runtime_ns"], w["slices"], w["runtime_ns"]))
        for i, e in enumerate(events):
            if int(g["counts"][e]) != w["counts"][i]:
                errors.append("%s: %s %s, expected %s" % (
                    k, e, g["counts"][e], w["counts"][i]))
    if total["slices"] != want_total["slices"]:
        errors.append("total slices %s, expected %s" % (
            total["slices"], want_total["slices"]))
    for i, e in enumerate(events):
        if int(total["counts"][e]) != want_total["counts"][i]:
            errors.append("total %s %s, expected %s" % (
                e, total["counts"][e], want_total["counts"][i]))
    return errors


def sorted_desc(rows, field):
    vals = [field(r) for r in rows]
    return all(vals[i] >= vals[i + 1] for i in range(len(vals) - 1))


@test
def report(tmp):
    files = {}
    scen = {}
    for name, make in tdfile_gen.SCENARIOS.items():
        scen[name] = make()
        files[name] = os.path.join(tmp, name + ".td")
        scen[name].write(files[name])

    # ---- report --json: every grouping, known sums --------------------
    for name in ("generic", "n2"):
        sc, f = scen[name], files[name]
        for by in ("task", "process", "comm", "cgroup", "cpu"):
            rc, out, err = run("--json", "report", "-i", f, "--by", by)
            try:
                doc = json.loads(out)
                errors = compare_groups(sc, by, doc["rows"], doc["total"])
                if doc["by"] != by or doc["records"] != len(sc.records):
                    errors.append("by/records: %s/%s" % (doc["by"], doc["records"]))
            except (ValueError, KeyError) as e:
                errors = ["bad JSON: %s" % e, out, err]
            ok(rc == 0 and not errors,
               "report --json %s --by %s: groups and sums as written" % (name, by),
               "\n".join(map(str, errors)) + "\n" + err)

    sc, f = scen["generic"], files["generic"]
    rc, out, err = run("--json", "report", "-i", f)
    doc = json.loads(out)
    ok(sorted_desc(doc["rows"], lambda r: r["counts"]["cycles"]),
       "report sorts by cycles, descending", out)
    ipc_ok = all(abs(r["metrics"]["ipc"] - r["counts"]["instructions"]
                     / r["counts"]["cycles"]) < 1e-9 for r in doc["rows"])
    ok(ipc_ok, "report: ipc is instructions/cycles of the summed counts", out)
    ok(doc["lost"] == 3 and doc["lost_per_cpu"] == [0, 3] and
       "lost while recording" in err,
       "report: per-CPU lost counts from the file, and a warning", err)
    ok(doc["arch"] == "aarch64" and doc["set"] == "generic" and
       doc["nr_cpus"] == 2 and doc["duration_ns"] == 2_000_000_000 and
       [e["name"] for e in doc["events"]] == ["cycles", "instructions"],
       "report --json: the header (arch, set, CPUs, duration, events)", out)

    # Metrics come from summed counts, not averaged per slice: the same
    # sums through `tdctl decode` give the same numbers.
    sc, f = scen["n2"], files["n2"]
    rc, out, err = run("--json", "report", "-i", f, "--by", "process")
    doc = json.loads(out)
    want, _ = sc.sums("process")
    same = True
    for r in doc["rows"]:
        counts = ["%s=%d" % (e, r["counts"][e]) for e in sc.events]
        rc2, out2, _ = run("--json", "decode", "--set", "arm_neoverse_n2",
                           "--slots", "5", "--revision", "r0p0", *counts)
        dec = json.loads(out2)["metrics"]
        for m, v in r["metrics"].items():
            if v is None or abs(dec[m] - v) > 1e-9:
                same = False
    ok(rc == 0 and same and "retiring" in doc["rows"][0]["metrics"],
       "report n2: TopDown metrics equal decode of the summed counts", out)

    # ---- CSV --------------------------------------------------------
    sc, f = scen["generic"], files["generic"]
    for by in ("task", "process", "comm", "cgroup", "cpu"):
        rc, out, err = run("report", "-i", f, "--by", by, "--csv")
        rows = list(csv.DictReader(io.StringIO(out)))
        groups = [r for r in rows if r["type"] == "group"]
        totals = [r for r in rows if r["type"] == "total"]
        conv = []
        for r in groups:
            d = {"slices": int(r["slices"]), "runtime_ns": int(r["runtime_ns"]),
                 "counts": {e: int(r[e]) for e in sc.events}}
            for k in ("pid", "tid", "cpu", "cgroup_id"):
                if k in r:      # an empty field is JSON's null
                    d[k] = int(r[k]) if r[k] != "" else None
            if "comm" in r:
                d["comm"] = r["comm"]
            conv.append(d)
        t = totals[0] if totals else {}
        tot = {"slices": int(t.get("slices", -1)),
               "counts": {e: int(t.get(e, -1)) for e in sc.events}}
        errors = compare_groups(sc, by, conv, tot) if totals else ["no total"]
        ok(rc == 0 and len(totals) == 1 and not errors,
           "report --csv --by %s: parses, groups and sums as written" % by,
           "\n".join(errors) + "\n" + out[:1500] + err)

    # ---- plain ------------------------------------------------------
    rc, out, err = run("report", "-i", f, "--by", "process")
    want, total = sc.sums("process")
    lines = out.splitlines()
    hdr = [ln for ln in lines if ln.lstrip().startswith("PID")]
    alpha = [ln for ln in lines if " alpha " in ln]
    w = want[(100, 0)]
    ok(rc == 0 and hdr and "cycles" in hdr[0] and alpha and
       str(w["counts"][0]) in alpha[0] and str(w["counts"][1]) in alpha[0] and
       any(ln.startswith("total") and str(total["counts"][0]) in ln
           for ln in lines) and "# target: all tasks" in out,
       "report (plain): header, the alpha row and the total with their sums",
       out + err)

    # ---- sorting -----------------------------------------------------
    rc, out, err = run("--json", "report", "-i", files["software"])
    doc = json.loads(out)
    ok(rc == 0 and sorted_desc(doc["rows"], lambda r: r["counts"]["cpu-clock"])
       and doc["rows"][0]["comm"] == "sw12",
       "report software set (no cycles event): sorted by cpu-clock", out)
    rc, out, err = run("--json", "report", "-i", f, "--sort", "instructions")
    doc = json.loads(out)
    ok(rc == 0 and sorted_desc(doc["rows"], lambda r: r["counts"]["instructions"]),
       "report --sort instructions", out + err)
    rc, out, err = run("--json", "report", "-i", f, "--sort", "pid")
    doc = json.loads(out)
    pids = [r["pid"] for r in doc["rows"]]
    ok(rc == 0 and pids == sorted(pids), "report --sort pid: ascending", out)
    rc, out, err = run("report", "-i", f, "--sort", "nope")
    ok(rc == 2 and "cannot sort by 'nope'" in err and "instructions" in err,
       "report --sort with an unknown column lists the columns", err)

    # ---- filters -----------------------------------------------------
    for opt, val, keep in (
            ("--cpu", "1", lambda r: r.cpu == 1),
            ("--pid", "101", lambda r: r.pid == 101 or r.tgid == 101),
            ("--pid", "100", lambda r: r.pid == 100 or r.tgid == 100),
            ("--comm", "beta", lambda r: r.comm == "beta")):
        rc, out, err = run("--json", "report", "-i", f, "--by", "task", opt, val)
        doc = json.loads(out)
        errors = compare_groups(sc, "task", doc["rows"], doc["total"], keep)
        ok(rc == 0 and not errors, "report %s %s: only those slices" % (opt, val),
           "\n".join(errors))

    # ---- dump -i: every record, in time order, every format ----------
    rc, out, err = run("--json", "dump", "-i", f)
    recs = json.loads(out) if rc == 0 else []
    times = [r["time_ns"] for r in recs]
    ok(rc == 0 and len(recs) == len(sc.records) and times == sorted(times) and
       sum(r["counts"]["cycles"] for r in recs) == sc.sums("cpu")[1]["counts"][0],
       "dump -i --json: every record, time order, counts as written",
       out[:500] + err)
    rc, out, err = run("--csv", "dump", "-i", f, "--cpu", "0")
    rows = list(csv.DictReader(io.StringIO(out)))
    want0 = [r for r in sc.records if r.cpu == 0]
    ok(rc == 0 and len(rows) == len(want0) and
       sum(int(r["instructions"]) for r in rows) == sum(r.deltas[1] for r in want0),
       "dump -i --csv --cpu 0: parses, the CPU's records and sums", out[:500] + err)
    rc, out, err = run("dump", "-i", f, "--comm", "alpha")
    body = out.split("\n\n")[0].splitlines()[1:]
    ok(rc == 0 and out.split()[0] == "TIME_S" and
       len(body) == sum(1 for r in sc.records if r.comm == "alpha"),
       "dump -i (plain) --comm alpha: header and one line per slice", out)
    rc, out, err = run("dump", "-i", f, "--follow")
    ok(rc == 2 and "--follow" in err, "dump -i with --follow is refused (usage, exit 2)", err)

    # ---- dump -i order: equal times across CPUs, a clock going back ---
    # The order is a stable sort by (time, cpu): here by Python's sorted().
    def order_case(name, recs, nr_cpus):
        sc = tdfile_gen.Scenario("set=generic", ["cycles", "instructions"],
                                 nr_cpus, recs)
        path = os.path.join(tmp, name + ".td")
        sc.write(path)
        want = [(r.cpu, r.seq) for r in sorted(sc.records,
                                               key=lambda r: (r.time_ns, r.cpu))]
        results = []
        for fmt in ("--json", "--csv", None):
            rc, out, err = run(*([fmt] if fmt else []), "dump", "-i", path)
            if fmt == "--json":
                got = [(r["cpu"], r["seq"]) for r in json.loads(out)] if rc == 0 else []
            elif fmt == "--csv":
                got = [(int(r["cpu"]), int(r["seq"]))
                       for r in csv.DictReader(io.StringIO(out))]
            else:
                # plain lines carry no seq: CPU and cycles identify them
                got = [tuple(int(x) for x in (ln.split()[1], ln.split()[7]))
                       for ln in out.splitlines()[1:]]
                want_plain = [(r.cpu, r.deltas[0]) for r in sorted(
                    sc.records, key=lambda r: (r.time_ns, r.cpu))]
                results.append(rc == 0 and got == want_plain)
                continue
            results.append(rc == 0 and got == want)
        ok(all(results), "dump -i order, %s: stable by (time, cpu) in every format"
           % name, "%s\n%s" % (results, out[:800] + err))

    t0 = tdfile_gen.START_NS + 100000
    same = []
    for i in range(40):       # 4 CPUs, drains of 3, every time shared
        cpu = (i // 3) % 4
        same.append(tdfile_gen.Rec(cpu, 10 + cpu, 10 + cpu, "same%d" % cpu,
                                   t0 + (i // 12) * 1000, 500, [1000 + i, i]))
    order_case("equal-times", same, 4)
    back = []
    for i in range(30):       # CPU 1's clock goes back half-way
        cpu = i % 3
        t = t0 + i * 1000 - (20000 if cpu == 1 and i > 15 else 0)
        back.append(tdfile_gen.Rec(cpu, 20 + cpu, 20 + cpu, "back%d" % cpu,
                                   t, 500, [2000 + i, i]))
    order_case("clock-back", back, 3)

    # ---- top -i --batch: snapshots over the recording ----------------
    rc, out, err = run("--json", "top", "-i", f, "--batch", "-d", "0.5")
    snaps = [json.loads(ln) for ln in out.splitlines() if ln.strip()]
    ok(rc == 0 and len(snaps) == 4 and
       sum(s["total"]["slices"] for s in snaps) == len(sc.records) and
       sum(s["total"]["counts"]["cycles"] for s in snaps) ==
       sc.sums("cpu")[1]["counts"][0],
       "top -i --batch --json -d 0.5: 4 snapshots of a 2 s file, all slices once",
       out[:800] + err)
    rc, out, err = run("top", "-i", f, "--batch", "-d", "1", "-n", "1")
    ok(rc == 0 and out.count("tdctl top - ") == 1 and "%CPU" in out and
       "\033" not in out,
       "top -i --batch -n 1: one snapshot, no terminal control codes", out)
    rc, out, err = run("top", "-i", f, "--batch", "-d", "1", "--csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    ok(rc == 0 and len([r for r in rows if r["type"] == "total"]) == 2 and
       sum(int(r["slices"]) for r in rows if r["type"] == "total") == len(sc.records),
       "top -i --batch --csv: a total row per snapshot", out[:500])
    # -p with -i selects the processes (or threads) in the file, as
    # report --pid does, whether or not such a process runs here.

    def keep(r):
        return r.pid == 100 or r.tgid == 100
    rc, out, err = run("--json", "top", "-i", f, "--batch", "-d", "0.5",
                       "-p", "100")
    snaps = [json.loads(ln) for ln in out.splitlines() if ln.strip()] \
        if rc == 0 else []
    want_tot = sc.sums("task", keep)[1]
    ok(rc == 0 and len(snaps) == 4 and
       all(r["pid"] == 100 for s in snaps for r in s["rows"]) and
       sum(s["total"]["slices"] for s in snaps) == want_tot["slices"] and
       sum(s["total"]["counts"]["cycles"] for s in snaps) ==
       want_tot["counts"][0],
       "top -i FILE -p 100: only process 100's slices of the file",
       out[:800] + err)

    # ---- output options anywhere and -o -----------------------------
    a = run("--json", "report", "-i", f)
    b = run("report", "-i", f, "--json")
    ok(a[0] == b[0] == 0 and a[1] == b[1], "--json before or after the command", b[2])
    outf = os.path.join(tmp, "out.txt")
    rc, out, err = run("report", "-i", f, "-o", outf, "--csv")
    with open(outf) as fh:
        content = fh.read()
    ok(rc == 0 and out == "" and content.startswith("type,pid,comm"),
       "report -o FILE --csv writes the CSV to FILE", err)
    rc, out, err = run("report", "-i", "-", stdin=None)
    with open(f, "rb") as fh:
        p = subprocess.run([TDCTL, "--json", "report", "-i", "-"], stdin=fh,
                           capture_output=True, text=True)
    ok(p.returncode == 0 and json.loads(p.stdout)["records"] == len(sc.records),
       "report -i - reads stdin", p.stderr)

    # ---- broken files: clear errors with offsets, never a crash ------
    good = scen["generic"].image()
    nev, ncpu = 2, 2
    hsize = 704 + 64 * nev
    tsize = 40 + 8 * ncpu

    def with_crc(data):
        body = data[:-8]
        return body + struct.pack("<II", zlib.crc32(body), 0)

    def put32(data, off, v):
        return data[:off] + struct.pack("<I", v) + data[off + 4:]

    rec5 = hsize + 5 * 128
    cases = [
        ("empty file", b"", "offset 0: not a tdctl record file"),
        ("text file", b"hello world\n" * 10, "offset 0: not a tdctl record file (bad magic)"),
        ("line endings converted", good[:4] + b"\n" + good[6:],
         "offset 0: bad magic (line endings"),
        ("version 3.0", good[:8] + struct.pack("<H", 3) + good[10:],
         "offset 8: unsupported format version 3.0"),
        # 2.0 (groups) with a 1.0 header: the first record's seq is read
        # as nr_groups (2), and the header is too short for them.
        ("version 2.0 without groups", good[:8] + struct.pack("<H", 2) + good[10:],
         "offset 16: header size %d, expected %d for 2 events and 2 groups"
         % (hsize, hsize + 8 + 2 * 16)),
        ("big-endian marker", put32(good, 12, 0x04030201),
         "offset 12: byte-order marker is big-endian"),
        ("record size 64", put32(good, 20, 64), "offset 20: record size 64"),
        ("nr_cpus 0", put32(good, 24, 0), "offset 24: nr_cpus 0"),
        ("nr_events 9", put32(good, 28, 9), "offset 28: nr_events 9"),
        ("header size", put32(good, 16, 900), "offset 16: header size 900"),
        ("cut in the header", good[:300], "offset 300: truncated: the header needs 704 bytes"),
        ("cut in a record", good[:hsize + 1000], "no trailer at the end of the file"),
        ("cut in the trailer", good[:-5], "no trailer at the end of the file"),
        ("bytes appended", good + b"\0" * 7, "no trailer at the end of the file"),
        ("label not terminated", good[:64] + b"x" * 64 + good[128:],
         "offset 64: label is not NUL-terminated"),
        ("control character in host", good[:256] + b"a\x07" + good[258:],
         "offset 257: host contains control character 0x07"),
        ("unknown config flags", with_crc(put32(good, 48, 0x80)),
         "offset 48: unknown configuration flags 0x80"),
        ("record CPU 7", with_crc(put32(good, rec5 + 32, 7)),
         "offset %d: record 5: CPU 7, the file has 2" % (rec5 + 32)),
        ("record unknown flags", with_crc(put32(good, rec5 + 44, 0x8000)),
         "offset %d: record 5: unknown flags 0x8000" % (rec5 + 44)),
        ("record delta beyond the events", with_crc(put32(good, rec5 + 64 + 8 * 3, 1)),
         "offset %d: record 5: count for event 3, only 2 configured" % (rec5 + 64 + 24)),
        ("record time before the start", with_crc(put32(good, rec5 + 8 + 4, 0)),
         "offset %d: record 5: time" % (rec5 + 8)),
        ("trailer record count", with_crc(put32(good, len(good) - tsize + 8, 99)),
         "offset %d: the trailer counts 99 records, the file holds 60"
         % (len(good) - tsize + 8)),
        ("a count changed (checksum)", put32(good, rec5 + 64, 12345),
         "offset %d: checksum" % (len(good) - 8)),
    ]
    for name, data, want in cases:
        path = os.path.join(tmp, "bad.td")
        with open(path, "wb") as fh:
            fh.write(data)
        rc, out, err = run("report", "-i", path)
        ok(rc == 1 and ("Error: %s: offset " % path) in err and want in err,
           "broken file, %s: '%s'" % (name, want), err + out)
    rc, out, err = run("--json", "dump", "-i", path)
    try:
        msg = json.loads(out)["error"]
    except (ValueError, KeyError):
        msg = ""
    ok(rc == 1 and "checksum" in msg and err == "",
       "JSON mode: the file error is a JSON error object", out + err)
    # idle tasks: one row per CPU, each key once in JSON and CSV
    for by, keys in (("task", ("pid", "tid", "cpu")), ("process", ("pid", "cpu"))):
        rc, out, err = run("--json", "report", "-i", files["generic"], "--by", by)
        rows = json.loads(out)["rows"] if rc == 0 else []
        jk = [tuple(r.get(k) for k in keys) for r in rows]
        rc2, out2, _ = run("--csv", "report", "-i", files["generic"], "--by", by)
        ck = [tuple(r.get(k) for k in keys)
              for r in csv.DictReader(io.StringIO(out2)) if r["type"] == "group"]
        idle = sorted(k for k in jk if k[0] == 0)
        ok(rc == 0 and rc2 == 0 and len(set(jk)) == len(jk) == len(ck) and
           len(set(ck)) == len(ck) and
           idle == sorted(((0, 0) if by == "task" else (0,)) + (c,) for c in (0, 1)),
           "report --by %s: the idle tasks' rows keyed by their cpu (%s), "
           "no key twice in JSON or CSV" % (by, idle), out[:300] + out2[:300] + err)
    rc, out, err = run("report", "-i", os.path.join(tmp, "missing.td"))
    ok(rc == 1 and "cannot open" in err and "missing.td" in err,
       "missing file: cannot open, with its name", err)


if __name__ == "__main__":
    main(setup=require_tdctl)
