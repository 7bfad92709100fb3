#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Comms are bytes from the kernel: every output writes them by one rule
(user/output/text.h; tdfile_gen.comm_text is an independent copy of it):
valid UTF-8 passes, control characters, the backslash and bytes that are
not UTF-8 become \\xNN. Checked in report (plain, CSV, JSON), top and
timeline on a record file with such comms; dump is checked byte for byte
by test_dump_format.py. Every output must be valid UTF-8, and the plain
tables stay aligned with multi-byte characters. TAP.
"""
import csv
import io
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]  # tap.py here or in selftests/lib
import tdfile_gen  # noqa: E402
from tap import TDCTL, main, ok, require_tdctl, test  # noqa: E402

COMMS = [b"plain", b"caf\xc3\xa9", b"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
         b"bad\xff\xfe", b"cut\xe6\x97", b"ctl\x1b[2J\n", b"c1\xc2\x9bx",
         b"back\\slash", b'q"uo,te']


class BRec(tdfile_gen.Rec):
    def pack(self):
        d = list(self.deltas) + [0] * (8 - len(self.deltas))
        return (tdfile_gen.struct.pack("<QQQQIIII", self.seq, self.time_ns,
                                       self.duration_ns, self.cgroup, self.cpu,
                                       self.pid, self.tgid, self.flags)
                + self.comm + b"\0" * (16 - len(self.comm))
                + tdfile_gen.struct.pack("<8Q", *d))


def run(*args):
    p = subprocess.run([TDCTL] + list(args), capture_output=True)
    try:
        out = p.stdout.decode("utf-8")
        utf8 = True
    except UnicodeDecodeError:
        out, utf8 = p.stdout.decode("latin-1"), False
    return p.returncode, out, p.stderr.decode("latin-1"), utf8


@test
def test_locale(tmp):
    """tdctl's own '\u00b1' (an estimate's error) in plain output only
    in a UTF-8 locale; "+-" in the C locale (LC_ALL=C, or no locale
    variable set), as perf writes ASCII there. JSON stays UTF-8."""
    path = os.path.join(tmp, "rot.td")
    tdfile_gen.grouped_small().write(path)
    base = {k: v for k, v in os.environ.items()
            if k not in ("LC_ALL", "LC_CTYPE", "LANG")}
    for name, extra, pm in (("LC_ALL=C", {"LC_ALL": "C", "LANG": "C.UTF-8"},
                             "+-"),
                            ("no locale variable", {}, "+-"),
                            ("LANG=C.UTF-8", {"LANG": "C.UTF-8"}, "\u00b1"),
                            ("LC_CTYPE=en_US.utf8", {"LC_CTYPE": "en_US.utf8"},
                             "\u00b1")):
        env = dict(base, **extra)
        for args in (("report", "-i", path), ("top", "-b", "-n", "2", "-i", path)):
            p = subprocess.run([TDCTL] + list(args), capture_output=True, env=env)
            out = p.stdout.decode("utf-8", "replace")
            rows = [ln for ln in out.splitlines() if "[" in ln and "%]" in ln]
            other = "\u00b1" if pm == "+-" else "+-"
            good = p.returncode == 0 and rows and \
                any(pm in ln for ln in rows) and not any(other in ln for ln in rows)
            if pm == "+-":
                good = good and all(b < 0x80 for b in p.stdout)
            ok(good, "%s under %s: estimates and legend with %r" %
               (args[0], name, pm), out[-600:] + p.stderr.decode())


@test
def comms(tmp):
    recs = [BRec(0, 10 + i, 10 + i, c, tdfile_gen._time(i, len(COMMS)),
                 1000, [100 * (i + 1), 50]) for i, c in enumerate(COMMS)]
    sc = tdfile_gen.Scenario("set=generic", ["cycles", "instructions"], 1, recs)
    path = os.path.join(tmp, "t.td")
    sc.write(path)
    want = sorted(tdfile_gen.comm_text(c) for c in COMMS)
    ok("caf\u00e9" in want and "bad\\xff\\xfe" in want and
       "ctl\\x1b[2J\\x0a" in want and "back\\x5cslash" in want and
       "c1\\xc2\\x9bx" in want and "cut\\xe6\\x97" in want,
       "the rule, as the test reads it", want)

    rc, out, err, utf8 = run("report", "-i", path, "--by", "comm", "--json")
    try:
        got = sorted(r["comm"] for r in json.loads(out)["rows"])
    except (ValueError, KeyError):
        got = None
    ok(rc == 0 and utf8 and got == want, "report --json: every comm by the rule",
       "%r\n%s" % (got, err))

    rc, out, err, utf8 = run("report", "-i", path, "--by", "comm", "--csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    got = sorted(r["comm"] for r in rows if r["type"] == "group")
    ok(rc == 0 and utf8 and got == want, "report --csv: every comm by the rule",
       "%r\n%s" % (got, err))

    rc, out, err, utf8 = run("report", "-i", path, "--by", "task")
    table = [ln for ln in out.splitlines() if ln and not ln.startswith("#")]
    hdr = table[0] if table else ""
    rows = [ln for ln in table[1:] if not ln.startswith("total")]
    found = sorted(c for c in want if any(" %s " % c in ln for ln in rows))
    col = hdr.find("SLICES")
    # on a terminal: a wide character takes two columns
    disp = ["".join(c + ("\0" if tdfile_gen.columns(c) == 2 else "") for c in ln)
            for ln in rows]
    aligned = col > 0 and all(len(ln) > col and ln[col - 1] == " " and
                              ln[col + 5] != " " for ln in disp)
    ok(rc == 0 and utf8 and found == want and "\x1b" not in out,
       "report (plain): every comm by the rule, no control bytes", out + err)
    ok(utf8 and aligned and len({len(ln) for ln in disp}) == 1,
       "report (plain): the columns after a UTF-8 comm (CJK: two columns a "
       "character) stay aligned", out)

    rc, out, err, utf8 = run("top", "-i", path, "--batch", "-n", "1", "-d", "5",
                             "--by", "comm")
    found = sorted(c for c in want if c in out)
    ok(rc == 0 and utf8 and found == want and "\x1b" not in out,
       "top --batch: every comm by the rule", out + err)

    trace = os.path.join(tmp, "t.json")
    rc, _, err, _ = run("timeline", "-i", path, "-o", trace)
    with open(trace, "rb") as fh:
        raw = fh.read()
    try:
        t = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        t = {"traceEvents": []}
    names = sorted(e["name"] for e in t["traceEvents"] if e["ph"] == "X")
    threads = sorted(e["args"]["name"] for e in t["traceEvents"]
                     if e["ph"] == "M" and e["name"] == "thread_name" and
                     e["pid"] < 1 << 22)
    ok(rc == 0 and names == want and threads == want,
       "timeline: slice and thread names by the rule", "%r\n%r\n%s" % (
           names, threads, err))


class BScenario(tdfile_gen.Scenario):
    """Header strings as bytes: host, cpu, target, label, event names."""

    def __init__(self, strings, *a, **kw):
        super().__init__(*a, **kw)
        self.strings = strings

    def header(self):
        h = bytearray(super().header())
        # offsets of Documentation/file-format.rst: label, arch, kernel,
        # host, cpu, target, then 64 bytes per event (its name at 32)
        where = {"label": (64, 64), "host": (256, 64), "cpu": (320, 128),
                 "target": (448, 256)}
        for i in range(len(self.events)):
            where["event%d" % i] = (704 + 64 * i + 32, 32)
        for k, v in self.strings.items():
            off, size = where[k]
            assert len(v) < size and b"\0" not in v
            h[off:off + size] = v + b"\0" * (size - len(v))
        return bytes(h)


def clean(text):
    """No byte that is not UTF-8, no C0 but newline, no DEL or C1."""
    return not any(ord(c) < 0x20 and c != "\n" or 0x7f <= ord(c) < 0xa0
                   for c in text)


@test
def test_header_text(tmp):
    """Every string of a record file's header goes out by the same rule in
    plain and CSV output: host, CPU, target, label
    and event names with bytes that are not UTF-8, C1 controls (as bytes
    and as UTF-8) and a backslash."""
    strings = {"host": b"ho\x85st\xc2\x9b1m", "cpu": b"cpu\xc2\x9b\xe9 0x41",
               "target": b"all\x9btasks", "event0": b"cyc\xff\xc2\x9bZ\\x",
               "event1": b"ins\xc2\x85,\"yz"}
    sc = BScenario(strings, "set=generic", ["e0", "e1"], 1,
                   [tdfile_gen.Rec(0, 10, 10, "t", tdfile_gen._time(i, 4),
                                   1000, [300, 200]) for i in range(4)])
    path = os.path.join(tmp, "hdr.td")
    sc.write(path)
    text = {k: tdfile_gen.comm_text(v) for k, v in strings.items()}
    ev = [text["event0"], text["event1"]]
    for args, want in (
            (("report", "-i", path), [text["host"], text["cpu"], text["target"]] + ev),
            (("report", "-i", path, "--csv"), ev),
            (("dump", "-i", path), [e[:11] for e in ev]),
            (("dump", "-i", path, "--csv"), ev),
            (("top", "-i", path, "--batch", "-n", "1"), ev),
            (("top", "-i", path, "--csv", "-n", "1"), ev)):
        rc, out, err, utf8 = run(*args)
        if "--csv" in args:
            head = next(csv.reader(io.StringIO(out)), [])
            found = [w for w in want if w in head]
        else:
            found = [w for w in want if w in out]
        ok(rc == 0 and utf8 and clean(out) and found == want,
           "%s%s: the header's strings by the rule, no raw bytes"
           % (args[0], " --csv" if "--csv" in args else ""),
           "%r\n%s%s" % (want, out[:600], err))
    # a label with such bytes: the warning about it and top's status line
    sc2 = BScenario({"label": b"set=gen\xc2\x9bric"}, "set=generic",
                    ["cycles", "instructions"], 1, sc.records)
    path = os.path.join(tmp, "label.td")
    sc2.write(path)
    want = tdfile_gen.comm_text(b"set=gen\xc2\x9bric")
    rc, out, err, utf8 = run("report", "-i", path)
    ok(rc == 0 and utf8 and clean(out) and clean(err) and want in out and
       "gen\\xc2\\x9bric" in err,
       "report: a label with a C1 control, by the rule in the header and "
       "the warning", out[:400] + err)
    rc, out, err, utf8 = run("top", "-i", path, "--batch", "-n", "1")
    ok(rc == 0 and utf8 and clean(out) and want in out,
       "top --batch: the label by the rule in the status line", out[:300])


def random_comm(rnd):
    """Up to 15 bytes: ASCII, valid UTF-8 of every length, C1, surrogates,
    overlongs, stray continuation bytes, cut characters."""
    pieces = []
    for _ in range(rnd.randint(0, 6)):
        k = rnd.randint(0, 7)
        if k == 0:
            pieces.append(bytes([rnd.randint(1, 0x7f)]))
        elif k == 1:
            pieces.append(chr(rnd.choice([rnd.randint(0x80, 0x7ff),
                                          rnd.randint(0x800, 0xd7ff),
                                          rnd.randint(0xe000, 0xffff),
                                          rnd.randint(0x10000, 0x10ffff)]))
                          .encode())
        elif k == 2:
            pieces.append(bytes([rnd.randint(0x80, 0xff)]))
        elif k == 3:
            pieces.append(b"\xed" + bytes([rnd.randint(0xa0, 0xbf), 0x80]))
        elif k == 4:
            pieces.append(rnd.choice([b"\xc0\xaf", b"\xe0\x80\xaf",
                                      b"\xf0\x80\x80\xaf", b"\xf4\x90\x80\x80",
                                      b"\xc2\x85", b"\\"]))
        elif k == 5:
            pieces.append(chr(rnd.randint(0xe000, 0xffff)).encode()[:2])
        else:
            pieces.append(bytes([rnd.randint(0x20, 0x7e)]))
    b = b"".join(pieces).replace(b"\0", b"")[:15]
    return b


@test
def test_random(tmp):
    """2000 random comms: dump --json gives each exactly as Python's strict
    UTF-8 decoder says the rule does."""
    import random
    rnd = random.Random(15)
    comms = [random_comm(rnd) for _ in range(2000)]
    recs = [BRec(0, 10 + i % 50, 10 + i % 50, c,
                 tdfile_gen._time(i, len(comms)), 10, [1, 1])
            for i, c in enumerate(comms)]
    sc = tdfile_gen.Scenario("set=generic", ["cycles", "instructions"], 1, recs)
    path = os.path.join(tmp, "random.td")
    sc.write(path)
    rc, out, err, utf8 = run("--json", "dump", "-i", path)
    try:
        got = [r["comm"] for r in json.loads(out)]
    except ValueError:
        got = []
    want = [tdfile_gen.comm_text(c) for c in comms]
    bad = [(c, g, w) for c, g, w in zip(comms, got, want) if g != w]
    ok(rc == 0 and utf8 and len(got) == len(want) and not bad,
       "2000 random comms: dump --json writes each by the rule",
       "%d/%d differ, e.g. %r" % (len(bad), len(got), bad[:3]))
    rc, out, err, utf8 = run("dump", "-i", path)
    rows = out.splitlines()[1:]
    bad = [w for w, ln in zip(want, rows) if " %s " % tdfile_gen.pad(w, 16) not in ln]
    ok(rc == 0 and utf8 and len(rows) == len(want) and not bad,
       "... and the plain table, padded to 16 characters", bad[:3])


if __name__ == "__main__":
    main(setup=require_tdctl)
