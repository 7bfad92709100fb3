#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What a browser can open of tdctl's traces (Documentation/man/
tdctl-timeline.rst, SIZE): each TRACE (a JSON file of `tdctl timeline`)
is served from a loopback HTTP server and, in a fresh headless Chromium
per file, fetched as text and parsed with JSON.parse; prints the
characters read, the events parsed, the seconds each step took and the
JavaScript heap after. Chromium from Debian (`apt-get install
chromium`), driven over --remote-debugging-pipe (the DevTools protocol,
no other package); a fresh --user-data-dir each time, no network.

    selftests/bench/browser/trace_load.py TRACE...

A trace longer than V8's strings (2^29 - 24 characters) comes back as
0 characters. Not part of make check: it needs Chromium and minutes.
"""
import functools
import http.server
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run"]


class Chrome:
    """Chromium with the DevTools protocol on fds 3 (to it) and 4."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="trace_load.")
        to_r, self.w = os.pipe()
        self.r, from_w = os.pipe()

        def child():
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3)
            os.dup2(b, 4)
        self.p = subprocess.Popen(
            ["chromium"] + FLAGS + ["--user-data-dir=" + self.dir,
                                    "--remote-debugging-pipe", "about:blank"],
            close_fds=False, preexec_fn=child, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_r)
        os.close(from_w)
        self.buf, self.id, self.events = b"", 0, []

    def _recv(self, timeout):
        end = time.time() + timeout
        while b"\0" not in self.buf:
            left = end - time.time()
            if left <= 0 or not select.select([self.r], [], [], left)[0]:
                return None
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                return None
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=60):
        self.id += 1
        msg = {"id": self.id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        end = time.time() + timeout
        while time.time() < end:
            m = self._recv(end - time.time())
            if m is None:
                break
            if m.get("id") == self.id:
                return m
            self.events.append(m)
        raise TimeoutError(method)

    def wait_event(self, name, timeout):
        end = time.time() + timeout
        while time.time() < end:
            for k, m in enumerate(self.events):
                if m.get("method") == name:
                    return self.events.pop(k)
            m = self._recv(end - time.time())
            if m is None:
                return None
            self.events.append(m)
        return None

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except (TimeoutError, OSError):
            pass
        try:
            self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        os.close(self.w)
        os.close(self.r)
        shutil.rmtree(self.dir, ignore_errors=True)


JS = """(async () => {
  const out = {};
  const t0 = performance.now();
  let s;
  try { s = await (await fetch('/%s')).text(); }
  catch (e) { out.text = 'failed: ' + e; return JSON.stringify(out); }
  out.chars = s.length; out.text_s = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  let o;
  try { o = JSON.parse(s); }
  catch (e) { out.parse = 'failed: ' + e; return JSON.stringify(out); }
  s = null;
  out.events = o.traceEvents.length;
  out.parse_s = (performance.now() - t1) / 1000;
  out.heap_mb = performance.memory ?
    performance.memory.usedJSHeapSize / 1048576 : null;
  return JSON.stringify(out);
})()"""


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def load(port, name):
    c = Chrome()
    try:
        t = c.call("Target.createTarget", {"url": "about:blank"})
        s = c.call("Target.attachToTarget", {
            "targetId": t["result"]["targetId"], "flatten": True})
        s = s["result"]["sessionId"]
        c.call("Page.enable", session=s)
        c.call("Page.navigate",
               {"url": "http://127.0.0.1:%d/index.html" % port}, session=s)
        c.wait_event("Page.loadEventFired", 30)
        try:
            r = c.call("Runtime.evaluate", {
                "expression": JS % name, "awaitPromise": True,
                "returnByValue": True}, session=s, timeout=900)
            return r.get("result", {}).get("result", {}).get("value") or \
                json.dumps(r)[:300]
        except TimeoutError:
            return "no answer in 900 s"
    finally:
        c.close()


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    if not shutil.which("chromium"):
        print("SKIP: no chromium (apt-get install chromium)")
        return 0
    root = tempfile.mkdtemp(prefix="trace_load_www.")
    try:
        with open(os.path.join(root, "index.html"), "w") as fh:
            fh.write("<html><body>trace_load</body></html>")
        for i, path in enumerate(sys.argv[1:]):
            os.symlink(os.path.abspath(path), os.path.join(root, "%d.json" % i))
        srv = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Quiet, directory=root))
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        for i, path in enumerate(sys.argv[1:]):
            size = os.path.getsize(path)
            t0 = time.time()
            res = load(srv.server_address[1], "%d.json" % i)
            print("%s: %d bytes (%.0f MiB): %s [%.1f s]" % (
                path, size, size / 1048576, res, time.time() - t0), flush=True)
        srv.shutdown()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
