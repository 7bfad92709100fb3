#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""`tdctl serve` scraped by the real Prometheus, on the loopback address.

The exporter runs inside the reader benchmark's rdbench (its device calls
served from fake rings, selftests/bench/reader/rdbench.c), which publishes
N synthetic records at R per second: a known workload. Debian's
prometheus scrapes it every second for a bounded time, with the recording
rules of contrib/prometheus loaded. Then Prometheus' HTTP API must give:

  - the final counters, per process and event, equal to the sums of the
    same records whose every count was read (rdbench --write puts them in
    a record file; tdctl dump --json shows them, null where unreadable),
  - sum(rate(topdown_slices_total[..])) while the records arrive equal to
    R (within 25 %: Prometheus extrapolates at the window's edges),
  - the recording rules' fractions equal to the formula on the counts,
  - up == 1 (Prometheus parsed every scrape, in OpenMetrics, which it asks
    for first).

And promtool check metrics passes on the text format; the text and
OpenMetrics outputs follow their rules (# EOF, _total, UNIT); the HTTP
side refuses oversized and malformed requests, answers other paths with
404, and survives a client that connects and sends nothing.

Every process is killed and every temporary directory removed at the
end, also on failure. SKIP without prometheus/promtool (scripts/deps.sh
installs them). TAP.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]  # tap.py: selftests/lib
from tap import TDCTL, TOP, fixture, main, ok, require, skip_all, test  # noqa: E402

OUT = os.environ.get("OUT") or os.path.join(TOP, "build/host/")
RDBENCH = os.path.join(TOP, "build/host/bench/rdbench")
N, CPUS, RATE = 24000, 4, 2400.0        # 10 s of records
SET_FIXTURE = "sapphire_rapids"         # event set intel_spr


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def http(url, headers=None, timeout=5):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read().decode()


def query(prom, q, t=None):
    args = {"query": q}
    if t is not None:
        args["time"] = "%.3f" % t
    _, _, body = http("http://127.0.0.1:%d/api/v1/query?%s"
                      % (prom, urllib.parse.urlencode(args)))
    d = json.loads(body)
    if d.get("status") != "success":
        raise RuntimeError(body)
    return d["data"]["result"]


def raw(port, data, timeout=5):
    """Send bytes, return what comes back (until close or timeout)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        if data:
            s.sendall(data)
        out = b""
        while True:
            try:
                b = s.recv(65536)
            except (socket.timeout, ConnectionResetError):
                break
            if not b:
                break
            out += b
        return out
    finally:
        s.close()


def families(text):
    """name -> type from # TYPE lines."""
    return {ln.split()[2]: ln.split()[3] for ln in text.splitlines()
            if ln.startswith("# TYPE ")}


def expected_sums(tmp, fixture):
    """Per process: its slices, and the counts summed over its slices
    whose every count was read (tdctl-serve(8): a count that could not be
    read, null in dump --json, leaves its slice out of every count)."""
    path = os.path.join(tmp, "same.td")
    subprocess.run([RDBENCH, "--fixture", fixture, "-n", str(N), "--cpus",
                    str(CPUS), "--write", path], check=True)
    p = subprocess.run([TDCTL, "-j", "report", "-i", path, "--by", "process"],
                       capture_output=True, text=True, check=True)
    events = [e["name"] for e in json.loads(p.stdout)["events"]]
    p = subprocess.run([TDCTL, "-j", "dump", "-i", path],
                       capture_output=True, text=True, check=True)
    sums = {}
    for sl in json.loads(p.stdout):
        acc = sums.setdefault(str(sl["pid"]), {"slices": 0, "counts": {}})
        acc["slices"] += 1
        read = None not in sl["counts"].values()
        for e in events:
            acc["counts"][e] = (acc["counts"].get(e, 0) +
                                (sl["counts"][e] if read else 0))
    return events, sums


def check_http(port):
    # A request head not finished in serve's 10 s: 408, then closed
    # (started now, read at the end).
    late = socket.create_connection(("127.0.0.1", port))
    late.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
    t_late = time.monotonic()
    st, ctype, text = http("http://127.0.0.1:%d/metrics" % port)
    ok(st == 200 and ctype.startswith("text/plain; version=0.0.4"),
       "GET /metrics: the text format 0.0.4", ctype)
    p = subprocess.run(["promtool", "check", "metrics"], input=text,
                       capture_output=True, text=True)
    ok(p.returncode == 0, "promtool check metrics passes on the text format",
       p.stdout + p.stderr)
    fam = families(text)
    ok(all(n.endswith("_total") for n, t in fam.items() if t == "counter") and
       {"topdown_up", "topdown_scrape_duration_seconds", "topdown_module_state",
        "topdown_events_total", "topdown_lost_records_total",
        "topdown_run_seconds_total", "topdown_slices_total",
        "topdown_read_errors_total"} <= set(fam),
       "text format: the families, counters named _total", sorted(fam))
    st, ctype, om = http("http://127.0.0.1:%d/metrics" % port, {
        "Accept": "application/openmetrics-text;version=1.0.0,"
                  "text/plain;version=0.0.4;q=0.5"})
    ofam = families(om)
    ok(st == 200 and ctype.startswith("application/openmetrics-text; version=1.0.0")
       and om.endswith("# EOF\n") and om.count("# EOF") == 1 and
       ofam.get("topdown_events") == "counter" and
       "# UNIT topdown_run_seconds seconds" in om and
       "topdown_events_total{" in om and
       not any(n.endswith("_total") for n in ofam),
       "OpenMetrics when asked: # EOF, families without _total, UNIT", ctype + om[-300:])
    st, _, _ = http("http://127.0.0.1:%d/" % port)
    ok(st == 200, "GET /: an index page")
    r = raw(port, b"GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n")
    ok(r.startswith(b"HTTP/1.1 404"), "an unknown path: 404", r[:80])
    r = raw(port, b"POST /metrics HTTP/1.1\r\n\r\n")
    ok(r.startswith(b"HTTP/1.1 405"), "POST: 405", r[:80])
    r = raw(port, b"garbage\r\n\r\n")
    ok(r.startswith(b"HTTP/1.1 400"), "a malformed request: 400", r[:80])
    r = raw(port, b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 20000)
    ok(r.startswith(b"HTTP/1.1 431"), "a request over 8 KiB: 431, not read on", r[:80])
    r = raw(port, b"HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    ok(r.startswith(b"HTTP/1.1 200") and r.endswith(b"\r\n\r\n"),
       "HEAD: the headers only", r[-80:])
    r = raw(port, b"\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    ok(r.startswith(b"HTTP/1.1 200"),
       "an empty line before the request line is ignored (RFC 9112 2.2)", r[:80])
    # Clients that connect and say nothing do not block the others.
    idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(5)]
    try:
        st, _, _ = http("http://127.0.0.1:%d/metrics" % port, timeout=3)
        ok(st == 200, "served while 5 idle clients hold connections")
    finally:
        for s in idle:
            s.close()
    late.settimeout(15)
    try:
        r = late.recv(4096)
    except OSError as e:
        r = str(e).encode()
    late.close()
    ok(r.startswith(b"HTTP/1.1 408 Request Timeout\r\n"),
       "a request head not finished in 10 s: 408 (after %.1f s)"
       % (time.monotonic() - t_late), r[:80])


def wait_http(url, tries=50):
    for _ in range(tries):
        try:
            return http(url, timeout=1)
        except OSError:
            time.sleep(0.1)
    return None, None, ""


def stop(p):
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def check_limits(fixture):
    """--max-series: 5 groups and 'other' hold every record."""
    port = free_port()
    p = subprocess.Popen(
        [RDBENCH, "--fixture", fixture, "-n", "2000", "--cpus", "2", "--live",
         "--rate", "1e9", "--", "serve", "--listen", "127.0.0.1:%d" % port,
         "--by", "process", "--max-series", "5", "--duration", "20"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _, _, text = wait_http("http://127.0.0.1:%d/metrics" % port)
        sl = {}
        for ln in text.splitlines():
            if ln.startswith("topdown_slices_total{"):
                pid = ln.split('pid="')[1].split('"')[0]
                sl[pid] = int(ln.split()[-1])
        ok(len(sl) == 6 and "other" in sl and sum(sl.values()) == 2000 and
           "topdown_series_groups 6" in text,
           "--max-series 5: 5 processes and 'other', every record counted", sl)
    finally:
        stop(p)


def series(text, family):
    """{labels text: value} of one family's samples; a label set given
    twice (two series Prometheus cannot tell apart) is kept in the list
    'dup'."""
    got, dup = {}, []
    for ln in text.splitlines():
        if ln.startswith(family + "{"):
            labels, _, v = ln[len(family):].rpartition(" ")
            if labels in got:
                dup.append(labels)
            got[labels] = float(v)
    return got, dup


def check_comm_overflow(fixture):
    """--by comm --max-series: a process named 'other' and the series of
    what did not fit are two series (the overflow's label is one no comm
    can produce)."""
    port = free_port()
    names = ["other"] + ["task%d" % i for i in range(9)]
    p = subprocess.Popen(
        [RDBENCH, "--fixture", fixture, "-n", "2000", "--cpus", "2", "--live",
         "--rate", "1e9"] + sum((["--comm", n] for n in names), []) +
        ["--", "serve", "--listen", "127.0.0.1:%d" % port, "--by", "comm",
         "--max-series", "4", "--duration", "20"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _, _, text = wait_http("http://127.0.0.1:%d/metrics" % port)
        got, dup = series(text, "topdown_slices_total")
        ok(len(got) == 5 and not dup and '{comm="other"}' in got and
           sum(got.values()) == 2000,
           "--by comm --max-series 4: the process 'other' and the overflow are "
           "two series, every record counted once", (got, dup))
    finally:
        stop(p)


def check_cgroup_labels(fixture):
    """Two cgroups, one named with the four characters \\x01 and one
    with the byte 0x01: two series, each with its own counts."""
    mnt = None
    with open("/proc/self/mountinfo") as fh:
        for ln in fh:
            f = ln.split()
            if f[f.index("-") + 1] == "cgroup2":
                mnt = f[4]
                break
    if os.geteuid() != 0 or not mnt:
        ok(True, "cgroup names that differ by a backslash # SKIP needs root "
           "and a cgroup2 mount")
        return
    names = ["tdsec%d\\x01" % os.getpid(), "tdsec%d\x01" % os.getpid()]
    # And two paths of 1000 bytes that differ in their last byte only,
    # longer than a label holds.
    deep = "tdsec%d/" % os.getpid() + "/".join(["d" * 240] * 4)
    made = []
    try:
        for n in names + [deep + "/x", deep + "/y"]:
            parts = n.split("/")
            for i in range(len(parts)):
                d = os.path.join(mnt, *parts[:i + 1])
                if not os.path.isdir(d):
                    os.mkdir(d)
                    made.append(d)
        ids = [os.stat(os.path.join(mnt, n)).st_ino for n in
               names + [deep + "/x", deep + "/y"]]
        port = free_port()
        p = subprocess.Popen(
            [RDBENCH, "--fixture", fixture, "-n", "2000", "--cpus", "2",
             "--live", "--rate", "1e9"] +
            sum((["--cgroup-id", str(i)] for i in ids), []) +
            ["--", "serve", "--listen", "127.0.0.1:%d" % port, "--duration", "20"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _, _, text = wait_http("http://127.0.0.1:%d/metrics" % port)
            got, dup = series(text, "topdown_slices_total")
            mine = {k: v for k, v in got.items() if "tdsec" in k}
            ok(len(mine) == 4 and not dup and sum(got.values()) == 2000 and
               all(v > 0 for v in mine.values()),
               "cgroups named tdsecN\\x01 and tdsecN<0x01>, and two long "
               "paths that differ in their last byte: four series", got)
            long = [k for k in mine if "ddd" in k]
            ok(len(long) == 2 and all(len(k) < 512 and
                                      re.search(r'\\\\~[0-9a-f]{32}"}$', k)
                                      for k in long),
               "a path longer than a label: cut, and ended by \\~ and a hash",
               long)
            # The text of the name of every byte that is not printable
            # ASCII is \xHH, and of a backslash \x5c (as for comms).
            ok('{cgroup="/%s"}' % names[0].replace("\\", "\\\\x5c") in got and
               '{cgroup="/%s"}' % names[1].replace("\x01", "\\\\x01") in got,
               "the backslash is written \\x5c, the byte 0x01 \\x01", list(mine))
        finally:
            stop(p)
    finally:
        for d in reversed(made):
            os.rmdir(d)


def check_hybrid(tmp):
    """A hybrid set: each event labelled with the CPU kind it counts on."""
    fx = os.path.join(tmp, "fxh")
    subprocess.run([os.path.join(OUT, "mkfixture"), fx, "alderlake_hybrid"],
                   check=True, stdout=subprocess.DEVNULL)
    port = free_port()
    p = subprocess.Popen(
        [RDBENCH, "--fixture", os.path.join(fx, "alderlake_hybrid"), "-n", "400",
         "--cpus", "2", "--live", "--rate", "1e9", "--", "serve", "--listen",
         "127.0.0.1:%d" % port, "--duration", "20"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _, _, text = wait_http("http://127.0.0.1:%d/metrics" % port)
        evs = [ln for ln in text.splitlines() if ln.startswith("topdown_events_total{")]
        good = [ln for ln in evs if
                ('event="core/' in ln and 'cpu_kind="core"' in ln) or
                ('event="atom/' in ln and 'cpu_kind="atom"' in ln)]
        ok(evs and good == evs,
           "hybrid set: core/ and atom/ events carry cpu_kind core and atom",
           "\n".join(evs[:4]))
    finally:
        stop(p)


def check_no_module():
    """Without the module: serves topdown_up 0 and the state, no error."""
    port = free_port()
    p = subprocess.Popen([TDCTL, "serve", "--listen", "127.0.0.1:%d" % port,
                          "--duration", "20"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    try:
        st, _, text = wait_http("http://127.0.0.1:%d/metrics" % port)
        ok(st == 200 and "topdown_up 0" in text and
           'topdown_module_state{state="unloaded"} 1' in text,
           "no module: still served, topdown_up 0, state unloaded", text[:600])
    finally:
        stop(p)
    p = subprocess.run([TDCTL, "serve", "--listen", "127.0.0.1:99999"],
                       capture_output=True, text=True, timeout=10)
    ok(p.returncode == 1 and "--listen" in p.stderr, "a bad --listen: an error",
       p.stderr)


# Run in a network namespace of its own (unshare -n), whose only
# interface is its loopback: serve on every address or 0.0.0.0 is
# reachable from nowhere else.
NETNS_SCRIPT = r"""
import json, socket, subprocess, sys, time
tdctl, port, web = sys.argv[1], int(sys.argv[2]), sys.argv[3]
subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
def serve(listen, *more):
    return subprocess.Popen([tdctl, "serve", "--listen", listen, "--duration", "20"]
                            + list(more), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
def get(host):
    for _ in range(50):
        try:
            with socket.create_connection((host, port), timeout=2) as s:
                s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
                return s.recv(64).decode(errors="replace")[:12]
        except OSError:
            time.sleep(0.1)
    return None
def stop(p):
    p.terminate()
    return p.communicate(timeout=10)[1]
out = {}
p = serve(":%d" % port)
out["v4"], out["v6"] = get("127.0.0.1"), get("::1")
out["any"] = stop(p)
p = serve("0.0.0.0:%d" % port)
get("127.0.0.1")
out["v4any"] = stop(p)
p = serve("127.0.0.1:%d" % port)
get("127.0.0.1")
out["lo"] = stop(p)
print(json.dumps(out))
"""


def check_listen(tmp):
    """--listen :PORT is every address, IPv6 and IPv4; a non-loopback
    address without TLS or passwords is warned about at start."""
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip"):
        ok(True, "--listen in a network namespace # SKIP needs root, unshare, ip")
        return
    p = subprocess.run(["unshare", "-n", sys.executable, "-c", NETNS_SCRIPT, TDCTL,
                        "10642", ""], capture_output=True, text=True, timeout=120)
    try:
        out = json.loads(p.stdout)
    except ValueError:
        ok(False, "serve in a network namespace", p.stdout + p.stderr)
        return
    ok(out["v4"] == "HTTP/1.1 200" and out["v6"] == "HTTP/1.1 200",
       "--listen :PORT answers on 127.0.0.1 and on ::1 (dual stack)", out)
    ok("plain HTTP" in out["any"] and "no password" in out["any"] and
       "plain HTTP" in out["v4any"] and "no password" in out["v4any"],
       "--listen :PORT and 0.0.0.0:PORT without TLS or password: warned at start",
       out["any"] + out["v4any"])
    ok("warning" not in out["lo"].lower(), "--listen 127.0.0.1:PORT: no warning",
       out["lo"])


def check_files(tmp):
    p = subprocess.run(["promtool", "check", "rules",
                        os.path.join(TOP, "contrib/prometheus/topdown.rules.yml")],
                       capture_output=True, text=True)
    ok(p.returncode == 0, "promtool check rules contrib/prometheus/topdown.rules.yml",
       p.stdout + p.stderr)
    # systemctl reload: SIGHUP from a kill outside the sandbox, which
    # lacks CAP_KILL to signal serve once it is another user.
    with open(os.path.join(TOP, "contrib/systemd/tdctl-serve.service")) as fh:
        reload = [ln.rstrip("\n").split("=", 1)[1] for ln in fh
                  if ln.startswith("ExecReload=")]
    ok(reload == ['+/bin/sh -c "kill -HUP ${MAINPID}"'],
       "the unit's ExecReload= sends serve SIGHUP, with kill unconfined", reload)
    if not shutil.which("systemd-analyze"):
        ok(True, "the systemd unit # SKIP no systemd-analyze")
        return
    # verify wants the binary and the man page installed: the unit as is,
    # with the binary of this build and without Documentation=.
    with open(os.path.join(TOP, "contrib/systemd/tdctl-serve.service")) as fh:
        unit = "".join(ln.replace("/usr/sbin/tdctl", TDCTL) for ln in fh
                       if not ln.startswith("Documentation="))
    path = os.path.join(tmp, "tdctl-serve.service")
    with open(path, "w") as fh:
        fh.write(unit)
    p = subprocess.run(["systemd-analyze", "verify", path], capture_output=True,
                       text=True)
    ok(p.returncode == 0 and not p.stderr.strip(),
       "systemd-analyze verify contrib/systemd/tdctl-serve.service", p.stderr)
    # Its hardening: "OK" or better (exposure below 5.0 of 10).
    p = subprocess.run(["systemd-analyze", "security", "--offline=yes", path],
                       capture_output=True, text=True)
    m = [ln for ln in p.stdout.splitlines() if "Overall exposure level" in ln]
    score = float(m[0].split(":")[1].split()[0]) if m else 99
    level = m[0].split(":")[1].split()[1] if m else "?"
    ok(score < 5.0 and level in ("OK", "SAFE", "PERFECT"),
       "systemd-analyze security tdctl-serve.service: %.1f %s" % (score, level),
       p.stdout[-3000:] + p.stderr)


def run(tmp):
    fx = os.path.join(tmp, "fx")
    subprocess.run([os.path.join(OUT, "mkfixture"), fx, SET_FIXTURE],
                   check=True, stdout=subprocess.DEVNULL)
    fixture = os.path.join(fx, SET_FIXTURE)
    events, sums = expected_sums(tmp, fixture)
    check_files(tmp)
    check_limits(fixture)
    check_comm_overflow(fixture)
    check_cgroup_labels(fixture)
    check_hybrid(tmp)
    check_no_module()
    check_listen(tmp)
    port, prom = free_port(), free_port()
    # The shipped rules, evaluated every second instead of every 15 s.
    rules = os.path.join(tmp, "topdown.rules.yml")
    with open(os.path.join(TOP, "contrib/prometheus/topdown.rules.yml")) as fh:
        text = fh.read()
    with open(rules, "w") as fh:
        fh.write(text.replace("interval: 15s", "interval: 1s"))
    with open(os.path.join(tmp, "prometheus.yml"), "w") as fh:
        fh.write("""global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: [%s]
scrape_configs:
  - job_name: topdown
    scrape_interval: 1s
    static_configs:
      - targets: ['127.0.0.1:%d']
""" % (json.dumps(rules), port))
    procs = []
    try:
        log = open(os.path.join(tmp, "serve.log"), "w")
        t0 = time.monotonic()
        procs.append(subprocess.Popen(
            [RDBENCH, "--fixture", fixture, "-n", str(N), "--cpus", str(CPUS),
             "--live", "--rate", str(RATE), "--", "serve", "--listen",
             "127.0.0.1:%d" % port, "--by", "process", "--duration", "40"],
            stdout=log, stderr=subprocess.STDOUT))
        plog = open(os.path.join(tmp, "prometheus.log"), "w")
        procs.append(subprocess.Popen(
            ["prometheus", "--config.file=" + os.path.join(tmp, "prometheus.yml"),
             "--storage.tsdb.path=" + os.path.join(tmp, "data"),
             "--web.listen-address=127.0.0.1:%d" % prom],
            stdout=plog, stderr=subprocess.STDOUT))
        # Both up (bounded waits).
        for _ in range(100):
            try:
                http("http://127.0.0.1:%d/metrics" % port, timeout=1)
                http("http://127.0.0.1:%d/-/ready" % prom, timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        check_http(port)
        # Until every record is read and scraped twice more, at most 30 s.
        done = None
        while time.monotonic() - t0 < 30:
            try:
                r = query(prom, "sum(topdown_records_total)")
            except (OSError, RuntimeError):
                r = []
            if r and int(float(r[0]["value"][1])) == N:
                done = done or time.monotonic()
                if time.monotonic() - done > 3:
                    break
            time.sleep(0.5)
        now = time.time()
        r = query(prom, "up")
        ok(r and r[0]["value"][1] == "1", "Prometheus scraped the exporter (up 1)", r)
        r = query(prom, "topdown_events_total")
        got = {}
        for s in r:
            m = s["metric"]
            got.setdefault(m["pid"], {})[m["event"]] = int(float(s["value"][1]))
        want = {pid: a["counts"] for pid, a in sums.items()}
        ok(got == want, "topdown_events_total per process and event equals the "
           "records' sums over the slices read whole (%d processes, %d events)"
           % (len(want), len(events)),
           "got %s\nwant %s" % (json.dumps(got)[:800], json.dumps(want)[:800]))
        r = query(prom, "topdown_slices_total")
        got = {s["metric"]["pid"]: int(float(s["value"][1])) for s in r}
        ok(got == {pid: a["slices"] for pid, a in sums.items()},
           "topdown_slices_total per process equals the records'", got)
        # The rate while they arrived: from the samples, when the count
        # went from 10 % to 90 % of N; rate() in the middle of that.
        _, _, body = http("http://127.0.0.1:%d/api/v1/query_range?%s" % (
            prom, urllib.parse.urlencode({
                "query": "sum(topdown_slices_total)", "start": "%.3f" % (now - 40),
                "end": "%.3f" % now, "step": "0.5"})))
        pts = [(float(t), float(v)) for t, v in
               json.loads(body)["data"]["result"][0]["values"]]
        ta = next((t for t, v in pts if v >= 0.1 * N), None)
        tb = next((t for t, v in pts if v >= 0.9 * N), None)
        if ta is not None and tb is not None and tb - ta >= 4:
            r = query(prom, "sum(rate(topdown_slices_total[3s]))", (ta + tb) / 2)
            v = float(r[0]["value"][1]) if r else 0
            ok(abs(v - RATE) < 0.25 * RATE,
               "rate(topdown_slices_total[3s]) while the records arrive: %.0f/s "
               "(published at %.0f/s)" % (v, RATE), r)
        else:
            ok(True, "rate while the records arrive # SKIP Prometheus saw them "
               "arrive for less than 4 s (%r, %r): too slow a start" % (ta, tb))
        # The recording rules, on the same counters: retiring =
        # UOPS_RETIRED.SLOTS / TOPDOWN.SLOTS_P for intel_spr.
        t = now
        r1 = query(prom, "cgroup:topdown_retiring:ratio_rate1m", t)
        r2 = query(prom, 'sum(rate(topdown_events_total{event="UOPS_RETIRED.SLOTS"}[1m]))'
                   ' / sum(rate(topdown_events_total{event="TOPDOWN.SLOTS_P"}[1m]))', t)
        v1 = float(r1[0]["value"][1]) if r1 else -1
        v2 = float(r2[0]["value"][1]) if r2 else -2
        ok(r1 and r1[0]["metric"].get("formula") == "intel_spr" and
           abs(v1 - v2) < 0.02 * v2,
           "recording rule cgroup:topdown_retiring:ratio_rate1m = %.4f, the formula "
           "on the counters %.4f" % (v1, v2), r1)
        rules = ["cgroup:topdown_%s:ratio_rate1m" % m for m in
                 ("bad_speculation", "frontend_bound", "backend_bound")]
        ok(all(query(prom, q, t) for q in rules),
           "the other three fractions are recorded", rules)
        # Every query of the Grafana dashboard runs and finds data.
        with open(os.path.join(TOP, "contrib/grafana/topdown.json")) as fh:
            dash = json.load(fh)
        bad = []
        for panel in dash["panels"]:
            for tgt in panel["targets"]:
                q = tgt["expr"].replace("$cgroup", ".*")
                try:
                    if not query(prom, q, t):
                        bad.append("no data: " + q)
                except (OSError, RuntimeError) as e:
                    bad.append("%s: %s" % (q, e))
        ok(not bad, "every query of contrib/grafana/topdown.json returns data",
           "\n".join(bad))
        r = query(prom, "topdown_lost_records_total")
        ok(len(r) == CPUS and all(s["value"][1] == "0" for s in r),
           "topdown_lost_records_total per CPU: 0", r)
    finally:
        for p in procs:
            stop(p)


@fixture
def rdbench():
    """The reader benchmark's rdbench (RDBENCH: tdctl on fake rings), built
    for the serve tests (this file's and the test_serve_*.py that import
    it); they are skipped when it does not build."""
    b = subprocess.run(["make", "-s", "-C", os.path.join(TOP, "selftests/bench"),
                        "reader"], capture_output=True, text=True)
    if not ok(b.returncode == 0, "rdbench builds (the fake rings)", b.stderr):
        skip_all("no rdbench")
    return RDBENCH


def tools():
    require(shutil.which("prometheus") and shutil.which("promtool"),
            "prometheus and promtool are not installed (scripts/deps.sh)")


@test
def serve(tmp, rdbench):
    run(tmp)


if __name__ == "__main__":
    main(setup=tools)
