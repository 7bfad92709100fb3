#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""`tdctl serve` against clients that ask for /metrics and never read it.

In a network namespace of its own (unshare -n), its loopback interface at
MTU 1500 as a real network's: serve runs inside rdbench (fake rings, as in
test_serve.py) with 64 cgroups, an answer of about 62 KB. From 127.0.0.2,
ATTACKERS clients with SO_RCVBUF 1 send GET /metrics and never read, so
that their answers cannot leave serve. Then a scraper from 127.0.0.1
scrapes SCRAPES times, 2 s allowed each (stopped after 5 failures in a
row).

Checked: every scrape answered 200, the 99th percentile under 1 s; serve's
resident memory (VmRSS) grows by less than RSS_MB MiB. The figures go to
stdout as TAP comments. SKIP when not root (unshare -n). TAP.
"""
import json
import os
import subprocess
import sys
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]
from tap import main, ok, require, test  # noqa: E402
from test_serve import OUT, RDBENCH, SET_FIXTURE  # noqa: E402

ATTACKERS, SCRAPES, RSS_MB = 40, 50, 16

# Runs in the namespace: prints one JSON line of figures.
SCRIPT = r"""
import json, socket, subprocess, sys, time
rdbench, fixture, attackers, scrapes = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
subprocess.run(["ip", "link", "set", "lo", "mtu", "1500", "up"], check=True)
port = 10642
ids = sum((["--cgroup-id", str(900000 + i)] for i in range(64)), [])
p = subprocess.Popen([rdbench, "--fixture", fixture, "-n", "20000", "--cpus", "2", "--live",
                      "--rate", "1e9"] + ids + ["--", "serve", "--listen",
                      "127.0.0.1:%d" % port, "--duration", "60"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def rss():
    with open("/proc/%d/status" % p.pid) as fh:
        return next(int(ln.split()[1]) for ln in fh if ln.startswith("VmRSS:"))


def scrape(timeout):
    t0 = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                      source_address=("127.0.0.1", 0)) as s:
            s.settimeout(timeout)
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            out = b""
            while True:
                b = s.recv(262144)
                if not b:
                    break
                out += b
        return out.startswith(b"HTTP/1.1 200"), time.monotonic() - t0, len(out)
    except OSError:
        return False, time.monotonic() - t0, 0


for _ in range(100):
    if scrape(1)[0]:
        break
    time.sleep(0.1)
size = scrape(5)[2]
rss0 = rss1 = rss()
bad = []
for i in range(attackers):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
    s.bind(("127.0.0.2", 0))
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    bad.append(s)
time.sleep(1)
lat, fails, consec = [], 0, 0
for i in range(scrapes):
    good, dt, _ = scrape(2)
    lat.append(dt)
    fails += not good
    consec = consec + 1 if not good else 0
    rss1 = max(rss1, rss())
    if consec >= 5:
        break
lat.sort()
print(json.dumps({"size": size, "n": len(lat), "fails": fails, "rss0": rss0, "rss1": rss1,
                  "p50": lat[len(lat) // 2],
                  "p99": lat[min(len(lat) - 1, int(len(lat) * 0.99))]}))
for s in bad:
    s.close()
p.terminate()
p.wait()
"""


def tools():
    require(os.geteuid() == 0 and shutil.which("unshare") and shutil.which("ip"),
            "needs root, unshare and ip (a network namespace)")


@test
def serve_slow(tmp, rdbench):
    fx = os.path.join(tmp, "fx")
    subprocess.run([os.path.join(OUT, "mkfixture"), fx, SET_FIXTURE], check=True,
                   stdout=subprocess.DEVNULL)
    p = subprocess.run(["unshare", "-n", sys.executable, "-c", SCRIPT, RDBENCH,
                        os.path.join(fx, SET_FIXTURE), str(ATTACKERS), str(SCRAPES)],
                       capture_output=True, text=True, timeout=120)
    try:
        r = json.loads(p.stdout)
    except ValueError:
        ok(False, "serve in a network namespace", p.stdout + p.stderr)
        return
    print("# %d clients from 127.0.0.2 that never read a %d-byte answer; %d scrapes "
          "from 127.0.0.1: p50 %.1f ms, p99 %.1f ms, %d failed; VmRSS %.1f MiB, at "
          "most %.1f MiB" % (ATTACKERS, r["size"], r["n"], r["p50"] * 1e3, r["p99"] * 1e3,
                             r["fails"], r["rss0"] / 1024, r["rss1"] / 1024))
    ok(r["n"] == SCRAPES and not r["fails"] and r["p99"] < 1.0,
       "%d clients that never read: %d scrapes from another address all 200, "
       "p99 %.1f ms (< 1 s)" % (ATTACKERS, r["n"], r["p99"] * 1e3), r)
    ok(r["rss1"] - r["rss0"] < RSS_MB * 1024,
       "memory held for answers: VmRSS grew by %.1f MiB (< %d MiB)"
       % ((r["rss1"] - r["rss0"]) / 1024, RSS_MB), r)


if __name__ == "__main__":
    main(setup=tools)
