#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""`tdctl serve` started without root: what it drops, keeps and refuses.

serve runs inside rdbench (fake rings, as in test_serve.py), started by
setpriv(1) as uid 65534 when the test runs as root, else as the user
running it:

  - a user's full bounding set (which it cannot drop without
    CAP_SETPCAP): serve starts, says the bounding set stays, answers
    /metrics with the records; its /proc status shows no capability in
    the permitted, effective, inheritable and ambient sets, a non-empty
    bounding set, and no_new_privs,
  - (root only) an ambient CAP_NET_RAW: serve drops it and starts,
  - (root only) an ambient CAP_NET_RAW that it cannot drop (a seccomp
    filter makes capset(2) fail with EPERM): serve refuses to start,
    exit 1, naming CAP_NET_RAW, the sets that hold it and capset's
    error; it never answers,
  - (root only) started as root, serve still ends as nobody with every
    set empty, the bounding set included.

Every process is killed and the temporary directory removed at the end.
SKIP without setpriv as root. TAP.
"""
import os
import platform
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]  # tap.py: selftests/lib
from tap import main, ok, require, test  # noqa: E402
from test_serve import OUT, RDBENCH, SET_FIXTURE, free_port, stop, wait_http  # noqa: E402

NOBODY = 65534
SETS = ("CapInh", "CapPrm", "CapEff", "CapAmb")

# Run by setpriv as the unprivileged user: a seccomp filter that fails
# capset(2) with EPERM, then exec argv[1:]. The audit arch and capset's
# number per machine (linux/audit.h, the unistd.h of each).
SECCOMP_EXEC = r"""
import ctypes, os, platform, struct, sys
arch, nr = {"x86_64": (0xc000003e, 126), "aarch64": (0xc00000b7, 91)}[platform.machine()]


def insn(code, jt, jf, k):
    return struct.pack("HBBI", code, jt, jf, k)


prog = b"".join([
    insn(0x20, 0, 0, 4),                # ld [4]: arch
    insn(0x15, 0, 3, arch),             # jeq arch, else allow
    insn(0x20, 0, 0, 0),                # ld [0]: nr
    insn(0x15, 0, 1, nr),               # jeq capset, else allow
    insn(0x06, 0, 0, 0x00050000 | 1),   # ret SECCOMP_RET_ERRNO | EPERM
    insn(0x06, 0, 0, 0x7fff0000),       # ret SECCOMP_RET_ALLOW
])


class Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


buf = ctypes.create_string_buffer(prog)
fprog = Fprog(len(prog) // 8, ctypes.addressof(buf))
libc = ctypes.CDLL(None, use_errno=True)
z = ctypes.c_ulong(0)
if (libc.prctl(38, ctypes.c_ulong(1), z, z, z) or       # PR_SET_NO_NEW_PRIVS
        libc.prctl(22, ctypes.c_ulong(2), ctypes.byref(fprog), z, z)):  # PR_SET_SECCOMP
    sys.exit("seccomp: " + os.strerror(ctypes.get_errno()))
os.execv(sys.argv[1], sys.argv[1:])
"""


def status_of(pid):
    with open("/proc/%d/status" % pid) as fh:
        return dict(ln.rstrip("\n").split(":\t", 1) for ln in fh if ":\t" in ln)


def serve(fixture, port, prefix, log):
    """rdbench -- serve under prefix (setpriv ...): serve's process is
    rdbench's, which setpriv becomes."""
    return subprocess.Popen(
        prefix + [RDBENCH, "--fixture", fixture, "-n", "2000", "--cpus", "2",
                  "--live", "--rate", "1000", "--", "serve", "--listen",
                  "127.0.0.1:%d" % port, "--duration", "30"],
        stdout=subprocess.DEVNULL, stderr=log)


def scrape(fixture, prefix, tmp, name):
    """Start serve, scrape it: (/metrics body or "", /proc status of serve
    while it ran or {}, stderr, exit status)."""
    port = free_port()
    path = os.path.join(tmp, name + ".log")
    with open(path, "w") as log:
        p = serve(fixture, port, prefix, log)
        try:
            st, _, body = wait_http("http://127.0.0.1:%d/metrics" % port)
            status = status_of(p.pid) if st == 200 and p.poll() is None else {}
        finally:
            stop(p)
    with open(path) as fh:
        return body if st == 200 else "", status, fh.read(), p.returncode


def check_unprivileged(fixture, tmp, setpriv):
    as_user = setpriv + ["--reuid", str(NOBODY), "--regid", str(NOBODY),
                         "--clear-groups"] if setpriv else []
    uid = NOBODY if setpriv else os.getuid()
    body, s, err, _ = scrape(fixture, as_user, tmp, "user")
    ok("topdown_records_total" in body and "topdown_up 1" in body,
       "as uid %d with a full bounding set: serve starts and serves /metrics" % uid,
       err[-1500:])
    caps = {k: s.get(k) for k in SETS + ("CapBnd",)}
    ok(s and s["Uid"].split() == [str(uid)] * 4 and
       all(caps[k] == "0000000000000000" for k in SETS) and
       int(caps["CapBnd"], 16) != 0 and s.get("NoNewPrivs") == "1",
       "as uid %d: no capability but in the bounding set, no_new_privs" % uid,
       "%s %s %s" % (s.get("Uid"), caps, s.get("NoNewPrivs")))
    ok("stay in the bounding set" in err and "CAP_SETPCAP" in err and
       "no_new_privs" in err,
       "the bounding set kept is said, and why it is harmless", err[-1500:])
    if not setpriv:
        ok(True, "an ambient capability dropped # SKIP not root")
        ok(True, "a capability that cannot be dropped is refused # SKIP not root")
        return
    net_raw = as_user + ["--inh-caps", "+net_raw", "--ambient-caps", "+net_raw"]
    body, s, err, _ = scrape(fixture, net_raw, tmp, "ambient")
    ok("topdown_records_total" in body and s and
       all(s.get(k) == "0000000000000000" for k in SETS),
       "as uid %d with an ambient CAP_NET_RAW: dropped, serve starts" % NOBODY,
       "%s\n%s" % ({k: s.get(k) for k in SETS}, err[-1500:]))
    if platform.machine() not in ("x86_64", "aarch64"):
        ok(True, "a capability that cannot be dropped is refused # SKIP no "
           "seccomp filter for %s here" % platform.machine())
        return
    stuck = net_raw + [sys.executable, "-c", SECCOMP_EXEC]
    body, s, err, rc = scrape(fixture, stuck, tmp, "stuck")
    ok(rc == 1 and not body and
       "cannot drop CAP_NET_RAW (permitted, effective)" in err and
       "capset: Operation not permitted" in err and "listening" not in err,
       "an ambient CAP_NET_RAW that capset cannot drop: refused, exit %r, named "
       "with its sets and the reason" % rc, err[-1500:])


def check_root(fixture, tmp):
    body, s, err, _ = scrape(fixture, [], tmp, "root")
    caps = {k: s.get(k) for k in SETS + ("CapBnd",)}
    ok("topdown_records_total" in body and s and
       s["Uid"].split() == [str(NOBODY)] * 4 and
       all(v == "0000000000000000" for v in caps.values()) and
       s.get("NoNewPrivs") == "1" and "bounding set" not in err,
       "as root: serve becomes nobody with every set empty, the bounding set too",
       "%s %s\n%s" % (s.get("Uid"), caps, err[-1500:]))


def tools():
    require(os.geteuid() != 0 or shutil.which("setpriv"),
            "root without setpriv (util-linux): no other user")


@test
def serve_privs(tmp, rdbench):
    setpriv = [shutil.which("setpriv")] if os.geteuid() == 0 else None
    os.chmod(tmp, 0o755)        # the fixture, read as uid 65534
    fx = os.path.join(tmp, "fx")
    subprocess.run([os.path.join(OUT, "mkfixture"), fx, SET_FIXTURE], check=True,
                   stdout=subprocess.DEVNULL)
    fixture = os.path.join(fx, SET_FIXTURE)
    check_unprivileged(fixture, tmp, setpriv)
    if setpriv:
        check_root(fixture, tmp)
    else:
        ok(True, "as root: every set empty # SKIP not root")


if __name__ == "__main__":
    main(setup=tools)
