#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tdctl dump formats its lines by hand (user/output/fmt.c); they must be what the
printf() formats of its columns write. Here the expected lines come from
Python's % formatting (the same conversions, rounded the same way) for
records with edge values: counts 0 and UINT64_MAX, ids UINT32_MAX, slices
of 0 ns and of centuries (past what the exact fast path takes), unreadable
counters, TopDown fractions below 0 and above 1 (flagged), comms of 15
bytes with quotes, backslashes, commas, control bytes, UTF-8 and bytes
that are not UTF-8, written by the one rule of user/output/text.h
(tdfile_gen.comm_text). Plain, CSV and JSON, byte for byte; the output is
valid UTF-8; JSON names the counts that could not be read
("unreadable") beside their nulls. TAP.
"""
import json
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]  # tap.py: selftests/lib
import tdfile_gen  # noqa: E402
from tap import TDCTL, main, ok, require_tdctl, test  # noqa: E402

U64 = (1 << 64) - 1
U32 = (1 << 32) - 1


class BRec(tdfile_gen.Rec):
    """A record whose comm is raw bytes."""

    def pack(self):
        d = list(self.deltas) + [0] * (8 - len(self.deltas))
        assert len(self.comm) < 16
        return (struct.pack("<QQQQIIII", self.seq, self.time_ns,
                            self.duration_ns, self.cgroup, self.cpu, self.pid,
                            self.tgid, self.flags)
                + self.comm + b"\0" * (16 - len(self.comm))
                + struct.pack("<8Q", *d))


COMMS = [b"plain", b'q"uo"te,comma', b"back\\sl\\ash", b"ctl\x01\x1f\x7f\tnl\n",
         b"hi\x80\xff\xc3\xa9bytes", b"exactly15chars!", b"", b"x",
         b"\xe6\x97\xa5\xe6\x9c\xac\xc2\x85\xe2\x82", b"caf\xc3\xa9 \xf0\x9f\x98\x80"]


def records(nev, start, span):
    recs = []
    t = start + span // 2
    for i in range(48):
        cpu = i % 3
        deltas = [(i * 7919 + e * 104729) % 5_000_000 for e in range(nev)]
        if i % 8 == 1:
            deltas = [U64] * nev                    # the largest counts
        if i % 8 == 2:
            deltas = [0] * nev                      # nothing counted
        if i % 8 == 3:                              # fractions out of range
            deltas = [1000 + 999_000 * (e % 2) for e in range(nev)]
        flags = 0x100 if i % 2 else 0
        if i % 8 == 4:
            flags |= 0b101 & ((1 << nev) - 1)     # unreadable counters
            for e in range(nev):
                if flags & (1 << e):
                    deltas[e] = 0
        if i == 5:
            flags |= 0x200                          # first after start
        pid = tgid = 100 + i % 5
        if i % 8 == 6:
            pid, tgid = U32, U32 - 1
        comm = COMMS[i % len(COMMS)]
        if i % 8 == 7:
            pid = tgid = 0
            flags = 0x400
            comm = b"swapper/%d" % cpu
        dur = [0, 1, 999, 123_456_789, 4_503_599_627_370_497, t - 1][i % 6]
        recs.append(BRec(cpu, pid, tgid, comm, t + (i // 3), min(dur, t),
                         deltas, cgroup=[0, 1, U64][i % 3], flags=flags))
    return recs


def flags_str(f):
    s = "P" if f & 0x100 else "S"
    return s + ("F" if f & 0x200 else "") + ("I" if f & 0x400 else "") + \
        ("E" if f & 0xff else "")


def json_str(c):
    out = ['"']
    for b in c:
        ch = chr(b)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif b < 0x20 or b >= 0x7f:
            out.append("\\u%04x" % b)
        else:
            out.append(ch)
    return "".join(out) + '"'


L1 = ("retiring", "bad_speculation", "frontend_bound", "backend_bound")


def vocabulary():
    """Column name -> (plain title, decimals): tdctl's one table."""
    p = subprocess.run([TDCTL, "help", "--json"], capture_output=True)
    return {c["name"]: (c["title"], c["decimals"])
            for c in json.loads(p.stdout)["columns"]}


def time_s(ns, start, prec):
    """Seconds into the recording, truncated to prec decimals; prec None:
    the nanoseconds exactly, without trailing zeros (JSON and CSV: the
    shortest text of the value, tdctl(8))."""
    rel = abs(ns - start)
    sign = "-" if ns < start else ""
    if prec is None:
        frac = ("%09d" % (rel % 10**9)).rstrip("0")
        return "%s%d%s" % (sign, rel // 10**9, "." + frac if frac else "")
    return "%s%d.%0*d" % (sign, rel // 10**9, prec,
                          rel % 10**9 // 10**(9 - prec))


def expected(sc, metric_names, metrics, voc):
    """The three outputs, from the records and the decoded metrics (taken
    from tdctl's JSON, printed there in the shortest form that
    round-trips, as Python's repr() of a float)."""
    order = sorted(range(len(sc.records)),
                   key=lambda k: (sc.records[k].time_ns, sc.records[k].cpu))
    ev = sc.events
    evw = [max(14, len(e)) for e in ev]
    titles = [voc[m][0] for m in metric_names]
    mw = [max(9, len(t)) for t in titles]
    hdr = "%12s %3s %7s %7s %-16s %10s %-4s" % (
        "TIME_S", "CPU", "PID", "TID", "COMM", "SLICE_US", "FLG")
    hdr += "".join(" %*s" % (w, e) for w, e in zip(evw, ev))
    hdr += "".join(" %*s" % (w, t) for w, t in zip(mw, titles))
    plain = [hdr]
    csv = [",".join(["seq,time_ns,time_s,cpu,pid,tid,comm,duration_ns,cgroup_id,flags"]
                    + ev + metric_names)]
    objs = []
    marked = flagged = False
    for k, m in zip(order, metrics):
        r = sc.records[k]
        fl = flags_str(r.flags)
        ts = time_s(r.time_ns, sc.start_ns, None)
        line = "%12s %3d %7d %7d %s %10.3f %-4s" % (
            time_s(r.time_ns, sc.start_ns, 6), r.cpu, r.tgid,
            r.pid, tdfile_gen.pad(tdfile_gen.comm_text(r.comm), 16),
            r.duration_ns / 1e3, fl)
        c = "%d,%d,%s,%d,%d,%d,\"%s\",%d,%d,\"%s\"" % (
            r.seq, r.time_ns, ts, r.cpu, r.tgid, r.pid,
            tdfile_gen.comm_text(r.comm).replace('"', '""'), r.duration_ns,
            r.cgroup, fl)
        counts, unread = [], []
        for e, name in enumerate(ev):
            bad = r.flags & (1 << e)
            line += " %*s" % (evw[e], "<error>") if bad else " %*d" % (evw[e], r.deltas[e])
            c += "," if bad else ",%d" % r.deltas[e]
            counts.append("%s:%s" % (json_str(name.encode()),
                                     "null" if bad else "%d" % r.deltas[e]))
            if bad:
                unread.append(json_str(name.encode()))
        # '*' before the largest Level-1 class (the first of equals)
        best = None
        for name in metric_names:
            if name in L1 and m[name] is not None and \
                    (best is None or m[name] > m[best]):
                best = name
        jm = []
        for i, name in enumerate(metric_names):
            v = m[name]
            if v is None:
                line += " %*s" % (mw[i], "-")
                c += ","
            else:
                cell = "*" if name == best else ""
                if name == best:
                    marked = True
                if name in ("ipc", "cpi"):
                    cell += "%.*f" % (voc[name][1], v)
                else:
                    cell += "%.1f%%" % (100.0 * v)
                    if v < 0 or v > 1:
                        cell += "!"
                        flagged = True
                line += " %*s" % (mw[i], cell)
                c += "," + json_num(v)
            jm.append("%s:%s" % (json_str(name.encode()),
                                 "null" if v is None else json_num(v)))
        plain.append(line)
        csv.append(c)
        objs.append(
            '{"seq":%d,"time_ns":%d,"time_s":%s,"cpu":%d,"pid":%d,"tid":%d,'
            '"comm":%s,"duration_ns":%d,"cgroup_id":%d,"preempted":%s,"first":%s,'
            '"idle":%s,"counts":{%s},"unreadable":[%s],"metrics":{%s}}' % (
                r.seq, r.time_ns, ts, r.cpu, r.tgid, r.pid,
                json.dumps(tdfile_gen.comm_text(r.comm), ensure_ascii=False),
                r.duration_ns, r.cgroup, *(("true" if r.flags & b else "false")
                                           for b in (0x100, 0x200, 0x400)),
                ",".join(counts), ",".join(unread), ",".join(jm)))
    if marked or flagged:
        plain.append("")
        if marked:
            plain.append("* the largest TopDown Level-1 class of the row: "
                         "the likely bottleneck")
        if flagged:
            plain.append("! outside 0..100% (counting skid): shown as computed, "
                         "not clamped")
    return ("\n".join(plain) + "\n", "\n".join(csv) + "\n",
            "[" + ",".join(objs) + "]\n")


def json_num(v):
    """The shortest text that reads back as v (what bpftool's and perf's
    JSON readers expect): %.15g, %.16g or %.17g, the first that reads
    back as v (test_fmt.c checks that no fewer digits would)."""
    for p in range(15 if abs(v) >= 2.2250738585072014e-308 else 1, 18):
        t = "%.*g" % (p, v)
        if float(t) == v:
            return t
    return "%.17g" % v


def tdctl(*args):
    p = subprocess.run([TDCTL] + list(args), capture_output=True)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines())):
        if x != y:
            return "line %d:\n got  %r\n want %r" % (i, x, y)
    return "lengths %d, %d" % (len(a), len(b))


@test
def dump_format(tmp):
    voc = vocabulary()
    span = 1 << 63      # slices up to 146 years: above 2^52 us, past the fast path
    sets = [("generic", "set=generic", ["cycles", "instructions"], 0),
            ("n2", "set=arm_neoverse_n2 slots=5 rev=r0p0",
             tdfile_gen.N2_EVENTS, 5)]
    for name, label, events, slots in sets:
        recs = records(len(events), tdfile_gen.START_NS, span)
        sc = tdfile_gen.Scenario(label, events, 3, recs, slots=slots,
                                 duration_ns=span)
        path = os.path.join(tmp, name + ".td")
        sc.write(path)
        rc, out, err = tdctl("--json", "dump", "-i", path)
        try:
            doc = json.loads(out)
        except ValueError:
            doc = []
        ok(rc == 0 and len(doc) == len(recs), "%s: dump -i --json parses" % name,
           out[:300] + err)
        if not doc:
            continue
        names = list(doc[0]["metrics"])
        want_plain, want_csv, want_json = expected(
            sc, names, [d["metrics"] for d in doc], voc)
        if name == "n2":
            ok("%!" in want_plain and "         -" in want_plain,
               "n2: the records give flagged and undecodable metrics",
               want_plain[:400])
        for fmt, want in ((None, want_plain), ("--csv", want_csv),
                          ("--json", want_json)):
            rc, out, err = tdctl(*([fmt] if fmt else []), "dump", "-i", path)
            ok(rc == 0 and out == want,
               "%s: dump -i %s as printf formats it" % (name, fmt or "(plain)"),
               first_diff(out, want) + err)
        # --pretty: the same records, indented four spaces a level.
        rc, out, err = tdctl("--pretty", "dump", "-i", path)
        try:
            pretty = json.loads(out)
        except ValueError:
            pretty = None
        ok(rc == 0 and pretty == json.loads(want_json) and
           out.startswith('[\n    {\n        "seq": ') and
           '\n            "%s": ' % events[0] in out,
           "%s: dump -i --pretty: the --json records, indented" % name,
           out[:400] + err)


if __name__ == "__main__":
    main(setup=require_tdctl)
