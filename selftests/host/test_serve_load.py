#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""`tdctl serve` under load and abuse, on the loopback address only.

serve runs inside rdbench (fake rings publishing N records at R per
second, as in test_serve.py) with --max-connections CONNS. For ABUSE
seconds, all at once:

  - wrk (Debian's) with WRK_CONNS concurrent scrapers of /metrics;
  - IDLE connections (more than CONNS) that connect and say nothing;
  - SLOW clients that send a request one byte a second;
  - requests larger than the 8 KiB limit, one every 0.1 s;
  - one normal scraper: GET /metrics every 0.25 s, 5 s allowed each.

Checked: every normal scrape answered 200 within LIMIT_S seconds (its
latency percentiles reported); slow clients never get an answer and are
closed at serve's 10 s request timeout; every oversized request gets 431;
serve's resident memory (VmRSS, sampled every 0.2 s) grows by less than
RSS_MB MiB over its idle size; and afterwards topdown_records_total and
the sum of topdown_slices_total are N: nothing lost. The figures go to
stdout as TAP comments and to build/host/serve-load.txt.

The default is make check's short run (ABUSE 20 s, about a minute in
all); TD_SERVE_LOAD=long (make serve-load) runs 300 s with 4000 idle
connections. TAP; SKIP without wrk.
"""
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
from tap import main, ok, require, test  # noqa: E402
from test_serve import OUT, RDBENCH, SET_FIXTURE, free_port, stop  # noqa: E402

LONG = os.environ.get("TD_SERVE_LOAD") == "long"
ABUSE = 300 if LONG else 20
IDLE = 4000 if LONG else 2000
SLOW = 20
CONNS = 512
WRK_CONNS = 64
RATE = 2000.0
N = int(RATE * (ABUSE + 10))
LIMIT_S = 5.0
RSS_MB = 64


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as fh:
        for ln in fh:
            if ln.startswith("VmRSS:"):
                return int(ln.split()[1])
    return 0


def get(port, timeout=5.0):
    """(status, body, seconds) of one GET /metrics, status None on error."""
    t0 = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.settimeout(timeout)
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            out = b""
            while True:
                b = s.recv(262144)
                if not b:
                    break
                out += b
    except OSError:
        return None, "", time.monotonic() - t0
    dt = time.monotonic() - t0
    head, _, body = out.partition(b"\r\n\r\n")
    try:
        return int(head.split()[1]), body.decode(errors="replace"), dt
    except (IndexError, ValueError):
        return None, "", dt


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100.0 * len(xs)))] if xs else float("nan")


class Abuse:
    def __init__(self, port, pid):
        self.port, self.pid = port, pid
        self.stop = threading.Event()
        self.lat, self.bad = [], []
        self.rss = []
        self.big = {"sent": 0, "431": 0}
        self.slow = []          # (got an answer?, seconds until closed)
        self.idle = []

    def normal(self):
        while not self.stop.is_set():
            st, _, dt = get(self.port, 5.0)
            (self.lat if st == 200 else self.bad).append(dt if st == 200 else st)
            time.sleep(0.25)

    def memory(self):
        while not self.stop.is_set():
            self.rss.append(rss_kib(self.pid))
            time.sleep(0.2)

    def oversized(self):
        while not self.stop.is_set():
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
                    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: a\r\nX: " + b"a" * 20000)
                    r = s.recv(64)
                    self.big["sent"] += 1
                    if r.startswith(b"HTTP/1.1 431"):
                        self.big["431"] += 1
            except OSError:
                self.big["sent"] += 1
            time.sleep(0.1)

    def slowloris(self, i):
        req = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: %d\r\n\r\n" % i
        t0 = time.monotonic()
        answered = False
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=30) as s:
                for b in req:
                    if self.stop.is_set():
                        break
                    s.sendall(bytes([b]))
                    time.sleep(1.0)
                s.settimeout(1)
                try:
                    answered = s.recv(64).startswith(b"HTTP/1.1 200")
                except socket.timeout:
                    pass
        except OSError:
            pass
        self.slow.append((answered, time.monotonic() - t0))

    def hold_idle(self):
        for _ in range(IDLE):
            try:
                self.idle.append(socket.create_connection(("127.0.0.1", self.port), timeout=5))
            except OSError:
                pass


def wrk(port, seconds, log):
    p = subprocess.run(["wrk", "-t2", "-c%d" % WRK_CONNS, "-d%ds" % seconds,
                        "--timeout", "5s", "--latency",
                        "http://127.0.0.1:%d/metrics" % port],
                       capture_output=True, text=True, timeout=seconds + 60)
    log.write(p.stdout + p.stderr)
    res = {"out": p.stdout}
    m = re.search(r"Requests/sec:\s+([\d.]+)", p.stdout)
    res["rps"] = float(m.group(1)) if m else 0.0
    for q in ("50", "90", "99"):
        m = re.search(r"^\s+%s%%\s+(\S+)" % q, p.stdout, re.M)
        res["p" + q] = m.group(1) if m else "?"
    m = re.search(r"(\d+) requests in", p.stdout)
    res["requests"] = int(m.group(1)) if m else 0
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", p.stdout)
    res["non2xx"] = int(m.group(1)) if m else 0
    m = re.search(r"Socket errors: (.*)", p.stdout)
    res["errors"] = m.group(1) if m else "none"
    return res


def totals(text):
    recs = slices = lost = 0
    for ln in text.splitlines():
        if ln.startswith("topdown_records_total "):
            recs = int(ln.split()[1])
        elif ln.startswith("topdown_slices_total{"):
            slices += int(ln.split()[-1])
        elif ln.startswith("topdown_lost_records_total{"):
            lost += int(ln.split()[-1])
    return recs, slices, lost


def run(tmp, report):
    fx = os.path.join(tmp, "fx")
    subprocess.run([os.path.join(OUT, "mkfixture"), fx, SET_FIXTURE], check=True,
                   stdout=subprocess.DEVNULL)
    port = free_port()
    log = open(os.path.join(tmp, "serve.log"), "w")
    p = subprocess.Popen(
        [RDBENCH, "--fixture", os.path.join(fx, SET_FIXTURE), "-n", str(N), "--cpus", "4",
         "--live", "--rate", str(RATE), "--", "serve", "--listen", "127.0.0.1:%d" % port,
         "--by", "process", "--max-connections", str(CONNS),
         "--duration", str(ABUSE + 60)],
        stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(100):
            st, _, _ = get(port, 1)
            if st == 200:
                break
            time.sleep(0.1)
        base = [get(port)[2] for _ in range(20)]
        rss0 = rss_kib(p.pid)
        a = Abuse(port, p.pid)
        threads = [threading.Thread(target=f) for f in (a.normal, a.memory, a.oversized)]
        threads += [threading.Thread(target=a.slowloris, args=(i,)) for i in range(SLOW)]
        for t in threads:
            t.start()
        a.hold_idle()
        wlog = open(os.path.join(tmp, "wrk.log"), "w")
        w = wrk(port, ABUSE, wlog)
        # The slow clients: until serve closed each (10 s after it began).
        a.stop.set()
        for t in threads:
            t.join(timeout=60)
        held = len(a.idle)
        for s in a.idle:
            s.close()
        # Every record published and counted (rdbench stops at N).
        t0 = time.monotonic()
        recs = slices = lost = -1
        while time.monotonic() - t0 < 30:
            st, body, _ = get(port)
            if st == 200:
                recs, slices, lost = totals(body)
                if recs == N:
                    break
            time.sleep(0.5)
        rss_max = max(a.rss) if a.rss else 0
        lines = [
            "serve under load (%s run, %d s of abuse, --max-connections %d):" %
            ("long" if LONG else "short", ABUSE, CONNS),
            "  wrk %d connections: %d requests, %.0f/s, latency p50 %s p90 %s p99 %s, "
            "non-2xx %d, socket errors %s" % (
                WRK_CONNS, w["requests"], w["rps"], w["p50"], w["p90"], w["p99"],
                w["non2xx"], w["errors"]),
            "  idle connections held by the test: %d; slow clients (1 byte/s): %d; "
            "oversized requests: %d sent, %d answered 431" % (
                held, SLOW, a.big["sent"], a.big["431"]),
            "  normal scrape, idle: p50 %.1f ms p99 %.1f ms; under abuse: %d scrapes, "
            "p50 %.1f ms p90 %.1f ms p99 %.1f ms max %.1f ms, %d failed" % (
                pct(base, 50) * 1e3, pct(base, 99) * 1e3, len(a.lat), pct(a.lat, 50) * 1e3,
                pct(a.lat, 90) * 1e3, pct(a.lat, 99) * 1e3,
                max(a.lat or [0]) * 1e3, len(a.bad)),
            "  VmRSS of serve (with rdbench's fake rings): %.1f MiB idle, %.1f MiB at most "
            "under abuse (+%.1f MiB)" % (rss0 / 1024, rss_max / 1024, (rss_max - rss0) / 1024),
            "  slow clients closed after %.1f to %.1f s, answered: %d" % (
                min(s[1] for s in a.slow) if a.slow else 0,
                max(s[1] for s in a.slow) if a.slow else 0, sum(s[0] for s in a.slow)),
            "  afterwards: topdown_records_total %d, slices %d, lost %d (published %d)" % (
                recs, slices, lost, N),
        ]
        for ln in lines:
            print("# " + ln)
        report.write("\n".join(lines) + "\n")
        ok(not a.bad and a.lat and max(a.lat) < LIMIT_S,
           "every normal scrape under abuse answered 200 within %.0f s (%d, max %.0f ms)"
           % (LIMIT_S, len(a.lat), max(a.lat or [0]) * 1e3), a.bad[:10])
        ok(w["requests"] > 0 and w["non2xx"] == 0,
           "wrk's %d scrapers: %d answers, all 200" % (WRK_CONNS, w["requests"]), w["out"])
        ok(held >= IDLE * 0.9, "%d idle connections held open against %d slots"
           % (held, CONNS))
        ok(len(a.slow) == SLOW and not any(s[0] for s in a.slow) and
           all(s[1] < 15 for s in a.slow),
           "slow clients: never answered, closed within 15 s", a.slow)
        ok(a.big["sent"] > 0 and a.big["431"] == a.big["sent"],
           "oversized requests: all %d answered 431" % a.big["sent"], a.big)
        ok(rss_max - rss0 < RSS_MB * 1024,
           "memory bounded: VmRSS grew by %.1f MiB (< %d MiB)" % (
               (rss_max - rss0) / 1024, RSS_MB))
        ok(recs == N and slices == N and lost == 0,
           "nothing lost: records %d, slices %d of %d published, lost 0" % (recs, slices, N))
    finally:
        stop(p)


def tools():
    require(shutil.which("wrk"), "wrk is not installed (scripts/deps.sh)")


@test
def serve_load(tmp, rdbench):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = IDLE + 512
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    with open(os.path.join(OUT, "serve-load.txt"), "w") as report:
        run(tmp, report)


if __name__ == "__main__":
    main(setup=tools)
