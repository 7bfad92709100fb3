#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""selftests/vm/hang-dump against a fake QEMU monitor and a fake kallsyms.

The monitor answers 'info registers -a' as QEMU 7.2's HMP does (echo with
terminal escapes, CPU#n blocks, RIP= and RFL= fields), with a different RIP
for vCPU 1 on each call; the samples must be those, in order, and resolve
through a kallsyms listing from a boot with another KASLR shift.
"""
import os
import socket
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "lib")]  # tap.py: selftests/lib
from tap import TOP, main, ok, test  # noqa: E402

HANG_DUMP = os.path.join(TOP, "selftests/vm/hang-dump")
# One boot's listing: _stext at ...a8c00000 (and _etext as arm64 has it, D).
KALLSYMS = """\
ffffffffa8c00000 T _stext
ffffffffa8c01000 t exc_int3
ffffffffa8c01200 T __schedule
ffffffffa8c01300 T native_irq_return_iret
ffffffffa8c01a00 T native_safe_halt
ffffffffa9a01ef2 D _etext
ffffffffa9b00000 d some_data
"""
TEXT_HUNG = 0xffffffff8dc00000  # _stext in the hung boot
SHIFT = TEXT_HUNG - 0xffffffffa8c00000
LOOP = False  # vCPU 1 stays in exc_int3


def regs(call):
    """Two vCPUs: 0 halted with interrupts on; 1 moving inside exc_int3
    with interrupts off, then in a module."""
    rip1 = [0xffffffffa8c01010, 0xffffffffa8c01020, 0xffffffffa8c01281,
            0xffffffffc0a01000 - SHIFT][call % 4] + SHIFT
    if LOOP:  # the entry and the iret, as in a real hang
        rip1 = (0xffffffffa8c01010, 0xffffffffa8c01310)[call % 2] + SHIFT
    out = []
    for cpu, rip, rfl in ((0, 0xffffffffa8c01a0b + SHIFT, 0x246),
                          (1, rip1, 0x46)):
        out.append("CPU#%d\r\nRAX=0000000000000000 RBX=0000000000000001\r\n"
                   "RIP=%016x RFL=%08x [---Z-P-] CPL=0 II=0 A20=1 SMM=0 HLT=%d\r\n"
                   % (cpu, rip, rfl, 1 - cpu))
    return "".join(out)


def fake_monitor(path, calls):
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)

    def serve():
        conn, _ = srv.accept()
        conn.sendall(b"QEMU 7.2.19 monitor - type 'help' for more information\r\n(qemu) ")
        buf = b""
        while True:
            data = conn.recv(4096)
            if not data:
                break
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                cmd = line.decode().strip()
                echo = "\x1b[K" + cmd + "\r\n"
                if cmd == "info registers -a":
                    body = regs(len(calls))
                    calls.append(cmd)
                else:
                    body = "unknown command: '%s'\r\n" % cmd
                conn.sendall((echo + body + "(qemu) ").encode())
        conn.close()
        srv.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    return t


@test
def hang_dump(tmp):
    d = tmp
    sock = os.path.join(d, "mon")
    calls = []
    t = fake_monitor(sock, calls)
    p = subprocess.run([HANG_DUMP, "sample", sock], capture_output=True,
                       text=True, timeout=60)
    t.join(5)
    ok(p.returncode == 0, "sample: exit 0", p.stderr)
    ok(len(calls) == 4, "sample: asked the monitor 4 times", calls)
    lines = p.stdout.split("\n")
    cpu1 = [x for x in lines if x.startswith("cpu 1 ")]
    want1 = "cpu 1 if off " + " ".join(
        "%x" % (r + SHIFT) for r in (0xffffffffa8c01010, 0xffffffffa8c01020,
                                     0xffffffffa8c01281,
                                     0xffffffffc0a01000 - SHIFT))
    ok(cpu1 == [want1], "sample: vCPU 1's four RIPs in order, interrupts off",
       "\n".join(cpu1) + "\nwant " + want1)
    ok(any(x.startswith("cpu 0 if on ") for x in lines),
       "sample: vCPU 0 interrupts on", p.stdout)
    ok("HLT=1" in p.stdout and "\x1b" not in p.stdout,
       "sample: the last answer, without terminal escapes", p.stdout)

    raw = os.path.join(d, "raw")
    with open(raw, "w") as f:
        f.write(p.stdout)
    ks = os.path.join(d, "kallsyms")
    with open(ks, "w") as f:
        f.write(KALLSYMS)
    r = subprocess.run([HANG_DUMP, "resolve", raw, ks, "%x" % TEXT_HUNG],
                       capture_output=True, text=True)
    out = r.stdout
    ok(r.returncode == 0, "resolve: exit 0", r.stderr)
    for want in ("native_safe_halt+0xb", "exc_int3+0x10", "exc_int3+0x20",
                 "__schedule+0x81", "not kernel text",
                 "vCPU 1, interrupts off"):
        ok(want in out, "resolve: %s" % want, out)
    ok("vCPU 1: in the int3 handler" not in out,
       "resolve: samples outside the int3 path are no int3 loop", out)
    ok("some_data" not in out, "resolve: data symbols are not used", out)

    global LOOP
    LOOP = True
    sock2 = os.path.join(d, "mon2")
    t = fake_monitor(sock2, [])
    p = subprocess.run([HANG_DUMP, "sample", sock2], capture_output=True,
                       text=True, timeout=60)
    t.join(5)
    with open(raw + "2", "w") as f:
        f.write(p.stdout)
    r = subprocess.run([HANG_DUMP, "resolve", raw + "2", ks, "%x" % TEXT_HUNG],
                       capture_output=True, text=True)
    ok("vCPU 1: in the int3 handler with interrupts off" in r.stdout
       and "vCPU 0:" not in r.stdout,
       "resolve: an int3 loop is named", r.stdout + r.stderr)

    # What the symbols boot looks up: each distinct kernel PC's
    # offset from _stext, in order; the module address is not one.
    r = subprocess.run([HANG_DUMP, "offsets", raw, "%x" % TEXT_HUNG],
                       capture_output=True, text=True)
    want = ["%x" % (pc - 0xffffffffa8c00000) for pc in
            (0xffffffffa8c01a0b, 0xffffffffa8c01010, 0xffffffffa8c01020,
             0xffffffffa8c01281)]
    got = r.stdout.split()
    ok(r.returncode == 0 and got[:1] == want[:1] and sorted(got) == sorted(want),
       "offsets: the distinct kernel PCs from _stext (%s)" % " ".join(got),
       r.stdout + r.stderr + "want " + " ".join(want))

    r = subprocess.run([HANG_DUMP, "resolve", raw], capture_output=True, text=True)
    ok(r.returncode == 0 and "(no symbols)" in r.stdout
       and "%x" % (0xffffffffa8c01a0b + SHIFT) in r.stdout,
       "resolve without symbols prints bare addresses", r.stdout + r.stderr)

    r = subprocess.run([HANG_DUMP, "sample", os.path.join(d, "nothing")],
                       capture_output=True, text=True)
    ok(r.returncode == 1 and "hang-dump:" in r.stderr,
       "sample: no monitor is exit 1 with a message", r.stderr)
    r = subprocess.run([HANG_DUMP, "bogus"], capture_output=True, text=True)
    ok(r.returncode == 2, "usage error is exit 2", r.stderr)


if __name__ == "__main__":
    main()
