#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What fuzzing found in the readers of record files, each as a file from
tdfile_gen.py, the independent writer, that
the fixed tdctl handles and the old one did not:
- top -i: a recording near the end of the 64-bit clock ends (the interval
  end wrapped and the replay never did), and a long idle recording gives
  a snapshot per interval with records, not one per interval of its span;
- timeline --from/--to near the end of the 64-bit clock keep what they say;
- keys crafted against a fixed hash (cgroup ids for report --by cgroup,
  (pid, tid) for timeline's thread table) cost what random ones do;
- an endless stream (/dev/zero, a pipe that never ends) is refused at its
  header, or at a bound, instead of read into memory until it runs out.
TAP.
"""
import os
import random
import resource
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]  # tap.py: selftests/lib
import tdfile_gen  # noqa: E402
from tap import TDCTL, main, ok, test  # noqa: E402

U64 = (1 << 64) - 1


def tdctl(*args, timeout=20, stdin=None):
    """(rc, stdout, stderr, seconds); rc None if it ran out of time."""
    t0 = time.monotonic()
    try:
        p = subprocess.run([TDCTL] + list(args), capture_output=True,
                           timeout=timeout, input=stdin)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = None, e.stdout or b"", e.stderr or b""
    return rc, out.decode(errors="replace"), err.decode(errors="replace"), \
        time.monotonic() - t0


def scenario(start, span, times):
    """Set generic, one CPU, a record at each of times (ns after start)."""
    recs = [tdfile_gen.Rec(0, 100 + i, 100 + i, "t%d" % i, start + t, 1000,
                           [3000, 2000]) for i, t in enumerate(times)]
    sc = tdfile_gen.Scenario("set=generic", ["cycles", "instructions"], 1,
                             recs)
    sc.start_ns, sc.stop_ns = start, start + span
    return sc


def snapshots(csv_out):
    """top --csv: the distinct time_s of its rows (one per snapshot)."""
    times = []
    for line in csv_out.splitlines()[1:]:
        t = line.split(",")[1]
        if not times or times[-1] != t:
            times.append(t)
    return times


@test
def test_top_replay(tmp):
    # point 11: the end of the clock; 5.5 s, a record every 0.4 s
    span = 5_500_000_000
    sc = scenario(U64 - span, span, [400_000_000 * i + 1 for i in range(14)])
    path = os.path.join(tmp, "clockend.td")
    sc.write(path)
    rc, out, err, secs = tdctl("top", "-i", path, "--batch", "--csv",
                               timeout=10)
    snaps = snapshots(out)
    ok(rc == 0 and snaps == ["1", "2", "3", "4", "5", "5.5"],
       "top -i: a 5.5 s recording that ends at 2^64-1 ns replays in 6 "
       "snapshots and ends (%s, %.1f s, %d snapshots)"
       % ("timed out" if rc is None else "rc %d" % rc, secs, len(snaps)),
       err[-500:] + "\n".join(out.splitlines()[:8]))
    # an idle recording of 100,000 s: a snapshot per interval with records
    day = 100_000 * 1_000_000_000
    sc = scenario(tdfile_gen.START_NS, day, [500_000_000, day // 2 + 1,
                                             day - 300_000_000])
    path = os.path.join(tmp, "idle.td")
    sc.write(path)
    rc, out, err, secs = tdctl("top", "-i", path, "--batch", "--csv",
                               timeout=20)
    snaps = snapshots(out)
    ok(rc == 0 and snaps == ["1", "50001", "100000"],
       "top -i: a 100,000 s recording with 3 records gives 3 snapshots, "
       "not one per second (%s, %.1f s, %d snapshots, %d bytes)"
       % ("timed out" if rc is None else "rc %d" % rc, secs, len(snaps),
          len(out)), err[-300:] + " ".join(snaps[:10]))
    rc, out, err, secs = tdctl("top", "-i", path, "--batch", timeout=20)
    intervals = [ln for ln in out.splitlines() if ln.startswith("tdctl top - ")]
    ok(rc == 0 and len(intervals) == 3 and
       all(ln.endswith("interval 1.000 s") for ln in intervals),
       "top -i --batch: the skipped idle intervals do not stretch the "
       "interval shown (%CPU stays per interval)", "\n".join(intervals))


@test
def test_timeline_window(tmp):
    # point 12: 2 s at the end of the clock, 12 slices before 2 s
    span = 2_000_000_000
    sc = scenario(U64 - span, span, [150_000_000 * i + 10_000 for i in range(12)])
    path = os.path.join(tmp, "tl.td")
    sc.write(path)
    for args, want in ((("--from", "6"), 0), (("--from", "0.5"), 8),
                       (("--to", "0.5"), 4), (("--from", "0.2", "--to", "999999"), 10)):
        rc, out, err, _ = tdctl("timeline", "-i", path, *args)
        n = out.count('"ph":"X"')
        ok(rc == 0 and n == want,
           "timeline %s on a recording that ends at 2^64-1 ns: %d slices (%d)"
           % (" ".join(args), want, n), err)


def cpu_seconds(*args):
    """tdctl ARGS to /dev/null: (rc, its user + system CPU seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.devnull, "wb") as null:
        rc = subprocess.run([TDCTL] + list(args), stdout=null,
                            stderr=subprocess.DEVNULL, timeout=300).returncode
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return rc, (after.ru_utime - before.ru_utime +
                after.ru_stime - before.ru_stime)


def keyed(tmp, name, keys, cgroups):
    """A record per key: cgroup ids, or (tgid, tid)."""
    recs = []
    for i, k in enumerate(keys):
        tgid, tid, cg = (100, 100, k) if cgroups else (k[0], k[1], 1)
        recs.append(tdfile_gen.Rec(0, tid, tgid, "t", tdfile_gen.START_NS +
                                   1000 + 10 * i, 5, [10, 20], cgroup=cg,
                                   seq=i + 1))
    sc = tdfile_gen.Scenario("set=generic", ["cycles", "instructions"], 1,
                             recs, duration_ns=10 * len(keys) + 2000)
    path = os.path.join(tmp, name)
    sc.write(path)
    return path


@test
def test_hash_flood(tmp):
    # point 15: 49,152 keys that differ only in bits a multiplicative
    # hash never brings down to its slot (the old tables' hashes), against
    # as many random ones; CPU time, not wall time, on a shared machine
    n = 49152
    rnd = random.Random(15)
    cases = (
        ("report --by cgroup", True, ["report", "--by", "cgroup"],
         [(j + 1) << 47 for j in range(n)],
         [rnd.getrandbits(64) | 1 for _ in range(n)]),
        ("timeline (thread table)", False, ["timeline"],
         [((j + 1) << 6, 1) for j in range(n)],
         [(rnd.randint(1, (1 << 22) - 1), rnd.randint(1, (1 << 22) - 1))
          for _ in range(n)]))
    for what, cg, args, crafted, rand in cases:
        pc = keyed(tmp, "crafted.td", crafted, cg)
        pr = keyed(tmp, "random.td", rand, cg)
        rc1, t_rand = cpu_seconds(args[0], "-i", pr, *args[1:])
        rc2, t_craft = cpu_seconds(args[0], "-i", pc, *args[1:])
        ok(rc1 == 0 and rc2 == 0 and t_craft <= 3 * t_rand + 0.25,
           "%s: %d crafted keys take %.2f s of CPU, %d random ones %.2f s"
           % (what, n, t_craft, n, t_rand))


def limited(limit):
    """preexec_fn: at most limit bytes of address space, so that a tdctl
    that reads an endless stream fails soon, not after eating the
    machine's memory."""
    def f():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return f


@test
def test_streams(tmp):
    # point 16: /dev/zero is not a record file, after 8 bytes
    for cmd in ("report", "dump", "top", "timeline"):
        t0 = time.monotonic()
        p = subprocess.run([TDCTL, cmd, "-i", "/dev/zero"] +
                           (["--batch"] if cmd == "top" else []),
                           capture_output=True, timeout=60,
                           preexec_fn=limited(1 << 30))
        err = p.stderr.decode(errors="replace")
        ok(p.returncode == 1 and "not a tdctl record file (bad magic)" in err,
           "%s -i /dev/zero: refused at its header (%.2f s)"
           % (cmd, time.monotonic() - t0), err)
    # a good header, then zeros without end on stdin: at most half of
    # what the process may have (768 MiB here)
    sc = tdfile_gen.generic()
    head = sc.header()
    p = subprocess.Popen([TDCTL, "report", "-i", "-"], stdin=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         preexec_fn=limited(768 << 20))
    sent = [0]

    def feed():
        try:
            p.stdin.write(head)
            zeros = bytes(1 << 20)
            while sent[0] < 8 << 30:
                p.stdin.write(zeros)
                sent[0] += len(zeros)
        except (BrokenPipeError, OSError, ValueError):
            pass

    w = threading.Thread(target=feed)
    w.start()
    killer = threading.Timer(120, p.kill)
    killer.start()
    err = p.stderr.read().decode(errors="replace")
    p.wait()
    killer.cancel()
    w.join()
    p.stdin.close()
    ok(p.returncode == 1 and "a stream of more than 384 MiB" in err,
       "report -i - with a record file's header and endless zeros: refused "
       "at the bound, 384 MiB (%d MiB sent)" % (sent[0] >> 20), err)


if __name__ == "__main__":
    main()
