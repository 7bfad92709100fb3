#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests: record files with event groups (format 2.0,
Documentation/file-format.rst) and the estimates read from them
(Documentation/design.rst, "Estimates from rotated groups"), written from
the specification with the independent writer tdfile_gen.py:

 - the C writer rewrites a Python-written file byte for byte (2.0 and 1.0);
 - every limit of the groups section at +-1, malformed groups and records
   refused at the offset the specification gives;
 - every reader (report, dump, top, timeline) reads a 2.0 file, and
   one refuses a major it does not know, clearly;
 - per-group sums, coverage exact, estimates within their errors at the
   expected rate on simulated recordings whose truth is known (tdestimate,
   a test helper, prints what the estimator returns);
 - unknown, never 0, with too few clusters. TAP.
"""
import json
import math
import os
import random
import struct
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
import tdfile_gen as T  # noqa: E402
from tap import TDCTL, TOP, main, ok, require, run, test  # noqa: E402

OUT = os.environ.get("OUT") or os.path.join(TOP, "build/host/")
TDESTIMATE = os.path.join(OUT, "tdestimate")
MIN_CLUSTERS = 8        # design.rst: below this an estimate is unknown


def estimate(path, *args):
    p = subprocess.run([TDESTIMATE, path] + list(args), capture_output=True,
                       text=True)
    return p.returncode, p.stdout, p.stderr


def read(path):
    with open(path, "rb") as fh:
        return fh.read()


def refile(sc, path, patch=None):
    """Write sc; patch(image bytearray) edits it, the CRC is redone."""
    for i, r in enumerate(sc.records):
        if r.seq is None:
            r.seq = i + 1
    img = bytearray(sc.header() + sc.body() + sc.trailer_without_crc())
    if patch:
        patch(img)
    img += struct.pack("<II", zlib.crc32(bytes(img)), 0)
    with open(path, "wb") as fh:
        fh.write(img)


# ---- the format -------------------------------------------------------------

@test
def test_rewrite(tmp):
    src, dst = os.path.join(tmp, "a.td"), os.path.join(tmp, "b.td")
    for name, make in list(T.SCENARIOS_GROUPS.items()) + list(T.SCENARIOS.items()):
        make().write(src)
        rc, out, err = estimate(src, "--rewrite", dst)
        ok(rc == 0 and read(src) == read(dst),
           "%s: the C writer rewrites tdfile_gen's file byte for byte" % name,
           err)


def small_groups(pool=3, groups=None, rotate_ms=20, recs=None):
    """A 2.0 scenario with a few hand-made records."""
    events = ["ev%d" % i for i in range(pool)]
    groups = groups if groups is not None else [[0, 1], [0] + list(range(2, pool))]
    if recs is None:
        recs = [T.Rec(0, 10, 10, "a", T.START_NS + 1_000_000 * (i + 1),
                      500_000, [100 * (i + 1)] * len(groups[i % len(groups)]),
                      flags=(i % len(groups)) << 16)
                for i in range(6)]
    return T.Scenario("set=generic", events, 1, recs, groups=groups,
                      rotate_ms=rotate_ms)


def expect(path, want_ok, off, what, text=None):
    rc, out, err = estimate(path)
    if want_ok:
        return ok(rc == 0, what, err)
    return ok(rc == 1 and ("offset %d:" % off) in err and
              (text is None or text in err),
              "%s: refused at offset %d" % (what, off), err)


@test
def test_limits(tmp):
    path = os.path.join(tmp, "l.td")

    def gsec(sc):          # offset of the groups section
        return 704 + 64 * len(sc.events)

    # pool size at +-1 (1.x: 8; 2.x: 32)
    sc = small_groups(pool=32, groups=[list(range(8)), [0] + list(range(8, 15)),
                                       [0] + list(range(15, 22)),
                                       [0] + list(range(22, 29)), [0, 29, 30, 31]])
    sc.records = [T.Rec(0, 10, 10, "a", T.START_NS + 1000, 500, [1] * 8,
                        flags=0)]
    refile(sc, path)
    expect(path, True, 0, "a pool of 32 events (TOPDOWN_MAX_POOL) is read")
    refile(sc, path, lambda b: b.__setitem__(slice(28, 32), struct.pack("<I", 33)))
    expect(path, False, 28, "a pool of 33")
    refile(sc, path, lambda b: b.__setitem__(slice(28, 32), struct.pack("<I", 0)))
    expect(path, False, 28, "a pool of 0")

    # nr_groups at +-1
    sc = small_groups(pool=9, groups=[[0, i] for i in range(1, 9)])
    sc.records = sc.records[:1]
    refile(sc, path)
    expect(path, True, 0, "8 groups (TOPDOWN_MAX_GROUPS) are read")
    g = gsec(sc)
    refile(sc, path, lambda b: b.__setitem__(slice(g, g + 4), struct.pack("<I", 9)))
    expect(path, False, g, "9 groups", "nr_groups 9")
    refile(sc, path, lambda b: b.__setitem__(slice(g, g + 4), struct.pack("<I", 0)))
    expect(path, False, g, "0 groups", "nr_groups 0")

    # a group's events at +-1
    sc = small_groups(pool=9, groups=[list(range(8)), [0, 8]])
    sc.records = [T.Rec(0, 10, 10, "a", T.START_NS + 1000, 500, [1] * 8)]
    refile(sc, path)
    expect(path, True, 0, "a group of 8 events (TOPDOWN_MAX_EVENTS) is read")
    g = gsec(sc) + 8
    refile(sc, path, lambda b: b.__setitem__(slice(g, g + 4), struct.pack("<I", 9)))
    expect(path, False, g, "a group of 9 events")
    refile(sc, path, lambda b: b.__setitem__(slice(g + 16, g + 20), struct.pack("<I", 0)))
    expect(path, False, g + 16, "a group of 0 events")

    # rotate_ms at +-1
    sc = small_groups()
    g = gsec(sc)
    for ms, good in ((1, True), (60000, True), (0, False), (60001, False)):
        refile(sc, path, lambda b, ms=ms:
               b.__setitem__(slice(g + 4, g + 8), struct.pack("<I", ms)))
        expect(path, good, g + 4, "rotate_ms %d" % ms)

    # malformed groups
    e0 = g + 8                                  # group 0 entry
    e1 = g + 8 + 16                             # group 1 entry: [0, 2]
    cases = [
        ("group flags not zero", e0 + 4, lambda b: b.__setitem__(e0 + 4, 1)),
        ("a pool index past the pool", e1 + 9, lambda b: b.__setitem__(e1 + 9, 3)),
        ("a pool entry twice in a group", e1 + 9, lambda b: b.__setitem__(e1 + 9, 0)),
        ("a byte past the group's events", e0 + 8 + 2, lambda b: b.__setitem__(e0 + 10, 1)),
        ("a pool entry in no group", 704 + 2 * 64,
         lambda b: b.__setitem__(e1 + 9, 1)),
    ]
    for what, off, patch in cases:
        refile(sc, path, patch)
        expect(path, False, off, what)
    # the header size of 2.0 is exact
    refile(sc, path, lambda b: b.__setitem__(slice(16, 20),
                                             struct.pack("<I", sc.header_size() + 8)))
    expect(path, False, 16, "2.0 with a header 8 bytes too long")


@test
def test_records(tmp):
    path = os.path.join(tmp, "r.td")

    def one(flags, deltas, groups=None, major1=False):
        rec = T.Rec(0, 10, 10, "a", T.START_NS + 1000, 500, deltas, flags=flags)
        if major1:
            return T.Scenario("set=generic", ["ev0", "ev1"], 1, [rec])
        return small_groups(groups=groups, recs=[rec])

    ROT = T.REC_ROTATED
    cases = [
        ("a record of group 1 of 2", one(1 << 16, [5, 6]), True),
        ("a record of group 2 of 2", one(2 << 16, [5, 6]), False),
        ("a rotated record with every error bit of its group",
         one(ROT | (1 << 16) | 3, [0, 0]), True),
        ("a rotated record without them", one(ROT | (1 << 16) | 1, [0, 0]), False),
        ("a rotated record with counts", one(ROT | 3, [0, 7]), False),
        ("a count past the group's events",
         one(0, [1, 2, 3], groups=[[0, 1], [0, 1, 2]]), False),
        ("an error bit past the group's events",
         one(4, [1, 2], groups=[[0, 1], [0, 1, 2]]), False),
        ("1.0: a record with group bits", one(1 << 16, [1, 2], major1=True), False),
        ("1.0: a rotated record", one(ROT | 3, [0, 0], major1=True), False),
    ]
    for what, sc, good in cases:
        refile(sc, path)
        off = sc.header_size() + 44                 # the flags
        if "count past" in what:
            off = sc.header_size() + 64 + 16        # delta[2]
        if "with counts" in what:
            off = sc.header_size() + 64 + 8         # delta[1]
        rc, out, err = estimate(path)
        if good:
            ok(rc == 0, what + " is read", err)
        else:
            ok(rc == 1 and ("offset %d:" % off) in err,
               what + ": refused at offset %d" % off, err)


@test
def test_refusals(tmp):
    path = os.path.join(tmp, "g.td")
    T.grouped_small().write(path)
    # Every command that reads record files reads 2.0 (what each shows:
    # test_report_groups.py, test_timeline_groups.py); a reader without
    # TD_FILE_GROUPS refuses it at offset 8 (test_tdfile.c).
    for args in (("report", "-i", path), ("dump", "-i", path),
                 ("top", "-i", path, "--batch", "-n", "1"),
                 ("timeline", "-i", path, "-o", os.path.join(tmp, "t.json"))):
        rc, out, err = run(*args)
        ok(rc == 0, "'tdctl %s' reads a 2.0 file" % args[0],
           "rc %d\n%s%s" % (rc, out[-300:], err))
    sc = T.grouped_small()
    refile(sc, path, lambda b: b.__setitem__(slice(8, 10), struct.pack("<H", 3)))
    rc, out, err = estimate(path)
    ok(rc == 1 and "offset 8: unsupported format version 3.0 (this tdctl reads 1.x and 2.x)" in err,
       "a major this tdctl does not know is refused, naming it (what a 1.x "
       "reader says of 2.0)", err)


# ---- sums, coverage, estimates ------------------------------------------------

def sim(seed, ngroups=2, rotate_ms=20, ncpu=4, ntask=4, dur=1_000_000_000,
        p_error=0.01, rho=0.3, short=False):
    rng = random.Random(seed)
    events = ["cycles"] + ["e%d" % i for i in range(2 * ngroups)]
    groups = [[0, 1 + 2 * g, 2 + 2 * g] for g in range(ngroups)]
    tasks, pid = [], 1000
    for c in range(ncpu):
        for _ in range(ntask):
            rates = [rng.uniform(1000, 3000)] + [rng.uniform(50, 2000)
                                                 for _ in range(2 * ngroups)]
            ph = []
            if rng.random() < 0.5:
                ph = [(rng.uniform(0.3, 0.7),
                       [r * rng.uniform(0.3, 3) for r in rates])]
            cpus = [c] if rng.random() < 0.7 else [c, (c + 1) % ncpu]
            tasks.append(T.Task(pid, pid - pid % 2, "t%d" % pid, rates, cpus,
                                slice_ns=rng.choice([100_000, 300_000, 1_000_000]),
                                phases=ph, rho=rho,
                                weight=0.05 if short and pid % 3 == 0 else 1.0))
            pid += 1
    return T.simulate(rng, events, groups, tasks, nr_cpus=ncpu,
                      rotate_ms=rotate_ms, duration_ns=dur, p_error=p_error)


def group_sums(sc):
    """pid -> per group [slices, time, errors, error_ns, counts]; rotated."""
    out = {}
    for r in sc.records:
        if not r.pid:
            continue
        g = (r.flags >> 16) & 0xf
        s = out.setdefault(r.pid, {"rotated": 0, "g": [
            [0, 0, 0, 0, [0] * len(x)] for x in sc.groups]})
        if r.flags & T.REC_ROTATED:
            s["rotated"] += 1
        elif r.flags & 0xff:
            s["g"][g][2] += 1
            s["g"][g][3] += r.duration_ns
        else:
            s["g"][g][0] += 1
            s["g"][g][1] += r.duration_ns
            for j, d in enumerate(r.deltas):
                s["g"][g][4][j] += d
    return out


def zscores(sc, truth, rows, zs, unknown):
    """Append |estimate - truth| / error of every estimated count and
    metric; count the unknowns. False if a coverage or a sum is wrong."""
    good = True
    sums = group_sums(sc)
    ev = sc.events
    for row in rows:
        tr = truth.get(row["tid"])
        if tr is None:
            continue
        s = sums[row["tid"]]
        good &= row["rotated"] == s["rotated"] == tr["rotated"]
        for g, gs in enumerate(row["groups"]):
            want = s["g"][g]
            good &= [gs["slices"], gs["time_ns"], gs["errors"],
                     gs["error_ns"], gs["counts"]] == want
            good &= gs["time_ns"] == tr["measured_ns"][g]
        for e, name in enumerate(ev):
            est = row["counts"][name]
            meas = sum(tr["measured_ns"][g] for g, grp in enumerate(sc.groups)
                       if e in grp)
            good &= est["coverage"] == meas / tr["time_ns"]
            if est["kind"] == "estimated":
                zs.append((abs(est["value"] - tr["counts"][e]) / est["error"]
                           if est["error"] > 0 else math.inf, est["clusters"]))
            elif est["kind"] == "unknown":
                unknown.append((est, meas))
        c = tr["counts"]
        for g, grp in enumerate(sc.groups):
            a, x, y = (c[i] for i in grp)
            for name, want in (("g%d:%s/%s" % (g, ev[grp[1]], ev[grp[0]]), x / a),
                               ("g%d:%s/%s" % (g, ev[grp[2]], ev[grp[0]]), y / a),
                               ("g%d:(%s-%s)/%s" % (g, ev[grp[1]], ev[grp[2]],
                                                    ev[grp[0]]), (x - y) / a)):
                est = row["metrics"][name]
                good &= est["coverage"] == tr["measured_ns"][g] / tr["time_ns"]
                if est["kind"] == "estimated":
                    zs.append((abs(est["value"] - want) / est["error"]
                               if est["error"] > 0 else math.inf,
                               est["clusters"]))
                elif est["kind"] == "unknown":
                    unknown.append((est, tr["measured_ns"][g]))
    return good


def shares(zs):
    n = len(zs)
    return [sum(1 for z, _ in zs if z <= k) / n for k in (1, 2, 3)] if n else [0] * 3


@test
def test_estimates(tmp):
    path = os.path.join(tmp, "s.td")
    zs, unknown, good, runs = [], [], True, 0
    for seed, kw in enumerate([dict(), dict(ngroups=3, rotate_ms=5),
                               dict(ngroups=4, rotate_ms=2),
                               dict(rotate_ms=50, dur=2_000_000_000),
                               dict(short=True, dur=200_000_000, rotate_ms=10)]):
        sc, truth = sim(seed, **kw)
        sc.write(path)
        rc, out, err = estimate(path)
        if not ok(rc == 0, "simulated recording %s: read" % kw, err):
            continue
        rows = json.loads(out)["rows"]
        good &= zscores(sc, truth, rows, zs, unknown)
        runs += 1
    ok(good and runs == 5,
       "per group slices, time, error slices and summed counts exact; coverage "
       "exactly the measured share of the task's time")
    w = shares(zs)
    print("# %d estimates: within 1, 2, 3 errors of the truth %.1f %.1f %.1f %% "
          "(normal 68.3 95.4 99.7)" % (len(zs), 100 * w[0], 100 * w[1], 100 * w[2]))
    for lo, hi in ((8, 12), (12, 24), (24, 64), (64, 1 << 62)):
        b = [x for x in zs if lo <= x[1] < hi]
        if b:
            s = shares(b)
            print("#   %d..%s clusters: %d, %.1f %.1f %.1f %%" % (
                lo, hi - 1 if hi < 1 << 62 else "", len(b), 100 * s[0],
                100 * s[1], 100 * s[2]))
    # Lower bounds: Student's t with 7 degrees of freedom (the fewest
    # clusters an estimate may have), less noise; upper: not absurdly wide.
    ok(len(zs) > 1000 and all(z < math.inf for z, _ in zs) and
       0.63 < w[0] < 0.92 and w[1] > 0.90 and w[2] > 0.975,
       "estimates within 1, 2, 3 errors of the truth: %.3f %.3f %.3f, every "
       "error > 0" % tuple(w))
    few = [u for u, meas in unknown if u["clusters"] < MIN_CLUSTERS and meas]
    ok(few and all("value" not in u and u["kind"] == "unknown" for u in few),
       "fewer than %d clusters: unknown (no value, never 0), %d of them"
       % (MIN_CLUSTERS, len(few)))
    ok(all(u["clusters"] < MIN_CLUSTERS or u["coverage"] == 0
           for u, _ in unknown),
       "unknown only with too few clusters or nothing measured")


@test
def test_by(tmp):
    path = os.path.join(tmp, "b.td")
    sc, _ = sim(7, ngroups=3, rotate_ms=5, dur=300_000_000)
    sc.write(path)
    good, detail = True, ""
    for by in ("task", "process", "comm", "cgroup", "cpu"):
        rc, out, err = estimate(path, "--by", by)
        if rc:
            good, detail = False, err
            continue
        d = json.loads(out)
        for g in range(3):
            rows = sum(r["groups"][g]["time_ns"] for r in d["rows"])
            if rows != d["total"]["groups"][g]["time_ns"]:
                good, detail = False, "%s group %d: %d != %d" % (
                    by, g, rows, d["total"]["groups"][g]["time_ns"])
        if by == "cpu":
            # A CPU's clusters are its periods: one per rotation, and
            # each group's coverage is about 1/3 of the CPU's time.
            for r in d["rows"]:
                cov = [r["metrics"]["g%d:e%d/cycles" % (g, 2 * g)]["coverage"]
                       for g in range(3)]
                if not all(0.2 < c < 0.45 for c in cov):
                    good, detail = False, "cpu %d coverage %s" % (r["cpu"], cov)
    ok(good, "--by task, process, comm, cgroup, cpu: the rows' group times add "
       "up to the total's; a CPU's groups each cover a third of it", detail)


def retime(path):
    """rdbench --live stamps its records a minute ahead (so that live
    readers keep them): move the file's start and stop around them, redo
    the checksum, so that the rest of the file can be checked."""
    b = bytearray(read(path))
    hsize, ncpu = struct.unpack_from("<I", b, 16)[0], struct.unpack_from("<I", b, 24)[0]
    tsize = 40 + 8 * ncpu
    n = (len(b) - hsize - tsize) // 128
    ends = [struct.unpack_from("<QQQ", b, hsize + 128 * i)[1:3] for i in range(n)]
    struct.pack_into("<Q", b, 32, min(t - d for t, d in ends))
    struct.pack_into("<Q", b, len(b) - tsize + 16, max(t for t, _ in ends))
    struct.pack_into("<I", b, len(b) - 8, zlib.crc32(bytes(b[:-8])))
    with open(path, "wb") as fh:
        fh.write(b)
    return n


@test
def test_record(tmp):
    """tdctl record against a fake /dev/topdown whose GET_CONFIG has groups
    (rdbench --groups): the file is 2.0 with the module's pool, groups and
    rotation, and its records read back with their groups."""
    b = subprocess.run(["make", "-s", "-C", os.path.join(TOP, "selftests/bench"),
                        "reader"], capture_output=True, text=True)
    if not ok(b.returncode == 0, "rdbench builds (the fake device)", b.stderr):
        return
    fx = os.path.join(tmp, "fx")
    subprocess.run([os.path.join(OUT, "mkfixture"), fx, "neoverse_n2_r0p0"],
                   check=True, stdout=subprocess.DEVNULL)
    rdbench = os.path.join(TOP, "build/host/bench/rdbench")
    for groups in (0, 3):
        path = os.path.join(tmp, "rec%d.td" % groups)
        p = subprocess.run([rdbench, "--fixture", os.path.join(fx, "neoverse_n2_r0p0"),
                            "-n", "3000", "--cpus", "2", "--live"] +
                           (["--groups", str(groups)] if groups else []) +
                           ["--", "record", "-a", "--duration", "0.3", "-o", path],
                           capture_output=True, text=True)
        if not ok(p.returncode == 0, "record with %d groups runs" % groups, p.stderr):
            continue
        img = read(path)
        major, nev = struct.unpack_from("<H", img, 8)[0], struct.unpack_from("<I", img, 28)[0]
        names = [img[704 + 64 * i + 32:704 + 64 * i + 64].split(b"\0")[0].decode()
                 for i in range(nev)]
        n = retime(path)
        rc, out, err = estimate(path)
        if not groups:
            ok(major == 1 and nev == 7 and rc == 0 and n == 3000,
               "record without groups: format 1.0 as before, %d records" % n, err)
            continue
        g = 704 + 64 * nev
        ngr, rot = struct.unpack_from("<II", img, g)
        grp = [list(img[g + 8 + 16 * k + 8:g + 8 + 16 * k + 8 +
                        struct.unpack_from("<I", img, g + 8 + 16 * k)[0]])
               for k in range(ngr)]
        want = [[0] + [e for e in range(1, 7) if (e - 1) % 3 == k] for k in range(3)]
        ok(major == 2 and nev == 7 and names[0] == "CPU_CYCLES" and ngr == 3 and
           rot == 5 and grp == want,
           "record with groups: format 2.0, the module's pool of 7, groups %s, "
           "rotate_ms %d" % (grp, rot), "%d %d %s %d %d" % (major, nev, names, ngr, rot))
        if ok(rc == 0, "its %d records read back with their groups" % n, err):
            t = json.loads(out)["total"]
            ok(all(x["slices"] > 0 for x in t["groups"]) and t["rotated"] > 0 and
               sum(x["slices"] for x in t["groups"]) + t["rotated"] == t["slices"] == 3000,
               "every group measured slices, rotated ones in none: %s + %d rotated"
               % ([x["slices"] for x in t["groups"]], t["rotated"]))


def built():
    for prog in (TDCTL, TDESTIMATE):
        require(os.access(prog, os.X_OK), "%s not built" % prog)


if __name__ == "__main__":
    main(setup=built)
