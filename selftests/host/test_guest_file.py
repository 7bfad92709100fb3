#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read back on the host the record files that the guests wrote: the guest
suite tdctl_stat_test.sh prints its file in base64 and its own
`report --json` of it between markers; this decodes the file, runs the
host's tdctl report on it (another architecture for the arm64 guest) and
requires the same report. Usage: test_guest_file.py GUEST-TAP-LOG... TAP.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import TDCTL, ok, plan  # noqa: E402


def between(lines, begin, end):
    out, inside = [], False
    for ln in lines:
        if ln.startswith("# " + begin):
            inside = True
        elif ln.startswith("# " + end):
            inside = False
        elif inside and ln.startswith("# "):
            out.append(ln[2:])
    return out


def main():
    tmp = tempfile.mkdtemp(prefix="td_guestfile.")
    for log in sys.argv[1:]:
        name = os.path.basename(log)
        try:
            with open(log, errors="replace") as fh:
                lines = [ln.rstrip("\r\n") for ln in fh]
        except OSError:
            lines = []
        b64 = between(lines, "tdfile-begin", "tdfile-end")
        rep = between(lines, "tdfile-report-begin", "tdfile-report-end")
        if not ok(b64 and rep, "%s: the guest printed a record file and its report" % name):
            continue
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
    return plan()


if __name__ == "__main__":
    sys.exit(main())
